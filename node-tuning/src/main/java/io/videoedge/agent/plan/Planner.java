package io.videoedge.agent.plan;

import io.videoedge.agent.probe.CpuSet;
import io.videoedge.agent.probe.NicFacts;
import io.videoedge.agent.probe.NodeFacts;
import io.videoedge.agent.probe.PodFacts;
import io.videoedge.agent.probe.ProbeRequest;
import io.videoedge.agent.probe.Prober;
import io.videoedge.api.IrqAffinity;
import io.videoedge.api.NicSpec;
import io.videoedge.api.NicType;
import io.videoedge.api.SettingState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** spec + facts -> settings. Pure: no I/O, same answer for the same input. */
public final class Planner {
    public static final String CONGESTION_CONTROL = "net.ipv4.tcp_congestion_control";
    public static final String RPS_SOCK_FLOW_ENTRIES = "net.core.rps_sock_flow_entries";

    private Planner() {}

    /** What the probe must read for this spec. */
    public static ProbeRequest request(Desired d) {
        return new ProbeRequest(d.interfaces(), sysctls(d).keySet(), d.podUid());
    }

    public static Plan plan(Desired d, NodeFacts f) {
        List<Setting> out = new ArrayList<>();
        modules(d, f, out);
        List<NicPlan> nics = nics(d, f, out);
        nics.forEach(n -> n.channels(out));
        nics.forEach(n -> n.tlsTxOffload(out));
        sysctlSettings(d, f, out);
        nics.forEach(n -> n.coalescing(out));
        nics.forEach(n -> n.irqs(out));
        nics.forEach(n -> n.rps(out));
        nics.forEach(n -> n.rfs(out));
        cpuset(d, f, out);
        return new Plan(List.copyOf(out));
    }

