package io.videoedge.agent.plan;

import io.videoedge.agent.facts.NodeFacts;
import io.videoedge.agent.facts.PodFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** The cpuset files of the edge server pod's cgroup (cgroup v1): sched_relax_domain_level, memory_spread_page. */
final class CpusetArea implements TuningArea {

    @Override
    public List<Setting> plan(Stage stage, Desired d, NodeFacts f) {
        if (stage != Stage.CPUSETS) {
            return List.of();
        }
        List<Setting> out = new ArrayList<>();
        if (d.cpusetRelaxDomainLevel() != null) {
            out.add(podFile(
                    d,
                    f,
                    "cpuset/sched_relax_domain_level",
                    "cpuset.sched_relax_domain_level",
                    Integer.toString(d.cpusetRelaxDomainLevel()),
                    PodFacts::relaxDomainLevel));
        }
        if (d.numaInterleave()) {
            // the agent's part of interleave: the pod's page cache and slab spread over its memory nodes
            // (disk-cache hits are sent from page cache); the process's own memory is interleaved by the
            // server's launch command (numactl --interleave=all)
            out.add(podFile(
                    d, f, "cpuset/memory_spread_page", "cpuset.memory_spread_page", "1", PodFacts::memorySpreadPage));
        }
        return out;
    }

    private static Setting podFile(
            Desired d, NodeFacts f, String name, String file, String value, Function<PodFacts, String> current) {
        if (f.cgroupVersion().equals("v2")) {
            return Setting.unsupported(name, value, null, "cgroup v2 has no " + file + " (cgroup v1 only)")
                    .onPod();
        }
        Optional<String> pending = PodCpus.pending(d, f);
        if (pending.isPresent()) {
            return Setting.pending(name, value, pending.get());
        }
        PodFacts pod = f.pod().orElseThrow();
        String cur = current.apply(pod);
        if (cur == null) {
            return Setting.unsupported(name, value, null, "no " + file + " in " + pod.cpusetDir())
                    .onPod();
        }
        return Setting.file(name, SettingKind.CPUSET, pod.cpusetDir() + "/" + file, value, cur)
                .onPod();
    }
}
