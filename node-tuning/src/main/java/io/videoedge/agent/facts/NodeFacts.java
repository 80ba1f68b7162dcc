package io.videoedge.agent.facts;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the probe found on the node: hardware, capabilities and the current value of every
 * setting the spec touches. Plain data: the planner decides from it without any I/O.
 *
 * @param sysctls current value per sysctl name asked for; a name is absent when its file is
 *     (unknown sysctl, or one not visible in this network namespace)
 * @param loadableModules modules that have a file under /lib/modules/KERNEL (or are built in)
 * @param cgroupVersion "v1" or "v2"
 * @param possibleCpus nr_cpu_ids: the width of the kernel's CPU bitmaps
 * @param numaNodes CPUs of each NUMA node (one entry when the machine is not NUMA)
 * @param defaultRouteInterface the interface of the IPv4 default route, when there is one
 * @param sysfsReadOnly /sys/class/net is on a read-only mount (kind's node image does this): RPS
 *     and RFS values can be read there but not written
 * @param pod the edge server pod's cgroup, when the spec names a pod
 * @param readOnlySysctls the sysctls asked for whose file is there but cannot be written (mode 0444 or a
 *     read-only /proc/sys): net.core.wmem_max and rmem_max outside the initial network namespace on newer
 *     kernels
 * @param bootId the kernel's id of this boot (/proc/sys/kernel/random/boot_id), null when absent
 */
public record NodeFacts(
        String kernel,
        List<String> congestionControls,
        Set<String> loadableModules,
        Set<String> loadedModules,
        boolean tlsUlp,
        String cgroupVersion,
        int possibleCpus,
        CpuSet onlineCpus,
        Map<Integer, CpuSet> numaNodes,
        String defaultRouteInterface,
        Map<String, NicFacts> nics,
        boolean sysfsReadOnly,
        Map<String, String> sysctls,
        boolean ethtoolAvailable,
        boolean modprobeAvailable,
        Optional<PodFacts> pod,
        Set<String> readOnlySysctls,
        CpuSet isolatedCpus,
        String bootId) {

    /** Kernel TLS capability as the operator reads it: available, loadable or unavailable. */
    public String ktls() {
        if (tlsUlp) {
            return "available";
        }
        return loadableModules.contains("tls") ? "loadable" : "unavailable";
    }

    /** A congestion control the kernel offers now, or can load (tcp_NAME module present). */
    public boolean congestionControlUsable(String name) {
        return congestionControls.contains(name) || loadableModules.contains("tcp_" + name);
    }

    /** The NUMA node of a CPU, 0 when unknown. */
    public int nodeOf(int cpu) {
        return numaNodes.entrySet().stream()
                .filter(e -> e.getValue().contains(cpu))
                .map(Map.Entry::getKey)
                .findFirst()
                .orElse(0);
    }
}
