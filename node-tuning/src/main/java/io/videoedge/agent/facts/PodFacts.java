package io.videoedge.agent.facts;

/**
 * The edge server pod's cgroup on this node.
 *
 * @param uid the pod UID from the spec
 * @param cpusetDir root-relative cpuset cgroup directory of the pod, null when not found (yet)
 * @param cpus the server's CPUs: the cpuset of its container with the fewest CPUs (the app
 *     container under the static CPU manager; the pause container keeps the shared pool)
 * @param relaxDomainLevel current cpuset.sched_relax_domain_level (v1), null when absent
 * @param memorySpreadPage current cpuset.memory_spread_page (v1), null when absent
 */
public record PodFacts(String uid, String cpusetDir, CpuSet cpus, String relaxDomainLevel, String memorySpreadPage) {
    public boolean found() {
        return cpusetDir != null;
    }
}
