package io.videoedge.operator.purge;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.util.List;

/**
 * Whether an edge-server pod's status says its server came (back) up: one of its signals turned true
 * that was not before. The signals, earliest first: a container {@code started} (the startup probe on
 * {@code /healthz} passed; the admin listener is bound before that can happen), {@code ContainersReady},
 * {@code Ready}. Each is compared with itself, not their disjunction, because a signal can be stale:
 * when a node goes down the node controller sets only {@code Ready} False, so the containers' last
 * statuses still say started; when the node is back its kubelet reports the restarted container
 * (started false, then true) and {@code Ready} goes True again. Pure.
 */
final class PodServing {
    private PodServing() {}

    /** A new pod that already says its server is up. */
    static boolean up(Pod pod) {
        return started(pod) || condition(pod, "ContainersReady") || condition(pod, "Ready");
    }

    /** An update in which the server came (back) up. */
    static boolean cameUp(Pod now, Pod before) {
        return (started(now) && !started(before))
                || (condition(now, "ContainersReady") && !condition(before, "ContainersReady"))
                || (condition(now, "Ready") && !condition(before, "Ready"));
    }

    private static boolean started(Pod pod) {
        PodStatus s = pod.getStatus();
        List<ContainerStatus> containers = s == null ? null : s.getContainerStatuses();
        return containers != null && containers.stream().anyMatch(c -> Boolean.TRUE.equals(c.getStarted()));
    }

    private static boolean condition(Pod pod, String type) {
        PodStatus s = pod.getStatus();
        return s != null
                && s.getConditions() != null
                && s.getConditions().stream().anyMatch(c -> type.equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
