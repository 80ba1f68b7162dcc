package io.videoedge.operator.placement;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Whether the DaemonSet controller can place an edge-server pod on a node: a taint with effect NoSchedule or
 * NoExecute keeps it off unless one of the pod's tolerations matches (Kubernetes' own rule), the VideoEdge's
 * {@code spec.tolerations} or one the controller adds to every DaemonSet pod (a node not ready, unreachable,
 * under disk, memory or PID pressure, cordoned, or, for a host-network pod, with its network not set up). Pure.
 */
public final class Taints {
    /** The tolerations the DaemonSet controller adds to each of its pods (a host-network one). */
    static final List<Toleration> DAEMON_SET = Stream.of(
                    "not-ready:NoExecute",
                    "unreachable:NoExecute",
                    "disk-pressure:NoSchedule",
                    "memory-pressure:NoSchedule",
                    "pid-pressure:NoSchedule",
                    "unschedulable:NoSchedule",
                    "network-unavailable:NoSchedule")
            .map(s -> new TolerationBuilder()
                    .withKey("node.kubernetes.io/" + s.substring(0, s.indexOf(':')))
                    .withOperator("Exists")
                    .withEffect(s.substring(s.indexOf(':') + 1))
                    .build())
            .toList();

    private Taints() {}

    /**
     * The first of the node's taints that keeps the pod off, as {@code key=value:Effect} (or {@code key:Effect}).
     *
     * @param tolerations the pod's own (the VideoEdge's spec.tolerations), null for none
     */
    public static Optional<String> untolerated(Node node, List<io.videoedge.api.Toleration> tolerations) {
        List<Toleration> pods = Stream.concat(
                        tolerations == null
                                ? Stream.empty()
                                : tolerations.stream().map(io.videoedge.api.Toleration::toPod),
                        DAEMON_SET.stream())
                .toList();
        List<Taint> taints = node.getSpec() == null ? null : node.getSpec().getTaints();
        return taints == null
                ? Optional.empty()
                : taints.stream()
                        .filter(t -> "NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect()))
                        .filter(t -> pods.stream().noneMatch(tol -> tolerates(tol, t)))
                        .map(Taints::describe)
                        .findFirst();
    }

    /** Kubernetes' rule: effect (empty: all), key (empty with Exists: all), then Exists, or Equal values. */
    static boolean tolerates(Toleration toleration, Taint taint) {
        if (!isEmpty(toleration.getEffect()) && !toleration.getEffect().equals(taint.getEffect())) {
            return false;
        }
        if (!isEmpty(toleration.getKey()) && !toleration.getKey().equals(taint.getKey())) {
            return false;
        }
        return "Exists".equals(toleration.getOperator())
                || Objects.equals(Objects.toString(toleration.getValue(), ""), Objects.toString(taint.getValue(), ""));
    }

    private static String describe(Taint t) {
        return t.getKey() + (isEmpty(t.getValue()) ? "" : "=" + t.getValue()) + ":" + t.getEffect();
    }

    private static boolean isEmpty(String s) {
        return s == null || s.isEmpty();
    }
}
