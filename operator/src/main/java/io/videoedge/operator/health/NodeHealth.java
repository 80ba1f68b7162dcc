package io.videoedge.operator.health;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.videoedge.api.Conditions;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.SettingState;
import io.videoedge.api.VideoEdgeApi;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where one node stands, read from its NodeTuning (what its agent reports) and its edge-server pod
 * (what its kubelet reports). Pure; used by the rollout, the readiness gates and the status alike, so
 * they cannot disagree on what "tuned" or "serving" means.
 *
 * <p>A node is tuned when its agent has seen the NodeTuning's latest spec
 * ({@code status.observedGeneration == metadata.generation}) and reports {@code Applied=True}: tuned as
 * its NodeTuning asks, whatever VideoEdge generation that tuning came from. In Plan mode the agent
 * reports {@code Applied=False/PlanOnly} instead: "planned".
 */
public final class NodeHealth {
    public enum Tuning {
        APPLIED("Applied"),
        PLANNED("Planned"),
        PENDING("Pending"),
        DEGRADED("Degraded"),
        FAILED("Failed"),
        CONFLICT("Conflict");

        public final String label;

        Tuning(String label) {
            this.label = label;
        }

        /** Applied (Degraded is applied too, with something the agent reports). */
        public boolean tuned() {
            return this == APPLIED || this == DEGRADED;
        }
    }

    public enum Server {
        READY("Ready"),
        NOT_READY("NotReady"),
        PENDING("Pending"),
        MISSING("Missing");

        public final String label;

        Server(String label) {
            this.label = label;
        }
    }

    /** @param message why, when not plainly Applied (null then) */
    public record TuningVerdict(Tuning state, String message) {}

    private NodeHealth() {}

    public static TuningVerdict tuning(NodeTuning nt) {
        if (nt == null) {
            return new TuningVerdict(Tuning.PENDING, "NodeTuning not created yet");
        }
        NodeTuningStatus status = nt.getStatus();
        Long observed = status == null ? null : status.observedGeneration();
        if (observed == null || !observed.equals(nt.getMetadata().getGeneration())) {
            return new TuningVerdict(Tuning.PENDING, "waiting for the node agent to apply the NodeTuning");
        }
        Optional<Condition> applied = condition(status, Conditions.APPLIED);
        Optional<Condition> degraded =
                condition(status, Conditions.DEGRADED).filter(c -> Conditions.TRUE.equals(c.getStatus()));
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
            case Conditions.APPLY_FAILED,
                    Conditions.ROLLED_BACK,
                    Conditions.UNSUPPORTED_SETTINGS,
                    Conditions.INVALID_SPEC -> new TuningVerdict(Tuning.FAILED, agentSays(a));
            default -> new TuningVerdict(Tuning.PENDING, agentSays(a));
        };
    }

    public static Server server(Pod pod) {
        if (pod == null) {
            return Server.MISSING;
        }
        if (pod.getSpec() == null
                || pod.getSpec().getNodeName() == null
                || pod.getStatus() == null
                || "Pending".equals(pod.getStatus().getPhase())
                || pod.getStatus().getPhase() == null) {
            return Server.PENDING;
        }
        return ready(pod).isPresent() ? Server.READY : Server.NOT_READY;
    }

    /** Since when the pod is Ready (the Ready condition's lastTransitionTime), if it is. */
    public static Optional<Instant> readySince(Pod pod) {
        return ready(pod)
                .map(c -> c.getLastTransitionTime() == null ? Instant.EPOCH : Instant.parse(c.getLastTransitionTime()));
    }

    /**
     * Since when the pod is out of service: the Ready condition's lastTransitionTime while it is not Ready
     * (the epoch when it never reported one: it never served); empty while it is Ready, and for no pod.
     */
    public static Optional<Instant> notReadySince(Pod pod) {
        if (pod == null || ready(pod).isPresent()) {
            return Optional.empty();
        }
        return Optional.of(readyCondition(pod)
                .map(PodCondition::getLastTransitionTime)
                .map(Instant::parse)
                .orElse(Instant.EPOCH));
    }

    /**
     * Its readiness gate is closed (the operator took it out of service, or its node is not tuned as asked): the
     * kubelet takes it out of the Service within about a second, whatever its Ready condition says until then.
     */
    public static boolean gateClosed(Pod pod) {
        return pod != null
                && pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> VideoEdgeApi.READINESS_GATE_NODE_TUNED.equals(c.getType())
                                && !Conditions.TRUE.equals(c.getStatus()));
    }

    private static Optional<PodCondition> ready(Pod pod) {
        return readyCondition(pod).filter(c -> Conditions.TRUE.equals(c.getStatus()));
    }

    /** The pod's Ready condition, True or not. */
    private static Optional<PodCondition> readyCondition(Pod pod) {
        return pod == null || pod.getStatus() == null || pod.getStatus().getConditions() == null
                ? Optional.empty()
                : pod.getStatus().getConditions().stream()
                        .filter(c -> "Ready".equals(c.getType()))
                        .findFirst();
    }

    /** @param untoleratedTaint a taint of the node that keeps a server pod off it, null for none */
    public static String serverMessage(Server server, Pod pod, String untoleratedTaint) {
        return switch (server) {
            case MISSING ->
                untoleratedTaint == null
                        ? "no edge-server pod on this node yet"
                        : "no edge-server pod on this node: the DaemonSet places none, as spec.tolerations does not "
                                + "tolerate its taint " + untoleratedTaint;
            case PENDING -> "pod " + pod.getMetadata().getName() + " is pending";
            case NOT_READY -> "pod " + pod.getMetadata().getName() + " is not ready" + notReadyDetail(pod);
            case READY -> null;
        };
    }

    /** Names of the settings the agent reports in one of these states for the NodeTuning's latest spec. */
    public static List<String> settingsIn(NodeTuning nt, SettingState... states) {
        if (nt == null || nt.getStatus() == null || nt.getStatus().settings() == null) {
            return List.of();
        }
        List<SettingState> wanted = List.of(states);
        return nt.getStatus().settings().stream()
                .filter(s -> s.name() != null && wanted.contains(s.state()))
                .map(NodeTuningStatus.Setting::name)
                .toList();
    }

    private static String notReadyDetail(Pod pod) {
        return pod.getStatus().getConditions().stream()
                .filter(c -> "Ready".equals(c.getType())
                        && c.getMessage() != null
                        && !c.getMessage().isBlank())
                .map(PodCondition::getMessage)
                .findFirst()
                .map(m -> ": " + m)
                .orElse("");
    }

    private static String agentSays(Condition c) {
        String reason = c.getReason() == null ? "" : c.getReason();
        String msg = c.getMessage() == null || c.getMessage().isBlank() ? "" : ": " + c.getMessage();
        return "agent reports " + c.getType() + "=" + c.getStatus() + " " + reason + msg;
    }

    private static Optional<Condition> condition(NodeTuningStatus status, String type) {
        return status.conditions() == null
                ? Optional.empty()
                : status.conditions().stream()
                        .filter(c -> type.equals(c.getType()))
                        .findFirst();
    }
}
