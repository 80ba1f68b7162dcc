package io.videoedge.operator.status;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.videoedge.api.VideoEdge;
import io.videoedge.operator.config.OperatorSettings;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Writes {@link TransitionEvents} as core/v1 Events on the VideoEdge or CachePurge (kubectl describe shows them). */
public final class EventRecorder {
    public static final String COMPONENT = "videoedge-operator";
    private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);

    private final KubernetesClient client;
    private final String instance;
    private final Clock clock;

    public EventRecorder(KubernetesClient client, String instance, Clock clock) {
        this.client = client;
        this.instance = instance;
        this.clock = clock;
    }

    public static EventRecorder of(Context<VideoEdge> context, OperatorSettings settings) {
        return new EventRecorder(context.getClient(), settings.identity(), Clock.systemUTC());
    }

    public void record(HasMetadata ve, List<TransitionEvents.Notice> notices) {
        for (TransitionEvents.Notice notice : notices) {
            String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
            var event = new EventBuilder()
                    .withNewMetadata()
                    .withName(ve.getMetadata().getName() + "."
                            + UUID.randomUUID().toString().substring(0, 8))
                    .withNamespace(ve.getMetadata().getNamespace())
                    .endMetadata()
                    .withInvolvedObject(new ObjectReferenceBuilder()
                            .withApiVersion(ve.getApiVersion())
                            .withKind(ve.getKind())
                            .withName(ve.getMetadata().getName())
                            .withNamespace(ve.getMetadata().getNamespace())
                            .withUid(ve.getMetadata().getUid())
                            .withResourceVersion(ve.getMetadata().getResourceVersion())
                            .build())
                    .withType(notice.type())
                    .withReason(notice.reason())
                    .withMessage(StatusAggregator.truncate(notice.message() == null ? "" : notice.message()))
                    .withFirstTimestamp(now)
                    .withLastTimestamp(now)
                    .withCount(1)
                    .withNewSource()
                    .withComponent(COMPONENT)
                    .endSource()
                    .withReportingComponent(COMPONENT)
                    .withReportingInstance(instance)
                    .build();
            try {
                client.v1()
                        .events()
                        .inNamespace(ve.getMetadata().getNamespace())
                        .resource(event)
                        .create();
            } catch (KubernetesClientException e) {
                // an Event is a courtesy: the status already says it
                log.warn(
                        "Could not record event {} on {}: {}",
                        notice.reason(),
                        ve.getMetadata().getName(),
                        e.getMessage());
            }
        }
    }
}
