package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;
import java.util.Map;

/**
 * Kernel tuning of a node. Shared by VideoEdge (what the user asks) and NodeTuning (what one
 * node's agent applies), so the admission rules below guard both.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.sysctls) || self.sysctls.all(k, " + TuningSpec.ALLOWED_PREFIX + ")",
        fieldPath = ".sysctls",
        messageExpression =
                "'sysctl names must start with net.core., net.ipv4., net.ipv6., vm. or kernel.sched_; not allowed: ' + "
                        + "self.sysctls.filter(k, !(" + TuningSpec.ALLOWED_PREFIX + "))[0]")
@ValidationRule(
        value =
                "!has(self.sysctls) || self.sysctls.all(k, !k.contains('..') && !k.contains('/') && k.matches('^[a-z0-9_.-]+$'))",
        fieldPath = ".sysctls",
        message = "sysctl names are dotted lower-case names (net.ipv4.tcp_mem) without '..' or '/'")
@ValidationRule(
        value = "!has(self.sysctls) || " + TuningSpec.TRIPLET_FORMAT,
        fieldPath = ".sysctls",
        message =
                "net.ipv4.tcp_mem, tcp_rmem, tcp_wmem and udp_mem take three integers separated by spaces: min pressure max, "
                        + "e.g. \"15000000 15000000 15000000\"")
@ValidationRule(
        value = "!has(self.sysctls) || " + TuningSpec.TRIPLET_ORDER,
        fieldPath = ".sysctls",
        message =
                "net.ipv4.tcp_mem, tcp_rmem, tcp_wmem and udp_mem must be non-decreasing (min <= pressure/default <= max)")
@ValidationRule(
        value = "!has(self.sysctls) || " + TuningSpec.TRIPLET_INTS,
        fieldPath = ".sysctls",
        message = "net.ipv4.tcp_rmem and tcp_wmem are three ints: each at most 2147483647 bytes")
@ValidationRule(
        value = "!has(self.sysctls) || !('net.ipv4.tcp_congestion_control' in self.sysctls)",
        fieldPath = ".sysctls",
        message = "set the congestion control with tuning.congestionControl, not in sysctls (the field would win)")
@ValidationRule(
        value = "!has(self.sysctls) || self.sysctls.all(k, self.sysctls[k].matches('[!-~]'))",
        fieldPath = ".sysctls",
        messageExpression =
                "'sysctl values must not be blank: ' + self.sysctls.filter(k, !self.sysctls[k].matches('[!-~]'))[0]")
@ValidationRule(
        value = "!has(self.sysctls) || self.sysctls.all(k, self.sysctls[k].matches('^[ -~]{1,256}$'))",
        fieldPath = ".sysctls",
        messageExpression = "'sysctl values are one line of printable ASCII characters (1 to 256): not ' + "
                + "self.sysctls.filter(k, !self.sysctls[k].matches('^[ -~]{1,256}$'))[0]")
@ValidationRule(
        value = "!has(self.sysctls) || self.sysctls.all(k, !(k in " + TuningSpec.INTEGER_SYSCTLS + ") "
                + "|| self.sysctls[k].matches(" + TuningSpec.ONE_INTEGER + "))",
        fieldPath = ".sysctls",
        messageExpression = "'this sysctl takes one integer: ' + self.sysctls.filter(k, k in "
                + TuningSpec.INTEGER_SYSCTLS + " && !self.sysctls[k].matches(" + TuningSpec.ONE_INTEGER + "))[0]")
@ValidationRule(
        value = "!has(self.sysctls) || " + TuningSpec.INTEGER_SYSCTLS + ".all(k, " + TuningSpec.IN_RANGE + ")",
        fieldPath = ".sysctls",
        messageExpression = "'sysctl value out of range: ' + " + TuningSpec.INTEGER_RANGES_TEXT + "["
                + TuningSpec.INTEGER_SYSCTLS + ".filter(k, !(" + TuningSpec.IN_RANGE + "))[0]]")
@ValidationRule(
        value = "!has(self.kernelModules) || self.kernelModules.all(m, m.matches('^[a-z0-9_-]{1,56}$'))",
        fieldPath = ".kernelModules",
        message = "kernel module names are lower-case letters, digits, '_' and '-' (as in lsmod), e.g. tls")
public record TuningSpec(
        @JsonPropertyDescription(
                "Apply changes the node; Plan only computes and reports, per setting, what would change.")
        @Default("Apply")
        TuningMode mode,

        @JsonPropertyDescription(
                "TCP congestion control (net.ipv4.tcp_congestion_control). bbr keeps throughput on lossy "
                        + "long paths where loss-based cubic backs off.")
        @Default("bbr")
        @Pattern("^[a-z0-9_]{1,16}$")
        String congestionControl,

        @JsonPropertyDescription(
                "Sysctls to set, name to value. Names under net.core., net.ipv4., net.ipv6., vm. and kernel.sched_. "
                        + "The seed's values: net.ipv4.tcp_mem \"15000000 15000000 15000000\", net.ipv4.tcp_notsent_lowat 262144, "
                        + "vm.min_free_kbytes 1048576, vm.swappiness 0. Without net.core.wmem_max and net.core.rmem_max here the "
                        + "agent raises them to at least server.socket.sendBuf and recvBuf (never lowering a larger value); set "
                        + "here, they are set as given and must be at least those sizes. Known integer sysctls are admitted within "
                        + "the range the kernel takes, narrower where it takes values that mean nothing (negative backlogs): "
                        + "vm.swappiness 0 to 200, net.core.somaxconn up to 2147483647.")
        @Default("{}")
        @Size(max = 64)
        Map<String, @Size(max = 256) String> sysctls,

        @JsonPropertyDescription(
                "cpuset.sched_relax_domain_level of the edge server's cgroup (-1 = system default, 0 = no "
                        + "immediate balancing, 1 = hyper-thread siblings ... 5 = whole system). cgroup v1 only; reported as unsupported on v2.")
        @Min(-1)
        @Max(5)
        Integer cpusetRelaxDomainLevel,

        @JsonPropertyDescription("Interleave the edge server's memory over all NUMA nodes (numactl --interleave=all).")
        @Default("false")
        Boolean numaInterleave,

        @JsonPropertyDescription(
                "Kernel modules to load (modprobe), e.g. tls for kernel TLS. Added automatically for tls.mode ktls*.")
        @Default("[]")
        @Size(max = 16)
        List<@Size(max = 64) String> kernelModules) {

    /**
     * Sysctls known to take a single integer (the kernel refuses anything else with EINVAL), each with the range
     * admitted: the kernel's own where it checks one (read off Linux 6.18 by writing values in a network namespace
     * and, for the global ones, on the host: swappiness 0-200 since 5.8, the ratios 0-100, overcommit 0-2,
     * tcp_tw_reuse 0-2, the socket buffer caps at least the smallest buffer, 2304 received and 4608 sent on
     * x86-64, tcp_notsent_lowat an unsigned int, RFS's flow table 2^29), else the non-negative values of its C
     * type, an int. Some kernels take more than admitted, values that mean nothing: negative backlogs and counts,
     * tcp_mtu_probing and tcp_slow_start_after_idle up to 255 (documented as 0-2 and a boolean). tcp_fin_timeout is
     * seconds counted in jiffies, so its bound is what every kernel's HZ (at most 1000) takes. With CRD validation
     * ratcheting (Kubernetes 1.30 and later) a VideoEdge stored before with such a value keeps it through edits of
     * other fields than its tuning.
     */
    static final String INTEGER_SYSCTLS = "{'net.ipv4.tcp_notsent_lowat': [0, 4294967295], "
            + "'net.core.somaxconn': [0, 2147483647], 'net.core.netdev_max_backlog': [0, 2147483647], "
            + "'net.core.netdev_budget': [0, 2147483647], 'net.core.rps_sock_flow_entries': [0, 536870912], "
            + "'net.core.rmem_max': [2304, 2147483647], 'net.core.wmem_max': [4608, 2147483647], "
            + "'net.core.rmem_default': [2304, 2147483647], 'net.core.wmem_default': [4608, 2147483647], "
            + "'net.core.optmem_max': [0, 2147483647], 'net.ipv4.tcp_max_syn_backlog': [0, 2147483647], "
            + "'net.ipv4.tcp_fin_timeout': [0, 2147483], 'net.ipv4.tcp_slow_start_after_idle': [0, 1], "
            + "'net.ipv4.tcp_tw_reuse': [0, 2], 'net.ipv4.tcp_mtu_probing': [0, 2], "
            + "'net.ipv4.tcp_fastopen': [0, 2147483647], 'net.ipv4.tcp_max_tw_buckets': [0, 2147483647], "
            + "'vm.swappiness': [0, 200], 'vm.min_free_kbytes': [0, 2147483647], 'vm.dirty_ratio': [0, 100], "
            + "'vm.dirty_background_ratio': [0, 100], 'vm.vfs_cache_pressure': [0, 2147483647], "
            + "'vm.overcommit_memory': [0, 2]}";

    /** The message for each of {@link #INTEGER_SYSCTLS}' ranges (ModelTest holds the two together). */
    static final String INTEGER_RANGES_TEXT =
            "{'net.ipv4.tcp_notsent_lowat': 'net.ipv4.tcp_notsent_lowat is 0 to 4294967295', "
                    + "'net.core.somaxconn': 'net.core.somaxconn is 0 to 2147483647', "
                    + "'net.core.netdev_max_backlog': 'net.core.netdev_max_backlog is 0 to 2147483647', "
                    + "'net.core.netdev_budget': 'net.core.netdev_budget is 0 to 2147483647', "
                    + "'net.core.rps_sock_flow_entries': 'net.core.rps_sock_flow_entries is 0 to 536870912', "
                    + "'net.core.rmem_max': 'net.core.rmem_max is 2304 to 2147483647', "
                    + "'net.core.wmem_max': 'net.core.wmem_max is 4608 to 2147483647', "
                    + "'net.core.rmem_default': 'net.core.rmem_default is 2304 to 2147483647', "
                    + "'net.core.wmem_default': 'net.core.wmem_default is 4608 to 2147483647', "
                    + "'net.core.optmem_max': 'net.core.optmem_max is 0 to 2147483647', "
                    + "'net.ipv4.tcp_max_syn_backlog': 'net.ipv4.tcp_max_syn_backlog is 0 to 2147483647', "
                    + "'net.ipv4.tcp_fin_timeout': 'net.ipv4.tcp_fin_timeout is 0 to 2147483', "
                    + "'net.ipv4.tcp_slow_start_after_idle': 'net.ipv4.tcp_slow_start_after_idle is 0 to 1', "
                    + "'net.ipv4.tcp_tw_reuse': 'net.ipv4.tcp_tw_reuse is 0 to 2', "
                    + "'net.ipv4.tcp_mtu_probing': 'net.ipv4.tcp_mtu_probing is 0 to 2', "
                    + "'net.ipv4.tcp_fastopen': 'net.ipv4.tcp_fastopen is 0 to 2147483647', "
                    + "'net.ipv4.tcp_max_tw_buckets': 'net.ipv4.tcp_max_tw_buckets is 0 to 2147483647', "
                    + "'vm.swappiness': 'vm.swappiness is 0 to 200', "
                    + "'vm.min_free_kbytes': 'vm.min_free_kbytes is 0 to 2147483647', "
                    + "'vm.dirty_ratio': 'vm.dirty_ratio is 0 to 100', "
                    + "'vm.dirty_background_ratio': 'vm.dirty_background_ratio is 0 to 100', "
                    + "'vm.vfs_cache_pressure': 'vm.vfs_cache_pressure is 0 to 2147483647', "
                    + "'vm.overcommit_memory': 'vm.overcommit_memory is 0 to 2'}";

    /**
     * Integer sysctl {@code k} (a key of {@link #INTEGER_SYSCTLS}: iterating over those, not over the spec's, keeps
     * the rule's cost within the API server's budget) is not set, is not an integer (another rule says so), or is in
     * its range.
     */
    static final String IN_RANGE = "!(k in self.sysctls) || !self.sysctls[k].matches(" + TuningSpec.ONE_INTEGER + ")"
            + " || (int(self.sysctls[k].trim()) >= " + INTEGER_SYSCTLS + "[k][0] && int(self.sysctls[k].trim()) <= "
            + INTEGER_SYSCTLS + "[k][1])";

    /** A CEL string literal: the regular expression of one integer value, blanks around it allowed. */
    static final String ONE_INTEGER = "'^ *-?[0-9]{1,18} *$'";

    /** A CEL string literal: the regular expression of a triplet's value, three integers separated by blanks. */
    static final String THREE_INTEGERS = "'^\\\\s*[0-9]{1,18}\\\\s+[0-9]{1,18}\\\\s+[0-9]{1,18}\\\\s*$'";

    static final String ALLOWED_PREFIX =
            "k.startsWith('net.core.') || k.startsWith('net.ipv4.') || k.startsWith('net.ipv6.')"
                    + " || k.startsWith('vm.') || k.startsWith('kernel.sched_')";

    /** The triplet sysctls: three integers. */
    static final String TRIPLET_FORMAT =
            "['net.ipv4.tcp_mem', 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem', 'net.ipv4.udp_mem'].all(t, !(t in self.sysctls)"
                    + " || self.sysctls[t].matches(" + TuningSpec.THREE_INTEGERS + "))";

    /** ... each an int for the per-socket ones (tcp_mem and udp_mem count pages in longs). */
    static final String TRIPLET_INTS = "['net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'].all(t, !(t in self.sysctls)"
            + " || !self.sysctls[t].matches(" + TuningSpec.THREE_INTEGERS + ")"
            + " || self.sysctls[t].findAll('[0-9]+').all(n, int(n) <= 2147483647))";

    /** ... in non-decreasing order (checked only once the format holds). */
    static final String TRIPLET_ORDER =
            "['net.ipv4.tcp_mem', 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem', 'net.ipv4.udp_mem'].all(t, !(t in self.sysctls)"
                    + " || !self.sysctls[t].matches(" + TuningSpec.THREE_INTEGERS + ")"
                    + " || (int(self.sysctls[t].findAll('[0-9]+')[0]) <= int(self.sysctls[t].findAll('[0-9]+')[1])"
                    + " && int(self.sysctls[t].findAll('[0-9]+')[1]) <= int(self.sysctls[t].findAll('[0-9]+')[2])))";
}
