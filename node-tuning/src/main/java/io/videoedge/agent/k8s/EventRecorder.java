package io.videoedge.agent.k8s;

import io.videoedge.api.NodeTuning;
import java.io.IOException;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Events on the NodeTuning (core/v1, in a namespace of their own since NodeTuning is
 * cluster-scoped, as the kubelet does for Nodes). A failed event never fails a pass.
 */
public final class EventRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);
  public static final String COMPONENT = "videoedge-node-agent";

  private final KubeClient kube;
  private final String namespace;
  private final String node;
  private final Clock clock;
  private final AtomicLong seq = new AtomicLong();

  public EventRecorder(KubeClient kube, String namespace, String node, Clock clock) {
    this.kube = kube;
    this.namespace = namespace;
    this.node = node;
    this.clock = clock;
  }

  public void normal(NodeTuning nt, String reason, String message) {
    emit(nt, "Normal", reason, message);
  }

  public void warning(NodeTuning nt, String reason, String message) {
    emit(nt, "Warning", reason, message);
  }

  private void emit(NodeTuning nt, String type, String reason, String message) {
    String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    Map<String, Object> involved = new LinkedHashMap<>();
    involved.put("apiVersion", nt.getApiVersion());
    involved.put("kind", nt.getKind());
    involved.put("name", nt.getMetadata().getName());
    involved.put("uid", nt.getMetadata().getUid());
    involved.put("resourceVersion", nt.getMetadata().getResourceVersion());
    Map<String, Object> ev = new LinkedHashMap<>();
    ev.put("apiVersion", "v1");
    ev.put("kind", "Event");
    ev.put("metadata", Map.of("name", nt.getMetadata().getName() + "." + Long.toHexString(clock.millis()) + seq.incrementAndGet(),
        "namespace", namespace));
    ev.put("involvedObject", involved);
    ev.put("type", type);
    ev.put("reason", reason);
    ev.put("message", message.length() > 1024 ? message.substring(0, 1021) + "..." : message);
    ev.put("source", Map.of("component", COMPONENT, "host", node));
    ev.put("reportingComponent", COMPONENT);
    ev.put("reportingInstance", node);
    ev.put("firstTimestamp", now);
    ev.put("lastTimestamp", now);
    ev.put("count", 1);
    try {
      kube.post("/api/v1/namespaces/" + namespace + "/events", KubeClient.JSON.writeValueAsString(ev));
    } catch (IOException e) {
      LOG.warn("event {} {} not recorded: {}", reason, message, e.getMessage());
    }
  }
}
