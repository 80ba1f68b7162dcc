package io.videoedge.agent.plan;

import io.videoedge.agent.facts.CpuSet;
import io.videoedge.agent.facts.NicFacts;
import io.videoedge.agent.facts.NodeFacts;
import io.videoedge.api.IrqAffinity;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** The edge server's pod as the pod-scoped settings see it: whether it is known yet, and the CPUs a policy steers to. */
final class PodCpus {
    private PodCpus() {}

    /** Why pod-specific settings cannot be decided yet, if they cannot. */
    static Optional<String> pending(Desired d, NodeFacts f) {
        if (d.podUid() == null) {
            return Optional.of("waiting for the edge-server pod on this node (spec.server.podUid is empty)");
        }
        if (f.pod().isEmpty() || !f.pod().get().found()) {
            return Optional.of("cgroup of pod " + d.podUid() + " not found under /sys/fs/cgroup yet");
        }
        if (f.pod().get().cpus().isEmpty()) {
            return Optional.of("pod " + d.podUid() + " has no cpuset yet");
        }
        return Optional.empty();
    }

    /** The IRQ policy depends on the pod's CPUs (server-cores, housekeeping). */
    static boolean podPolicy(Desired d) {
        return d.irqAffinity() == IrqAffinity.SERVER_CORES || d.irqAffinity() == IrqAffinity.HOUSEKEEPING;
    }

    /** CPUs the policy steers a NIC's work to, its NUMA node's first; or why there are none. */
    static Target target(Desired d, NodeFacts f, NicFacts nic) {
        CpuSet online = f.onlineCpus();
        CpuSet set = switch (d.irqAffinity()) {
            case SPREAD, NONE -> online;
            case SERVER_CORES, HOUSEKEEPING -> {
                Optional<String> pending = pending(d, f);
                if (pending.isPresent()) {
                    yield null;
                }
                CpuSet server = f.pod().orElseThrow().cpus().and(online);
                yield d.irqAffinity() == IrqAffinity.SERVER_CORES ? server : online.minus(server);
            }
        };
        if (set == null) {
            return new Target(null, List.of(), pending(d, f).orElseThrow(), true);
        }
        if (set.isEmpty()) {
            return new Target(
                    null,
                    List.of(),
                    d.irqAffinity() == IrqAffinity.HOUSEKEEPING
                            ? "the edge server owns every online CPU: no housekeeping CPUs left"
                            : "the edge server has no online CPUs",
                    false);
        }
        int home = nic.numaNode();
        List<Integer> order = set.toSortedList().stream()
                .sorted(Comparator.comparingInt((Integer c) -> home >= 0 && f.nodeOf(c) == home ? 0 : 1)
                        .thenComparingInt(Integer::intValue))
                .toList();
        return new Target(set, order, null, false);
    }

    /** The CPUs a policy steers to, in assignment order; or why there are none (pending: waiting for the pod). */
    record Target(CpuSet cpus, List<Integer> order, String why, boolean pending) {}
}
