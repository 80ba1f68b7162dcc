package io.videoedge.operator.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.videoedge.api.Conditions;
import io.videoedge.api.NodeCapabilities;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.VideoEdgeStatus.NodeSummary;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where one node stands: its tuning (from the NodeTuning the agent reports on) and its edge server
 * (from the pod there). Pure.
 *
 * <p>A node is tuned for generation G when its NodeTuning renders G (spec.source.generation), the
 * agent has seen the NodeTuning's latest spec (status.observedGeneration == metadata.generation) and
 * reports Applied=True. In Plan mode the agent reports Applied=False/PlanOnly instead: "planned".
 */
public record NodeReport(String node, Tuning tuning, Server server, String tuningMessage, String serverMessage,
    NodeSummary summary) {
  public enum Tuning {
    APPLIED("Applied"), PLANNED("Planned"), PENDING("Pending"), DEGRADED("Degraded"), FAILED("Failed"),
    CONFLICT("Conflict");

    final String label;

    Tuning(String label) {
      this.label = label;
    }

    /** Applied for the generation (Degraded is applied too, with something the agent reports). */
    public boolean tuned() {
      return this == APPLIED || this == DEGRADED;
    }
  }

  public enum Server {
    READY("Ready"), NOT_READY("NotReady"), PENDING("Pending"), MISSING("Missing");

    final String label;

    Server(String label) {
      this.label = label;
    }
  }

  public static final String KTLS_NOT_REQUESTED = "not-requested";
  public static final String KTLS_UNAVAILABLE = "unavailable";

  /**
   * @param generation the VideoEdge generation the node must be tuned for
   * @param kernelTls whether the server asks for kernel TLS on this node
   * @param interfaces the interfaces the VideoEdge tunes (null: the agent's default)
   */
  public static NodeReport of(String node, NodeTuning nt, Pod pod, long generation, boolean kernelTls,
      List<String> interfaces) {
    TuningVerdict t = tuning(nt, generation);
    Server server = server(pod);
    NodeCapabilities caps = nt == null || nt.getStatus() == null ? null : nt.getStatus().capabilities();
    String ktls = !kernelTls ? KTLS_NOT_REQUESTED : caps == null || caps.ktls() == null ? null : caps.ktls();
    String serverMessage = server == Server.READY ? null : serverMessage(server, pod);
    // the summary says the most pressing thing: tuning first (it gates the server), then kTLS, then the server
    String message = t.message;
    if (message == null && kernelTls && KTLS_UNAVAILABLE.equals(ktls)) {
      message = "kernel TLS unavailable: the server uses userspace OpenSSL";
    }
    if (message == null) {
      message = serverMessage;
    }
    NodeSummary summary = new NodeSummary(node, t.state.label, server.label,
        caps == null ? null : caps.kernel(), ktls, nic(caps, interfaces), message);
    return new NodeReport(node, t.state, server, t.message, serverMessage, summary);
  }

  /** A node an older VideoEdge keeps (or whose NodeTuning another one still holds). */
  public static NodeReport notOurs(String node, Tuning state, String message) {
    return new NodeReport(node, state, null, message, null, new NodeSummary(node, state.label, null, null, null, null, message));
  }

  /** What the summary says about this node. */
  public String message() {
    return summary.message();
  }

  public boolean tuned() {
    return tuning.tuned();
  }

  public boolean serving() {
    return server == Server.READY;
  }

  public boolean kernelTlsUnavailable() {
    return KTLS_UNAVAILABLE.equals(summary.ktls());
  }

  record TuningVerdict(Tuning state, String message) {
  }

  static TuningVerdict tuning(NodeTuning nt, long generation) {
    if (nt == null) {
      return new TuningVerdict(Tuning.PENDING, "NodeTuning not created yet");
    }
    Long rendered = nt.getSpec() == null || nt.getSpec().source() == null ? null : nt.getSpec().source().generation();
    if (!Objects.equals(rendered, generation)) {
      return new TuningVerdict(Tuning.PENDING, "NodeTuning renders generation " + rendered + ", not " + generation);
    }
    NodeTuningStatus status = nt.getStatus();
    Long observed = status == null ? null : status.observedGeneration();
    if (observed == null || !observed.equals(nt.getMetadata().getGeneration())) {
      return new TuningVerdict(Tuning.PENDING, "waiting for the node agent to apply the NodeTuning");
    }
    Optional<Condition> applied = condition(status, Conditions.APPLIED);
    Optional<Condition> degraded = condition(status, Conditions.DEGRADED).filter(c -> Conditions.TRUE.equals(c.getStatus()));
    if (applied.isEmpty() || Conditions.UNKNOWN.equals(applied.get().getStatus())) {
      return new TuningVerdict(Tuning.PENDING, "the node agent has not reported Applied yet");
    }
    Condition a = applied.get();
    if (Conditions.TRUE.equals(a.getStatus())) {
      return degraded.isPresent()
          ? new TuningVerdict(Tuning.DEGRADED, agentSays(degraded.get()))
          : new TuningVerdict(Tuning.APPLIED, null);
    }
    return switch (Objects.toString(a.getReason(), "")) {
      case Conditions.PLAN_ONLY -> new TuningVerdict(Tuning.PLANNED, "untuned by request (tuning.mode Plan)");
      case Conditions.APPLY_FAILED, Conditions.ROLLED_BACK, Conditions.UNSUPPORTED_SETTINGS ->
          new TuningVerdict(Tuning.FAILED, agentSays(a));
      default -> new TuningVerdict(Tuning.PENDING, agentSays(a));
    };
  }

  static Server server(Pod pod) {
    if (pod == null) {
      return Server.MISSING;
    }
    if (pod.getSpec() == null || pod.getSpec().getNodeName() == null || pod.getStatus() == null
        || "Pending".equals(pod.getStatus().getPhase()) || pod.getStatus().getPhase() == null) {
      return Server.PENDING;
    }
    boolean ready = pod.getStatus().getConditions() != null && pod.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && Conditions.TRUE.equals(c.getStatus()));
    return ready ? Server.READY : Server.NOT_READY;
  }

  private static String serverMessage(Server server, Pod pod) {
    return switch (server) {
      case MISSING -> "no edge-server pod on this node yet";
      case PENDING -> "pod " + pod.getMetadata().getName() + " is pending";
      case NOT_READY -> "pod " + pod.getMetadata().getName() + " is not ready" + notReadyDetail(pod);
      case READY -> null;
    };
  }

  private static String notReadyDetail(Pod pod) {
    return pod.getStatus().getConditions().stream()
        .filter(c -> "Ready".equals(c.getType()) && c.getMessage() != null && !c.getMessage().isBlank())
        .map(PodCondition::getMessage)
        .findFirst().map(m -> ": " + m).orElse("");
  }

  private static String agentSays(Condition c) {
    String reason = c.getReason() == null ? "" : c.getReason();
    String msg = c.getMessage() == null || c.getMessage().isBlank() ? "" : ": " + c.getMessage();
    return "agent reports " + c.getType() + "=" + c.getStatus() + " " + reason + msg;
  }

  private static Optional<Condition> condition(NodeTuningStatus status, String type) {
    return status.conditions() == null ? Optional.empty()
        : status.conditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  private static String nic(NodeCapabilities caps, List<String> interfaces) {
    if (caps == null || caps.nics() == null || caps.nics().isEmpty()) {
      return null;
    }
    NodeCapabilities.Nic nic = caps.nics().stream()
        .filter(n -> interfaces == null || interfaces.isEmpty() || interfaces.contains(n.name()))
        .findFirst().orElse(caps.nics().getFirst());
    return nic.driver() == null ? nic.name() : nic.name() + " (" + nic.driver() + ")";
  }
}
