package io.videoedge.agent.testing;

import io.videoedge.agent.facts.CpuSet;
import io.videoedge.agent.facts.NicFacts;
import io.videoedge.agent.facts.NodeFacts;
import io.videoedge.agent.facts.PodFacts;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/** Builds NodeFacts in memory for planner table cases (no files, no commands). */
public final class Facts {
    /** tls-hw-tx-offload as most NICs show it: off [fixed]. */
    public static final NicFacts.Feature FIXED_OFF = new NicFacts.Feature(false, true, false);

    private int cpus = 8;
    private Map<Integer, CpuSet> nodes = new TreeMap<>();
    private final Map<String, NicFacts> nics = new LinkedHashMap<>();
    private final Map<String, String> sysctls = new TreeMap<>(Map.of(
            "net.ipv4.tcp_congestion_control", "cubic",
            "net.ipv4.tcp_mem", "287901\t383869\t575802",
            "net.ipv4.tcp_notsent_lowat", "4294967295",
            "net.core.rps_sock_flow_entries", "0",
            "vm.min_free_kbytes", "67584",
            "vm.swappiness", "60"));
    private List<String> ccs = List.of("reno", "cubic");
    private final Set<String> loadable = new HashSet<>(Set.of("tcp_bbr"));
    private final Set<String> loaded = new HashSet<>();
    private boolean tlsUlp;
    private String cgroup = "v1";
    private PodFacts pod;
    private String defaultRoute = "eth0";
    private boolean sysfsReadOnly;
    private boolean ethtool = true;
    private final Set<String> readOnlySysctls = new HashSet<>();
    private CpuSet isolated = CpuSet.empty();

    public static Facts cpus(int n) {
        Facts f = new Facts();
        f.cpus = n;
        return f;
    }

    public Facts numa(int nodeCount) {
        nodes = new TreeMap<>();
        int per = cpus / nodeCount;
        for (int k = 0; k < nodeCount; k++) {
            nodes.put(k, CpuSet.range(k * per, (k + 1) * per));
        }
        return this;
    }

    /** A NIC with queues combined channels (max maxQueues), one IRQ per queue from firstIrq, as found. */
    public Facts nic(String name, String driver, int queues, int maxQueues, int numaNode) {
        List<String> rx = new ArrayList<>();
        List<Integer> irqs = new ArrayList<>();
        Map<Integer, String> aff = new TreeMap<>();
        Map<String, String> rps = new LinkedHashMap<>();
        Map<String, String> flow = new LinkedHashMap<>();
        for (int q = 0; q < queues; q++) {
            rx.add("rx-" + q);
            irqs.add(100 + q);
            aff.put(100 + q, "0-" + (cpus - 1));
            rps.put("rx-" + q, "0");
            flow.put("rx-" + q, "0");
        }
        Map<String, String> coal = new LinkedHashMap<>(Map.of("adaptive-rx", "on", "rx-usecs", "8", "tx-usecs", "16"));
        nics.put(
                name,
                new NicFacts(
                        name,
                        driver,
                        numaNode,
                        rx,
                        queues,
                        irqs,
                        aff,
                        rps,
                        flow,
                        new NicFacts.Channels(maxQueues, queues, null, null, null, null),
                        coal,
                        FIXED_OFF,
                        Map.of()));
        return this;
    }

    /**
     * A virtio NIC as qemu gives it: queue pairs with two vectors each (input.N, output.N: IRQs 100, 101
     * for pair 0, ...), no coalescing (rx-usecs and tx-usecs absent: no VIRTIO_NET_F_NOTF_COAL).
     */
    public Facts virtio(String name, int pairs, int maxPairs, int numaNode) {
        List<String> rx = new ArrayList<>();
        List<Integer> irqs = new ArrayList<>();
        Map<Integer, Integer> queueOf = new TreeMap<>();
        Map<Integer, String> aff = new TreeMap<>();
        Map<String, String> rps = new LinkedHashMap<>();
        Map<String, String> flow = new LinkedHashMap<>();
        for (int q = 0; q < pairs; q++) {
            rx.add("rx-" + q);
            for (int irq : List.of(100 + 2 * q, 101 + 2 * q)) {
                irqs.add(irq);
                queueOf.put(irq, q);
                aff.put(irq, "0-" + (cpus - 1));
            }
            rps.put("rx-" + q, "0");
            flow.put("rx-" + q, "0");
        }
        nics.put(
                name,
                new NicFacts(
                        name,
                        "virtio_net",
                        numaNode,
                        rx,
                        pairs,
                        irqs,
                        aff,
                        rps,
                        flow,
                        new NicFacts.Channels(maxPairs, pairs, null, null, null, null),
                        new LinkedHashMap<>(),
                        FIXED_OFF,
                        queueOf));
        return this;
    }