    /** Sysctls to set: congestion control, the spec's map, RFS's global table. */
    static Map<String, String> sysctls(Desired d) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(CONGESTION_CONTROL, d.congestionControl()); // the dedicated field wins over a duplicate in sysctls
        d.sysctls().forEach(m::putIfAbsent);
        if (d.rfsFlowEntries() != null) {
            m.putIfAbsent(RPS_SOCK_FLOW_ENTRIES, Integer.toString(pow2(d.rfsFlowEntries())));
        }
        return m;
    }

    private static void sysctlSettings(Desired d, NodeFacts f, List<Setting> out) {
        sysctls(d).forEach((name, value) -> {
            String setting = "sysctl/" + name;
            String current = f.sysctls().get(name);
            if (current == null) {
                out.add(Setting.finding(
                        setting,
                        SettingState.UNSUPPORTED,
                        value,
                        null,
                        false,
                        "no /proc/sys/" + name.replace('.', '/')
                                + " here (unknown sysctl, module not loaded, or global and "
                                + "not visible in this network namespace)"));
            } else if (name.equals(CONGESTION_CONTROL) && !f.congestionControlUsable(value)) {
                out.add(Setting.finding(
                        setting,
                        SettingState.UNSUPPORTED,
                        value,
                        current,
                        false,
                        "congestion control " + value + " is not available (kernel offers "
                                + String.join(" ", f.congestionControls()) + ") and no tcp_" + value
                                + " module is installed"));
            } else {
                out.add(Setting.of(
                        setting, SettingKind.SYSCTL, Prober.sysctlPath(name), null, value, current, false, null));
            }
        });
    }

    private static void modules(Desired d, NodeFacts f, List<Setting> out) {
        for (String m : new LinkedHashSet<>(d.kernelModules())) {
            String name = "module/" + m;
            boolean loaded = f.loadedModules().contains(m) || (m.equals("tls") && f.tlsUlp());
            if (loaded) {
                out.add(Setting.of(name, SettingKind.MODULE, m, null, "loaded", "loaded", false, null));
            } else if (!f.loadableModules().contains(m)) {
                out.add(Setting.finding(
                        name,
                        SettingState.UNSUPPORTED,
                        "loaded",
                        "absent",
                        false,
                        "module " + m + " is not built for kernel " + f.kernel() + " (nothing under /lib/modules/"
                                + f.kernel() + ")"
                                + (m.equals("tls")
                                        ? ": kernel TLS unavailable, the server falls back to userspace TLS (OpenSSL)"
                                        : "")));
            } else if (!f.modprobeAvailable()) {
                out.add(Setting.finding(
                        name, SettingState.UNSUPPORTED, "loaded", "absent", false, "modprobe not found"));
            } else {
                out.add(Setting.of(name, SettingKind.MODULE, m, null, "loaded", "absent", false, null));
            }
        }
    }

    private static void cpuset(Desired d, NodeFacts f, List<Setting> out) {
        if (d.cpusetRelaxDomainLevel() != null) {
            podFile(
                    d,
                    f,
                    out,
                    "cpuset/sched_relax_domain_level",
                    "cpuset.sched_relax_domain_level",
                    Integer.toString(d.cpusetRelaxDomainLevel()),
                    PodFacts::relaxDomainLevel);
        }
        if (d.numaInterleave()) {
            // the agent's part of interleave: the pod's page cache and slab spread over its memory nodes
            // (disk-cache hits are sent from page cache); the process's own memory is interleaved by the
            // server's launch command (numactl --interleave=all)
            podFile(
                    d,
                    f,
                    out,
                    "cpuset/memory_spread_page",
                    "cpuset.memory_spread_page",
                    "1",
                    PodFacts::memorySpreadPage);
        }
    }

    private static void podFile(
            Desired d,
            NodeFacts f,
            List<Setting> out,
            String name,
            String file,
            String value,
            java.util.function.Function<PodFacts, String> current) {
        if (f.cgroupVersion().equals("v2")) {
            out.add(Setting.finding(
                    name,
                    SettingState.UNSUPPORTED,
                    value,
                    null,
                    true,
                    "cgroup v2 has no " + file + " (cgroup v1 only)"));
            return;
        }
        Optional<String> pending = podPending(d, f);
        if (pending.isPresent()) {
            out.add(Setting.finding(name, SettingState.PENDING, value, null, true, pending.get()));
            return;
        }
        PodFacts pod = f.pod().orElseThrow();
        String cur = current.apply(pod);
        if (cur == null) {
            out.add(Setting.finding(
                    name, SettingState.UNSUPPORTED, value, null, true, "no " + file + " in " + pod.cpusetDir()));
            return;
        }
        out.add(Setting.of(name, SettingKind.CPUSET, pod.cpusetDir() + "/" + file, null, value, cur, true, null));
    }

    /** Why pod-specific settings cannot be decided yet, if they cannot. */
    private static Optional<String> podPending(Desired d, NodeFacts f) {
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

    private static List<NicPlan> nics(Desired d, NodeFacts f, List<Setting> out) {
        List<String> names = ProbeRequest.tunedInterfaces(d.interfaces(), f.defaultRouteInterface());
        if (names.isEmpty()) {
            out.add(Setting.finding(
                    "nic",
                    SettingState.UNSUPPORTED,
                    null,
                    null,
                    false,
                    "no interface named and no default route: set spec.nic.interfaces"));
        }
        List<NicPlan> plans = new ArrayList<>();
        for (String n : names) {
            NicFacts nic = f.nics().get(n);
            if (nic == null) {
                out.add(Setting.finding(
                        "nic/" + n,
                        SettingState.UNSUPPORTED,
                        null,
                        null,
                        false,
                        "no interface " + n + " on this node"));
            } else {
                plans.add(new NicPlan(d, f, nic));
            }
        }
        return plans;
    }

    /** Rounds up to a power of two, as the kernel does for flow tables (0 stays 0). */
    static int pow2(int n) {
        if (n <= 1) {
            return Math.max(n, 0) == 0 ? 0 : 1;
        }
        return Integer.highestOneBit(n - 1) << 1;
    }

    /** The settings of one interface. */
    private record NicPlan(Desired d, NodeFacts f, NicFacts nic) {

        NicType type() {
            return d.nicType() == NicType.AUTO ? NicType.ofDriver(nic.driver()) : d.nicType();
        }

        String prefix(String what) {
            return what + "/" + nic.name();
        }

        void channels(List<Setting> out) {
            NicDefaults def = NicDefaults.of(type());
            Integer asked = d.combinedQueues();
            if (asked == null && !def.setQueues()) {
                return;
            }
            String name = prefix("ethtool") + "/combined";
            if (!f.ethtoolAvailable()) {
                unsupportedIfAsked(out, asked, name, "ethtool not found");
                return;
            }
            NicFacts.Channels ch = nic.channels();
            if (ch == null || (!ch.hasCombined() && !ch.hasSeparate())) {
                unsupportedIfAsked(out, asked, name, nic.name() + " does not report channel counts (ethtool -l)");
                return;
            }
            int online = f.onlineCpus().size();
            if (ch.hasCombined()) {
                int want = asked != null
                        ? asked
                        : Math.min(online, def.queueCap() == null ? Integer.MAX_VALUE : def.queueCap());
                out.add(channel(name, "combined", want, ch.maxCombined(), ch.combined(), asked != null));
            } else {
                // devices with separate RX and TX channels (veth): the same count for both
                int want = asked != null ? asked : online;
                out.add(channel(prefix("ethtool") + "/rx", "rx", want, ch.maxRx(), ch.rx(), asked != null));
                out.add(channel(prefix("ethtool") + "/tx", "tx", want, ch.maxTx(), ch.tx(), asked != null));
            }
        }

        private Setting channel(String name, String param, int want, int max, Integer current, boolean asked) {
            int n = Math.min(want, max);
            String msg = n < want && asked ? "capped to the NIC's maximum of " + max : null;
            return Setting.of(
                    name,
                    SettingKind.ETHTOOL_CHANNELS,
                    nic.name(),
                    param,
                    Integer.toString(n),
                    current == null ? null : current.toString(),
                    false,
                    msg);
        }

        private static void unsupportedIfAsked(List<Setting> out, Object asked, String name, String why) {
            if (asked != null) {
                out.add(Setting.finding(name, SettingState.UNSUPPORTED, asked.toString(), null, false, why));
            }
        }

        /**
         * NIC TLS TX offload, when the spec asks for it (tls.mode ktls-offload): on where the NIC offers it; where
         * it cannot (no such feature, fixed off, or kept off by the kernel though asked on) a finding that says
         * so, and kernel TLS stays in software.
         */
        void tlsTxOffload(List<Setting> out) {
            if (!d.tlsTxOffload()) {
                return;
            }
            String feature = NicFacts.TLS_TX_OFFLOAD;
            String name = prefix("ethtool") + "/" + feature;
            String nicName = nic.name() + " (" + (nic.driver() == null ? "driver unknown" : nic.driver()) + ")";
            String software = ": the edge server uses kernel TLS in software";
            NicFacts.Feature t = nic.tlsTxOffload();
            String why = null;
            if (!f.ethtoolAvailable()) {
                why = "ethtool not found: cannot turn on TLS TX offload on " + nicName + software;
            } else if (t == null) {
                why = nicName + " has no TLS TX offload (ethtool -k shows no " + feature
                        + ": kernel or driver without it)" + software;
            } else if (!t.offered()) {
                why = nicName + " has no TLS TX offload (ethtool -k: " + feature + " " + t + ")" + software;
            } else if (t.refused()) {
                why = nicName + " keeps TLS TX offload off although it was asked on (ethtool -k: " + feature + " " + t
                        + "): the kernel drops it while TX checksum offload (tx-checksumming) is off, or the driver refuses it"
                        + software;
            }
            if (why != null) {
                out.add(Setting.finding(
                        name, SettingState.UNSUPPORTED, "on", t == null ? null : t.on() ? "on" : "off", false, why));
                return;
            }
            out.add(Setting.of(
                    name, SettingKind.ETHTOOL_FEATURE, nic.name(), feature, "on", t.on() ? "on" : "off", false, null));
        }

        void coalescing(List<Setting> out) {
            NicDefaults def = NicDefaults.of(type());
            NicSpec.Coalescing c = d.coalescing();
            Boolean adaptiveAsked = c == null ? null : c.adaptiveRx();
            Integer rxAsked = c == null ? null : c.rxUsecs();
            Integer txAsked = c == null ? null : c.txUsecs();
            // adaptive-rx first: with it on, several drivers ignore rx-usecs
            coalesce(
                    out,
                    "adaptive-rx",
                    adaptiveAsked == null ? null : onOff(adaptiveAsked),
                    def.adaptiveRx() == null ? null : onOff(def.adaptiveRx()));
            coalesce(out, "rx-usecs", str(rxAsked), str(def.rxUsecs()));
            coalesce(out, "tx-usecs", str(txAsked), str(def.txUsecs()));
        }

        private void coalesce(List<Setting> out, String param, String asked, String byDefault) {
            String want = asked != null ? asked : byDefault;
            if (want == null) {
                return;
            }
            String name = prefix("ethtool") + "/" + param;
            String current = nic.coalescing() == null ? null : nic.coalescing().get(param);
            if (!f.ethtoolAvailable() || current == null) {
                // a type default the NIC lacks is not worth a finding; a value the spec asks for is
                if (asked != null) {
                    out.add(Setting.finding(
                            name,
                            SettingState.UNSUPPORTED,
                            want,
                            null,
                            false,
                            !f.ethtoolAvailable()
                                    ? "ethtool not found"
                                    : nic.name() + " has no " + param + " ("
                                            + (nic.coalescing() == null
                                                    ? "ethtool -c: not supported"
                                                    : type() == NicType.VIRTIO
                                                            ? "virtio device without notification coalescing, VIRTIO_NET_F_NOTF_COAL"
                                                            : "ethtool -c: n/a")
                                            + ")"));
                }
                return;
            }
            out.add(Setting.of(name, SettingKind.ETHTOOL_COALESCE, nic.name(), param, want, current, false, null));
        }

        /** CPUs the policy steers to, NIC-local NUMA node first; empty Optional with a reason when pending. */
        private Target target() {
            CpuSet online = f.onlineCpus();
            CpuSet set = switch (d.irqAffinity()) {
                case SPREAD, NONE -> online;
                case SERVER_CORES, HOUSEKEEPING -> {
                    Optional<String> pending = podPending(d, f);
                    if (pending.isPresent()) {
                        yield null;
                    }
                    CpuSet server = f.pod().orElseThrow().cpus().and(online);
                    yield d.irqAffinity() == IrqAffinity.SERVER_CORES ? server : online.minus(server);
                }
            };
            if (set == null) {
                return new Target(null, List.of(), podPending(d, f).orElseThrow(), true);
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

        private boolean podPolicy() {
            return d.irqAffinity() == IrqAffinity.SERVER_CORES || d.irqAffinity() == IrqAffinity.HOUSEKEEPING;
        }

        void irqs(List<Setting> out) {
            if (d.irqAffinity() == IrqAffinity.NONE) {
                return;
            }
            String name = prefix("irq");
            if (nic.queueIrqs().isEmpty()) {
                out.add(Setting.finding(
                        name,
                        SettingState.UNSUPPORTED,
                        d.irqAffinity().name().toLowerCase(),
                        null,
                        false,
                        nic.name() + " has no queue interrupts (virtual device or no MSI-X vectors found)"));
                return;
            }
            Target t = target();
            if (t.cpus() == null) {
                out.add(Setting.finding(
                        name,
                        t.pending() ? SettingState.PENDING : SettingState.UNSUPPORTED,
                        null,
                        null,
                        podPolicy(),
                        t.why()));
                return;
            }
            // one CPU per queue: the RX and TX vectors of a queue pair (virtio input.N, output.N) share it,
            // so the pairs, not the vectors, go round the CPUs; an IRQ without a queue number counts by position
            List<Integer> irqs = nic.queueIrqs();
            for (int i = 0; i < irqs.size(); i++) {
                int irq = irqs.get(i);
                int queue = nic.irqQueues().getOrDefault(irq, i);
                String cpu = Integer.toString(t.order().get(queue % t.order().size()));
                out.add(Setting.of(
                        name + "/" + irq,
                        SettingKind.IRQ_AFFINITY,
                        "proc/irq/" + irq + "/smp_affinity_list",
                        null,
                        cpu,
                        nic.irqAffinity().get(irq),
                        podPolicy(),
                        null));
            }
        }

        void rps(List<Setting> out) {
            if (!d.rps()) {
                return;
            }
            Target t = target();
            if (t.cpus() == null) {
                out.add(Setting.finding(
                        prefix("rps"),
                        t.pending() ? SettingState.PENDING : SettingState.UNSUPPORTED,
                        null,
                        null,
                        podPolicy(),
                        t.why()));
                return;
            }
            String mask = t.cpus().toMask(f.possibleCpus());
            for (String q : nic.rxQueues()) {
                String current = nic.rpsCpus().get(q);
                String name = prefix("rps") + "/" + q;
                if (current == null) {
                    out.add(Setting.finding(
                            name,
                            SettingState.UNSUPPORTED,
                            mask,
                            null,
                            false,
                            "no rps_cpus for " + q + " (kernel without CONFIG_RPS)"));
                } else {
                    out.add(queueFile(name, SettingKind.RPS_CPUS, q + "/rps_cpus", mask, current, podPolicy()));
                }
            }
        }

        void rfs(List<Setting> out) {
            if (d.rfsFlowEntries() == null || nic.rxQueues().isEmpty()) {
                return;
            }
            int perQueue = d.rfsFlowEntries() == 0
                    ? 0
                    : pow2(Math.max(1, d.rfsFlowEntries() / nic.rxQueues().size()));
            for (String q : nic.rxQueues()) {
                String current = nic.rpsFlowCnt().get(q);
                String name = prefix("rfs") + "/" + q;
                if (current == null) {
                    out.add(Setting.finding(
                            name,
                            SettingState.UNSUPPORTED,
                            Integer.toString(perQueue),
                            null,
                            false,
                            "no rps_flow_cnt for " + q));
                } else {
                    out.add(queueFile(
                            name,
                            SettingKind.RPS_FLOW_CNT,
                            q + "/rps_flow_cnt",
                            Integer.toString(perQueue),
                            current,
                            false));
                }
            }
        }

        /**
         * An RPS/RFS file of a queue. On a read-only /sys a value that differs is a finding, not a
         * write that would fail and roll back the sysctls of the same pass.
         */
        private Setting queueFile(
                String name, SettingKind kind, String file, String want, String current, boolean podScoped) {
            String target = "sys/class/net/" + nic.name() + "/queues/" + file;
            if (f.sysfsReadOnly() && !Values.same(kind, want, current)) {
                return Setting.finding(
                        name,
                        SettingState.UNSUPPORTED,
                        want,
                        current,
                        podScoped,
                        "/sys is mounted read-only on this node (kind's node image does this): /" + target + " stays "
                                + current);
            }
            return Setting.of(name, kind, target, null, want, current, podScoped, null);
        }

        private static String onOff(boolean b) {
            return b ? "on" : "off";
        }

        private static String str(Integer i) {
            return i == null ? null : i.toString();
        }
    }

    /** The CPUs a policy steers to, in assignment order; or why there are none. */
    private record Target(CpuSet cpus, List<Integer> order, String why, boolean pending) {}

    /** Names of the settings in a plan (for tests and messages). */
    public static Set<String> names(Plan p) {
        Set<String> s = new LinkedHashSet<>();
        p.settings().forEach(x -> s.add(x.name()));
        return s;
    }
}
