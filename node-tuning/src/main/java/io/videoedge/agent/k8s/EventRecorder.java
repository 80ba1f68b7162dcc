package io.videoedge.agent.k8s;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.videoedge.api.NodeTuning;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Events on the NodeTuning (core/v1, in a namespace of their own since NodeTuning is
 * cluster-scoped, as the kubelet does for Nodes). A failed event never fails a pass; each method says whether the
 * Event was recorded.
 */
public final class EventRecorder {
    private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);
    public static final String COMPONENT = "videoedge-node-agent";

    private final KubernetesClient client;
    private final String namespace;
    private final String node;
    private final Clock clock;
    private final AtomicLong seq = new AtomicLong();

    public EventRecorder(KubernetesClient client, String namespace, String node, Clock clock) {
        this.client = client;
        this.namespace = namespace;
        this.node = node;
        this.clock = clock;
    }

    public boolean normal(NodeTuning nt, String reason, String message) {
        return emit(nt, "Normal", reason, message);
    }

    public boolean warning(NodeTuning nt, String reason, String message) {
        return emit(nt, "Warning", reason, message);
    }

    private boolean emit(NodeTuning nt, String type, String reason, String message) {
        String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
        String name = nt.getMetadata().getName() + "." + Long.toHexString(clock.millis()) + seq.incrementAndGet();
        try {
            client.v1()
                    .events()
                    .inNamespace(namespace)
                    .resource(new EventBuilder()
                            .withNewMetadata()
                            .withName(name)
                            .withNamespace(namespace)
                            .endMetadata()
                            .withInvolvedObject(new ObjectReferenceBuilder()
                                    .withApiVersion(nt.getApiVersion())
                                    .withKind(nt.getKind())
                                    .withName(nt.getMetadata().getName())
                                    .withUid(nt.getMetadata().getUid())
                                    .withResourceVersion(nt.getMetadata().getResourceVersion())
                                    .build())
                            .withType(type)
                            .withReason(reason)
                            .withMessage(message.length() > 1024 ? message.substring(0, 1021) + "..." : message)
                            .withNewSource()
                            .withComponent(COMPONENT)
                            .withHost(node)
                            .endSource()
                            .withReportingComponent(COMPONENT)
                            .withReportingInstance(node)
                            .withFirstTimestamp(now)
                            .withLastTimestamp(now)
                            .withCount(1)
                            .build())
                    .create();
            return true;
        } catch (KubernetesClientException e) {
            LOG.warn("event {} {} not recorded: {}", reason, message, e.getMessage());
            return false;
        }
    }
}