    /** A veth: separate rx/tx channels, no IRQs, no coalescing. */
    public Facts veth(String name, int queues, int max) {
        List<String> rx = new ArrayList<>();
        Map<String, String> rps = new LinkedHashMap<>();
        Map<String, String> flow = new LinkedHashMap<>();
        for (int q = 0; q < queues; q++) {
            rx.add("rx-" + q);
            rps.put("rx-" + q, "0");
            flow.put("rx-" + q, "0");
        }
        nics.put(
                name,
                new NicFacts(
                        name,
                        "veth",
                        -1,
                        rx,
                        queues,
                        List.of(),
                        Map.of(),
                        rps,
                        flow,
                        new NicFacts.Channels(null, null, max, queues, max, queues),
                        null,
                        FIXED_OFF,
                        Map.of()));
        return this;
    }

    /** The NIC's ethtool -k tls-hw-tx-offload as found (null: not listed). */
    public Facts tlsTxOffload(String nicName, NicFacts.Feature feature) {
        NicFacts n = nics.get(nicName);
        nics.put(
                nicName,
                new NicFacts(
                        n.name(),
                        n.driver(),
                        n.numaNode(),
                        n.rxQueues(),
                        n.txQueues(),
                        n.queueIrqs(),
                        n.irqAffinity(),
                        n.rpsCpus(),
                        n.rpsFlowCnt(),
                        n.channels(),
                        n.coalescing(),
                        feature,
                        n.irqQueues()));
        return this;
    }

    /** No ethtool on the node. */
    public Facts noEthtool() {
        ethtool = false;
        return this;
    }

    public Facts pod(String uid, String cpuList) {
        pod = new PodFacts(uid, "sys/fs/cgroup/cpuset/kubepods/pod" + uid, CpuSet.parseList(cpuList), "-1", "0");
        return this;
    }

    public Facts podWithoutCgroup(String uid) {
        pod = new PodFacts(uid, null, CpuSet.empty(), null, null);
        return this;
    }

    public Facts cgroupV2() {
        cgroup = "v2";
        return this;
    }

    public Facts sysctl(String name, String value) {
        sysctls.put(name, value);
        return this;
    }

    /** A sysctl whose file is there and cannot be written (global ones outside the initial network namespace). */
    public Facts readOnlySysctl(String name, String value) {
        sysctls.put(name, value);
        readOnlySysctls.add(name);
        return this;
    }

    /** A sysctl whose file is not there. */
    public Facts noSysctl(String name) {
        sysctls.remove(name);
        return this;
    }

    public Facts congestionControls(String... names) {
        ccs = List.of(names);
        return this;
    }

    public Facts loadable(String module) {
        loadable.add(module);
        return this;
    }

    public Facts loaded(String module) {
        loaded.add(module);
        return this;
    }

    public Facts tlsUlp() {
        tlsUlp = true;
        return this;
    }

    public Facts noDefaultRoute() {
        defaultRoute = null;
        return this;
    }

    /** CPUs booted isolated (isolcpus=, nohz_full=). */
    public Facts isolated(String cpuList) {
        isolated = CpuSet.parseList(cpuList);
        return this;
    }

    /** /sys mounted read-only, as on a kind node. */
    public Facts sysfsReadOnly() {
        sysfsReadOnly = true;
        return this;
    }

    public NodeFacts build() {
        Map<Integer, CpuSet> n = nodes.isEmpty() ? Map.of(0, CpuSet.range(0, cpus)) : nodes;
        return new NodeFacts(
                "6.18.0-test",
                ccs,
                loadable,
                loaded,
                tlsUlp,
                cgroup,
                cpus,
                CpuSet.range(0, cpus),
                n,
                defaultRoute,
                nics,
                sysfsReadOnly,
                sysctls,
                ethtool,
                true,
                Optional.ofNullable(pod),
                readOnlySysctls,
                isolated,
                "test-boot");
    }
}
