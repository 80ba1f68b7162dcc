package io.videoedge.agent.plan;

import static io.videoedge.agent.testing.Specs.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.videoedge.agent.facts.NicFacts;
import io.videoedge.agent.facts.NodeFacts;
import io.videoedge.agent.testing.Facts;
import io.videoedge.api.IrqAffinity;
import io.videoedge.api.NicType;
import io.videoedge.api.SettingState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The planner by table of cases: NIC types, IRQ policies, CPU counts, NUMA layouts, findings. */
class PlannerTest {

    private static Map<String, String> desired(Plan p, String prefix) {
        Map<String, String> m = new LinkedHashMap<>();
        p.settings().stream().filter(s -> s.name().startsWith(prefix)).forEach(s -> m.put(s.name(), s.desired()));
        return m;
    }

    private static Setting setting(Plan p, String name) {
        return p.find(name).orElseThrow(() -> new AssertionError(name + " not in " + Planner.names(p)));
    }

    static Stream<Arguments> nicTypes() {
        return Stream.of(
                // driver, cpus, max queues, expected ethtool settings (name -> desired)
                Arguments.of(
                        "mlx5_core",
                        8,
                        63,
                        Map.of(
                                "ethtool/eth0/combined",
                                "8",
                                "ethtool/eth0/adaptive-rx",
                                "off",
                                "ethtool/eth0/rx-usecs",
                                "64",
                                "ethtool/eth0/tx-usecs",
                                "64")),
                Arguments.of("ixgbe", 32, 63, Map.of("ethtool/eth0/combined", "16", "ethtool/eth0/rx-usecs", "100")),
                Arguments.of(
                        "i40e",
                        8,
                        64,
                        Map.of(
                                "ethtool/eth0/combined",
                                "8",
                                "ethtool/eth0/adaptive-rx",
                                "off",
                                "ethtool/eth0/rx-usecs",
                                "100",
                                "ethtool/eth0/tx-usecs",
                                "100")),
                Arguments.of(
                        "ice",
                        64,
                        64,
                        Map.of(
                                "ethtool/eth0/combined",
                                "64",
                                "ethtool/eth0/adaptive-rx",
                                "off",
                                "ethtool/eth0/rx-usecs",
                                "100",
                                "ethtool/eth0/tx-usecs",
                                "100")),
                Arguments.of(
                        "ena",
                        64,
                        32,
                        Map.of(
                                "ethtool/eth0/combined",
                                "32",
                                "ethtool/eth0/adaptive-rx",
                                "off",
                                "ethtool/eth0/rx-usecs",
                                "64",
                                "ethtool/eth0/tx-usecs",
                                "64")),
                Arguments.of("virtio_net", 8, 4, Map.of("ethtool/eth0/combined", "4")),
                Arguments.of("bnxt_en", 8, 8, Map.of()));
    }

    @ParameterizedTest(name = "{0} on {1} CPUs")
    @MethodSource("nicTypes")
    void nicTypeDetectedFromTheDriverPicksQueueAndCoalescingDefaults(
            String driver, int cpus, int max, Map<String, String> want) {
        NodeFacts f = Facts.cpus(cpus).nic("eth0", driver, 2, max, 0).build();
        Plan p = Planner.plan(spec().desired(), f);
        assertThat(desired(p, "ethtool/")).isEqualTo(want);
    }

    @Test
    void explicitTypeAndValuesOverrideDefaultsAndQueuesAreCappedAtTheNicMaximum() {
        NodeFacts f = Facts.cpus(8).nic("eth0", "mlx5_core", 2, 4, 0).build();
        Plan p = Planner.plan(
                spec().type(NicType.MLX5).queues(16).coalescing(200, null, true).desired(), f);
        assertThat(setting(p, "ethtool/eth0/combined").desired()).isEqualTo("4");
        assertThat(setting(p, "ethtool/eth0/combined").message()).contains("maximum of 4");
        assertThat(desired(p, "ethtool/eth0/"))
                .containsEntry("ethtool/eth0/rx-usecs", "200")
                .containsEntry("ethtool/eth0/adaptive-rx", "on")
                .containsEntry("ethtool/eth0/tx-usecs", "64");
    }

    @Test
    void vethHasSeparateRxAndTxChannelsAndNoInterrupts() {
        NodeFacts f = Facts.cpus(2).veth("eth0", 1, 2).build();
        Plan p = Planner.plan(spec().queues(2).coalescing(50, null, null).desired(), f);
        assertThat(desired(p, "ethtool/")).containsEntry("ethtool/eth0/rx", "2").containsEntry("ethtool/eth0/tx", "2");
        assertThat(setting(p, "ethtool/eth0/rx-usecs").state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(setting(p, "irq/eth0").state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(setting(p, "irq/eth0").message()).contains("no queue interrupts");
    }

    static Stream<Arguments> irqPolicies() {
        return Stream.of(
                Arguments.of(IrqAffinity.SPREAD, List.of("0", "1", "2", "3"), "ff"),
                Arguments.of(IrqAffinity.SERVER_CORES, List.of("2", "3", "2", "3"), "0c"),
                Arguments.of(IrqAffinity.HOUSEKEEPING, List.of("0", "1", "4", "5"), "f3"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("irqPolicies")
    void irqPolicySteersQueueInterruptsAndRpsToItsCpus(IrqAffinity policy, List<String> cpus, String rpsMask) {
        NodeFacts f =
                Facts.cpus(8).nic("eth0", "mlx5_core", 4, 8, 0).pod("p1", "2-3").build();
        Plan p = Planner.plan(spec().irq(policy).queues(4).pod("p1").desired(), f);
        assertThat(desired(p, "irq/eth0/").values()).containsExactlyElementsOf(cpus);
        assertThat(desired(p, "irq/eth0/").keySet())
                .containsExactly("irq/eth0/100", "irq/eth0/101", "irq/eth0/102", "irq/eth0/103");
        assertThat(desired(p, "rps/eth0/").values()).containsOnly(rpsMask).hasSize(4);
    }

    @Test
    void irqPolicyNoneLeavesInterruptsAloneButKeepsRps() {
        NodeFacts f = Facts.cpus(8).nic("eth0", "mlx5_core", 4, 8, 0).build();
        Plan p = Planner.plan(spec().irq(IrqAffinity.NONE).desired(), f);
        assertThat(desired(p, "irq/")).isEmpty();
        assertThat(desired(p, "rps/eth0/").values()).containsOnly("ff");
    }

    /**
     * CPUs booted isolated (isolcpus=, nohz_full=) are left out of RPS masks: the kernel drops them from
     * a mask written, which then never read back as written and rolled every pass back.
     */
    @Test
    void rpsMasksLeaveIsolatedCpusOut() {
        NodeFacts f =
                Facts.cpus(8).nic("eth0", "mlx5_core", 4, 8, 0).isolated("4-7").build();
        Plan p = Planner.plan(spec().irq(IrqAffinity.SPREAD).desired(), f);
        assertThat(desired(p, "rps/eth0/").values()).containsOnly("0f").hasSize(4);

        NodeFacts allIsolated = Facts.cpus(8)
                .nic("eth0", "mlx5_core", 4, 8, 0)
                .pod("p1", "4-5")
                .isolated("4-7")
                .build();
        Plan onIsolated =
                Planner.plan(spec().irq(IrqAffinity.SERVER_CORES).pod("p1").desired(), allIsolated);
        assertThat(setting(onIsolated, "rps/eth0").state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(setting(onIsolated, "rps/eth0").message()).contains("isolated");
    }

    @Test
    void podPoliciesArePendingUntilTheServerPodIsKnownWhileNodeSettingsArePlanned() {
        NodeFacts f = Facts.cpus(8).nic("eth0", "mlx5_core", 4, 8, 0).build();
        Plan p = Planner.plan(spec().irq(IrqAffinity.SERVER_CORES).relax(1).desired(), f);
        assertThat(setting(p, "irq/eth0").state()).isEqualTo(SettingState.PENDING);
        assertThat(setting(p, "irq/eth0").podScoped()).isTrue();
        assertThat(setting(p, "rps/eth0").state()).isEqualTo(SettingState.PENDING);
        assertThat(setting(p, "cpuset/sched_relax_domain_level").message()).contains("spec.server.podUid is empty");
        assertThat(setting(p, "sysctl/net.ipv4.tcp_congestion_control").state()).isEqualTo(SettingState.PLANNED);
    }

    @Test
    void podKnownButCgroupNotCreatedYetIsPending() {
        NodeFacts f = Facts.cpus(8)
                .nic("eth0", "mlx5_core", 4, 8, 0)
                .podWithoutCgroup("p9")
                .build();
        Plan p = Planner.plan(
                spec().irq(IrqAffinity.HOUSEKEEPING).relax(2).pod("p9").desired(), f);
        assertThat(setting(p, "irq/eth0").state()).isEqualTo(SettingState.PENDING);
        assertThat(setting(p, "cpuset/sched_relax_domain_level").message()).contains("cgroup of pod p9 not found");
    }

    @Test
    void housekeepingWithEveryCpuOwnedByTheServerIsUnsupported() {
        NodeFacts f = Facts.cpus(2)
                .nic("eth0", "virtio_net", 2, 2, -1)
                .pod("p1", "0-1")
                .build();
        Plan p = Planner.plan(spec().irq(IrqAffinity.HOUSEKEEPING).pod("p1").desired(), f);
        assertThat(setting(p, "irq/eth0").state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(setting(p, "irq/eth0").message()).contains("no housekeeping CPUs left");
    }

    static Stream<Arguments> masks() {
        return Stream.of(
                Arguments.of(2, IrqAffinity.SPREAD, null, "3"),
                Arguments.of(8, IrqAffinity.SPREAD, null, "ff"),
                Arguments.of(36, IrqAffinity.SPREAD, null, "f,ffffffff"),
                Arguments.of(64, IrqAffinity.SPREAD, null, "ffffffff,ffffffff"),
                Arguments.of(64, IrqAffinity.SERVER_CORES, "32-47", "0000ffff,00000000"),
                Arguments.of(160, IrqAffinity.SPREAD, null, "ffffffff,ffffffff,ffffffff,ffffffff,ffffffff"),
                Arguments.of(160, IrqAffinity.HOUSEKEEPING, "0-39", "ffffffff,ffffffff,ffffffff,ffffff00,00000000"),
                Arguments.of(160, IrqAffinity.SERVER_CORES, "159", "80000000,00000000,00000000,00000000,00000000"));
    }

    @ParameterizedTest(name = "{0} CPUs, {1} {2}")
    @MethodSource("masks")
    void rpsMasksAreWrittenInTheKernelsBitmapFormat(int cpus, IrqAffinity policy, String podCpus, String mask) {
        Facts facts = Facts.cpus(cpus).nic("eth0", "mlx5_core", 2, 64, 0);
        if (podCpus != null) {
            facts.pod("p1", podCpus);
        }
        Plan p = Planner.plan(
                spec().irq(policy).queues(2).pod(podCpus == null ? null : "p1").desired(), facts.build());
        assertThat(setting(p, "rps/eth0/rx-0").desired()).isEqualTo(mask);
        assertThat(setting(p, "rps/eth0/rx-1").desired()).isEqualTo(mask);
    }

    @Test
    void spreadOnOneNumaNodeFollowsCpuOrder() {
        NodeFacts f = Facts.cpus(160).nic("eth0", "mlx5_core", 4, 64, 0).build();
        Plan p = Planner.plan(spec().queues(4).desired(), f);
        assertThat(desired(p, "irq/").values()).containsExactly("0", "1", "2", "3");
    }

    static Stream<Arguments> numa() {
        return Stream.of(
                // cpus, nodes, NIC node, queues, expected CPU per queue IRQ
                Arguments.of(16, 2, 1, 4, List.of("8", "9", "10", "11")),
                Arguments.of(16, 2, 0, 4, List.of("0", "1", "2", "3")),
                Arguments.of(16, 2, -1, 4, List.of("0", "1", "2", "3")),
                Arguments.of(16, 2, 1, 12, List.of("8", "9", "10", "11", "12", "13", "14", "15", "0", "1", "2", "3")),
                Arguments.of(64, 4, 3, 4, List.of("48", "49", "50", "51")));
    }

    @ParameterizedTest(name = "{0} CPUs on {1} nodes, NIC on node {2}, {3} queues")
    @MethodSource("numa")
    void spreadPutsQueueInterruptsOnTheNicsNumaNodeFirst(
            int cpus, int nodes, int nicNode, int queues, List<String> want) {
        NodeFacts f = Facts.cpus(cpus)
                .numa(nodes)
                .nic("eth0", "mlx5_core", queues, 64, nicNode)
                .build();
        Plan p = Planner.plan(spec().queues(queues).desired(), f);
        assertThat(desired(p, "irq/").values()).containsExactlyElementsOf(want);
    }

    @Test
    void spreadKeepsTheTwoVectorsOfAVirtioQueuePairOnOneCpuAndTheNicsNodeFirst() {
        // found on Debian's kernel under qemu (make vm-test): counting vectors instead of queues put every
        // RX vector (input.N) on one CPU and every TX vector on the other
        NodeFacts f = Facts.cpus(2).numa(2).virtio("eth0", 4, 4, 1).build();
        Plan p = Planner.plan(spec().desired(), f);
        assertThat(desired(p, "irq/"))
                .containsExactly(
                        entry("irq/eth0/100", "1"),
                        entry("irq/eth0/101", "1"),
                        entry("irq/eth0/102", "0"),
                        entry("irq/eth0/103", "0"),
                        entry("irq/eth0/104", "1"),
                        entry("irq/eth0/105", "1"),
                        entry("irq/eth0/106", "0"),
                        entry("irq/eth0/107", "0"));
    }

    @Test
    void virtioWithoutNotificationCoalescingReportsAskedCoalescingUnsupportedAndWritesNothing() {
        NodeFacts f = Facts.cpus(2).virtio("eth0", 2, 4, -1).build();
        Plan p = Planner.plan(spec().coalescing(64, null, null).desired(), f);
        Setting rx = setting(p, "ethtool/eth0/rx-usecs");
        assertThat(rx.state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(rx.message())
                .isEqualTo(
                        "eth0 has no rx-usecs (virtio device without notification coalescing, VIRTIO_NET_F_NOTF_COAL)");
        assertThat(p.changes()).extracting(Setting::name).noneMatch(n -> n.startsWith("ethtool/eth0/rx-usecs"));
    }

    @Test
    void readOnlySysfsMakesDifferingRpsAndRfsValuesFindingsAndLeavesTheRestPlanned() {
        NodeFacts f = Facts.cpus(2).veth("eth0", 1, 2).sysfsReadOnly().build();
        Plan p = Planner.plan(spec().queues(2).rfs(4096).desired(), f);
        Setting rps = setting(p, "rps/eth0/rx-0");
        assertThat(rps.state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(rps.message()).contains("/sys is mounted read-only").contains("rps_cpus stays 0");
        assertThat(rps.desired()).isEqualTo("3");
        assertThat(rps.current()).isEqualTo("0");
        assertThat(setting(p, "rfs/eth0/rx-0").state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(p.changes())
                .extracting(Setting::name)
                .contains("sysctl/net.core.rps_sock_flow_entries", "ethtool/eth0/rx")
                .noneMatch(n -> n.startsWith("rps/") || n.startsWith("rfs/"));

        // a value already in place is Unchanged, read-only or not
        Plan off = Planner.plan(spec().rfs(0).desired(), f);
        assertThat(setting(off, "rfs/eth0/rx-0").state()).isEqualTo(SettingState.UNCHANGED);
    }

    @Test
    void rfsSplitsTheFlowTableOverRxQueuesInPowersOfTwo() {
        NodeFacts f = Facts.cpus(8).nic("eth0", "mlx5_core", 4, 8, 0).build();
        Plan p = Planner.plan(spec().queues(4).rfs(32768).desired(), f);
        assertThat(setting(p, "sysctl/net.core.rps_sock_flow_entries").desired())
                .isEqualTo("32768");
        assertThat(desired(p, "rfs/eth0/").values()).containsOnly("8192").hasSize(4);

        Plan odd = Planner.plan(spec().queues(4).rfs(10000).desired(), f);
        assertThat(setting(odd, "sysctl/net.core.rps_sock_flow_entries").desired())
                .isEqualTo("16384");
        assertThat(desired(odd, "rfs/eth0/").values()).containsOnly("4096");
    }

    @Test
    void theFlowTableAskedAsASysctlIsRoundedUpAsTheKernelDoes() {
        NodeFacts f = Facts.cpus(8).nic("eth0", "mlx5_core", 4, 8, 0).build();
        Plan p = Planner.plan(
                spec().sysctls(Map.of("net.core.rps_sock_flow_entries", " 1000 "))
                        .desired(),
                f);
        Setting s = setting(p, "sysctl/net.core.rps_sock_flow_entries");
        assertThat(s.desired()).isEqualTo("1024");
        assertThat(s.message()).isEqualTo("1000 asked: the kernel rounds it up to a power of two, 1024");

        Plan exact = Planner.plan(
                spec().sysctls(Map.of("net.core.rps_sock_flow_entries", "4096")).desired(), f);
        assertThat(setting(exact, "sysctl/net.core.rps_sock_flow_entries").desired())
                .isEqualTo("4096");
        assertThat(setting(exact, "sysctl/net.core.rps_sock_flow_entries").message())
                .isNull();

        Plan padded = Planner.plan(
                spec().sysctls(Map.of("net.core.rps_sock_flow_entries", "0004096"))
                        .desired(),
                f);
        assertThat(setting(padded, "sysctl/net.core.rps_sock_flow_entries").desired())
                .isEqualTo("4096");
        assertThat(setting(padded, "sysctl/net.core.rps_sock_flow_entries").message())
                .isNull();
        Plan minusZero = Planner.plan(
                spec().sysctls(Map.of("net.core.rps_sock_flow_entries", "-0")).desired(), f);
        assertThat(setting(minusZero, "sysctl/net.core.rps_sock_flow_entries").desired())
                .isEqualTo("0");
    }

    @Test
    void sysctlsComparedAsTheKernelPrintsThem() {
        NodeFacts f = Facts.cpus(2).nic("eth0", "virtio_net", 1, 1, -1).build();
        Plan p = Planner.plan(
                spec().sysctls(Map.of(
                                "net.ipv4.tcp_mem",
                                "287901 383869 575802",
                                "net.ipv4.tcp_notsent_lowat",
                                "262144",
                                "vm.min_free_kbytes",
                                "1048576",
                                "vm.swappiness",
                                "0"))
                        .desired(),
                f);
        assertThat(setting(p, "sysctl/net.ipv4.tcp_mem").state()).isEqualTo(SettingState.UNCHANGED);
        assertThat(setting(p, "sysctl/net.ipv4.tcp_notsent_lowat").state()).isEqualTo(SettingState.PLANNED);
        assertThat(setting(p, "sysctl/vm.min_free_kbytes").target()).isEqualTo("proc/sys/vm/min_free_kbytes");
        assertThat(setting(p, "sysctl/net.ipv4.tcp_congestion_control").desired())
                .isEqualTo("bbr");
    }

    @Test
    void sysctlTheNodeLacksIsAFindingNotACrash() {
        NodeFacts f = Facts.cpus(2).nic("eth0", "virtio_net", 1, 1, -1).build();
        Plan p = Planner.plan(
                spec().sysctls(Map.of("net.ipv4.tcp_no_such_knob", "1"))
                        .cc("vegas")
                        .desired(),
                f);
        assertThat(setting(p, "sysctl/net.ipv4.tcp_no_such_knob").state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(setting(p, "sysctl/net.ipv4.tcp_congestion_control").state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(setting(p, "sysctl/net.ipv4.tcp_congestion_control").message())
                .contains("vegas is not available");
    }

    @Test
    void congestionControlThatIsOnlyLoadableIsPlanned() {
        NodeFacts f = Facts.cpus(2)
                .congestionControls("reno", "cubic")
                .loadable("tcp_bbr")
                .build();
        assertThat(setting(Planner.plan(spec().desired(), f), "sysctl/net.ipv4.tcp_congestion_control")
                        .state())
                .isEqualTo(SettingState.PLANNED);
    }

    @Test
    void kernelTlsModuleStates() {
        NodeFacts none = Facts.cpus(2).build();
        Setting missing = setting(Planner.plan(spec().modules("tls").desired(), none), "module/tls");
        assertThat(missing.state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(missing.message()).contains("kernel TLS unavailable").contains("OpenSSL");
        assertThat(none.ktls()).isEqualTo("unavailable");

        NodeFacts loadable = Facts.cpus(2).loadable("tls").build();
        assertThat(setting(Planner.plan(spec().modules("tls").desired(), loadable), "module/tls")
                        .state())
                .isEqualTo(SettingState.PLANNED);
        assertThat(loadable.ktls()).isEqualTo("loadable");

        NodeFacts ulp = Facts.cpus(2).tlsUlp().build();
        assertThat(setting(Planner.plan(spec().modules("tls").desired(), ulp), "module/tls")
                        .state())
                .isEqualTo(SettingState.UNCHANGED);
        assertThat(ulp.ktls()).isEqualTo("available");
    }

    @Test
    void cpusetSettingsOnCgroupV1AndUnsupportedOnV2() {
        NodeFacts v1 = Facts.cpus(8).pod("p1", "2-3").build();
        Plan p = Planner.plan(spec().relax(1).interleave().pod("p1").desired(), v1);
        assertThat(setting(p, "cpuset/sched_relax_domain_level").target())
                .isEqualTo("sys/fs/cgroup/cpuset/kubepods/podp1/cpuset.sched_relax_domain_level");
        assertThat(setting(p, "cpuset/sched_relax_domain_level").state()).isEqualTo(SettingState.PLANNED);
        assertThat(setting(p, "cpuset/memory_spread_page").desired()).isEqualTo("1");

        NodeFacts v2 = Facts.cpus(8).cgroupV2().pod("p1", "2-3").build();
        Setting relax =
                setting(Planner.plan(spec().relax(1).pod("p1").desired(), v2), "cpuset/sched_relax_domain_level");
        assertThat(relax.state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(relax.message()).contains("cgroup v2");
    }

    @Test
    void missingInterfaceIsReported() {
        NodeFacts f = Facts.cpus(2).nic("eth0", "virtio_net", 1, 1, -1).build();
        Plan p = Planner.plan(spec().interfaces("eth9").desired(), f);
        assertThat(setting(p, "nic/eth9").message()).isEqualTo("no interface eth9 on this node");
    }

    @Test
    void defaultRouteInterfaceIsTunedWhenNoneIsNamed() {
        NodeFacts f = Facts.cpus(2).nic("eth0", "virtio_net", 1, 1, -1).build();
        Plan p = Planner.plan(spec().interfaces().desired(), f);
        assertThat(Planner.names(p)).contains("rps/eth0/rx-0");
    }

    static final String OFFLOAD = "ethtool/eth0/tls-hw-tx-offload";

    private static NodeFacts withTlsTx(String driver, NicFacts.Feature feature) {
        return Facts.cpus(8)
                .nic("eth0", driver, 4, 8, 0)
                .tlsTxOffload("eth0", feature)
                .build();
    }

    @Test
    void tlsTxOffloadIsTurnedOnWhereTheNicOffersItRightAfterTheQueueCount() {
        NodeFacts off = withTlsTx("mlx5_core", new NicFacts.Feature(false, false, false));
        Plan p = Planner.plan(spec().tlsTxOffload(true).modules("tls").desired(), off);
        Setting s = setting(p, OFFLOAD);
        assertThat(s.state()).isEqualTo(SettingState.PLANNED);
        assertThat(s.kind()).isEqualTo(SettingKind.ETHTOOL_FEATURE);
        assertThat(List.of(s.target(), s.param(), s.desired(), s.current()))
                .containsExactly("eth0", "tls-hw-tx-offload", "on", "off");
        assertThat(s.message()).isNull();
        List<String> order = new ArrayList<>(Planner.names(p));
        assertThat(order.indexOf(OFFLOAD)).isEqualTo(order.indexOf("ethtool/eth0/combined") + 1);
        assertThat(order.indexOf("module/tls")).isLessThan(order.indexOf(OFFLOAD));

        // on already, changeable or fixed on: nothing to write
        for (NicFacts.Feature on :
                List.of(new NicFacts.Feature(true, false, true), new NicFacts.Feature(true, true, true))) {
            Setting same =
                    setting(Planner.plan(spec().tlsTxOffload(true).desired(), withTlsTx("mlx5_core", on)), OFFLOAD);
            assertThat(same.state()).as(on.toString()).isEqualTo(SettingState.UNCHANGED);
            assertThat(same.kind()).isEqualTo(SettingKind.ETHTOOL_FEATURE);
        }
    }

    @Test
    void everyTunedNicGetsItsOwnOffloadSetting() {
        NodeFacts f = Facts.cpus(8)
                .nic("eth0", "mlx5_core", 4, 8, 0)
                .nic("eth1", "mlx5_core", 4, 8, 0)
                .tlsTxOffload("eth0", new NicFacts.Feature(false, false, false))
                .tlsTxOffload("eth1", new NicFacts.Feature(false, false, false))
                .build();
        Plan p = Planner.plan(
                spec().interfaces("eth0", "eth1").tlsTxOffload(true).desired(), f);
        assertThat(desired(p, "ethtool/").entrySet().stream()
                        .filter(e -> e.getKey().endsWith("/tls-hw-tx-offload"))
                        .map(Map.Entry::getKey))
                .containsExactly("ethtool/eth0/tls-hw-tx-offload", "ethtool/eth1/tls-hw-tx-offload");
    }

    @Test
    void nicThatCannotOffloadTlsIsUnsupportedWithAReasonAndTheRestIsPlanned() {
        Plan fixed = Planner.plan(spec().tlsTxOffload(true).desired(), withTlsTx("virtio_net", Facts.FIXED_OFF));
        Setting s = setting(fixed, OFFLOAD);
        assertThat(s.state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(s.kind()).isNull();
        assertThat(s.desired()).isEqualTo("on");
        assertThat(s.current()).isEqualTo("off");
        assertThat(s.message())
                .isEqualTo("eth0 (virtio_net) has no TLS TX offload (ethtool -k: tls-hw-tx-offload off [fixed]): "
                        + "the edge server uses kernel TLS in software");
        assertThat(setting(fixed, "ethtool/eth0/combined").state()).isEqualTo(SettingState.PLANNED);
        assertThat(fixed.changes()).noneMatch(c -> c.name().equals(OFFLOAD));

        Setting missing = setting(Planner.plan(spec().tlsTxOffload(true).desired(), withTlsTx("ixgbe", null)), OFFLOAD);
        assertThat(missing.state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(missing.message())
                .startsWith("eth0 (ixgbe) has no TLS TX offload (ethtool -k shows no tls-hw-tx-offload")
                .endsWith("kernel TLS in software");

        Setting refused = setting(
                Planner.plan(
                        spec().tlsTxOffload(true).desired(),
                        withTlsTx("mlx5_core", new NicFacts.Feature(false, false, true))),
                OFFLOAD);
        assertThat(refused.state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(refused.message())
                .contains("eth0 (mlx5_core) keeps TLS TX offload off although it was asked on")
                .contains("tls-hw-tx-offload off [requested on]")
                .contains("tx-checksumming");

        NodeFacts noEthtool = Facts.cpus(8)
                .nic("eth0", "mlx5_core", 4, 8, 0)
                .tlsTxOffload("eth0", new NicFacts.Feature(false, false, false))
                .noEthtool()
                .build();
        Setting none = setting(Planner.plan(spec().tlsTxOffload(true).desired(), noEthtool), OFFLOAD);
        assertThat(none.state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(none.message()).startsWith("ethtool not found");
    }

    @Test
    void offloadNotAskedForLeavesTheFeatureAlone() {
        NodeFacts capable = withTlsTx("mlx5_core", new NicFacts.Feature(false, false, false));
        for (Boolean asked : java.util.Arrays.asList(null, false)) {
            Plan p = Planner.plan(spec().tlsTxOffload(asked).modules("tls").desired(), capable);
            assertThat(Planner.names(p)).as("tlsTxOffload " + asked).noneMatch(n -> n.endsWith("/tls-hw-tx-offload"));
        }
        // and not asked on a NIC that cannot: no finding either
        assertThat(Planner.names(Planner.plan(spec().desired(), withTlsTx("virtio_net", Facts.FIXED_OFF))))
                .noneMatch(n -> n.contains("tls-hw"));
    }

    @Test
    void planIsPureAndItsFingerprintFollowsTheDesiredValues() {
        NodeFacts f = Facts.cpus(8).nic("eth0", "mlx5_core", 4, 8, 0).build();
        Plan a = Planner.plan(spec().rfs(32768).desired(), f);
        Plan b = Planner.plan(spec().rfs(32768).desired(), f);
        assertThat(a).isEqualTo(b);
        assertThat(a.fingerprint()).isEqualTo(b.fingerprint()).hasSize(16);
        assertThat(Planner.plan(spec().rfs(65536).desired(), f).fingerprint()).isNotEqualTo(a.fingerprint());
        // the current values are not part of the fingerprint: a rewritten value is drift, not a new plan
        NodeFacts drifted = Facts.cpus(8)
                .nic("eth0", "mlx5_core", 4, 8, 0)
                .sysctl("net.ipv4.tcp_congestion_control", "reno")
                .build();
        assertThat(Planner.plan(spec().rfs(32768).desired(), drifted).fingerprint())
                .isEqualTo(a.fingerprint());
    }

    @Test
    void aSysctlMinimumIsRaisedOnlyWhenTheNodeIsBelowIt() {
        Map<String, Long> min = Map.of("net.core.wmem_max", 4194304L, "net.core.rmem_max", 212992L);
        NodeFacts f = Facts.cpus(2)
                .sysctl("net.core.wmem_max", "212992")
                .sysctl("net.core.rmem_max", "16777216")
                .build();
        Plan p = Planner.plan(spec().minimums(min).desired(), f);
        Setting w = setting(p, "sysctl/net.core.wmem_max");
        assertThat(w.state()).isEqualTo(SettingState.PLANNED);
        assertThat(w.desired()).isEqualTo("4194304");
        assertThat(w.current()).isEqualTo("212992");
        assertThat(w.target()).isEqualTo("proc/sys/net/core/wmem_max");
        assertThat(w.message()).isEqualTo("at least 4194304 asked: raised from 212992 (never lowered)");
        // an administrator's larger value is kept, and said so
        Setting r = setting(p, "sysctl/net.core.rmem_max");
        assertThat(r.state()).isEqualTo(SettingState.UNCHANGED);
        assertThat(r.needsWrite()).isFalse();
        assertThat(r.desired()).isEqualTo("212992");
        assertThat(r.current()).isEqualTo("16777216");
        assertThat(r.message()).isEqualTo("already at least 212992 (the node has 16777216): left as it is");
        assertThat(Planner.request(spec().minimums(min).desired()).sysctls())
                .contains("net.core.wmem_max", "net.core.rmem_max");

        // equal is in place; the fingerprint does not depend on the node's value (a larger one is no new plan)
        NodeFacts equal = Facts.cpus(2)
                .sysctl("net.core.wmem_max", "4194304")
                .sysctl("net.core.rmem_max", "212992")
                .build();
        Plan q = Planner.plan(spec().minimums(min).desired(), equal);
        assertThat(q.changes())
                .extracting(Setting::name)
                .doesNotContain("sysctl/net.core.wmem_max", "sysctl/net.core.rmem_max");
        assertThat(setting(q, "sysctl/net.core.wmem_max").message()).isEqualTo("at least 4194304 asked: in place");
        assertThat(q.fingerprint()).isEqualTo(p.fingerprint());
    }

    @Test
    void aSysctlTheSpecSetsExactlyWinsOverItsMinimum() {
        NodeFacts f = Facts.cpus(2).sysctl("net.core.wmem_max", "212992").build();
        Plan p = Planner.plan(
                spec().sysctls(Map.of("net.core.wmem_max", "1048576"))
                        .minimums(Map.of("net.core.wmem_max", 4194304L))
                        .desired(),
                f);
        assertThat(p.settings().stream().filter(s -> s.name().equals("sysctl/net.core.wmem_max")))
                .singleElement()
                .satisfies(s -> {
                    assertThat(s.desired()).isEqualTo("1048576");
                    assertThat(s.state()).isEqualTo(SettingState.PLANNED);
                });
        // set exactly: lowered too, as any sysctl the spec names
        NodeFacts high = Facts.cpus(2).sysctl("net.core.wmem_max", "8388608").build();
        assertThat(setting(
                                Planner.plan(
                                        spec().sysctls(Map.of("net.core.wmem_max", "1048576"))
                                                .minimums(Map.of("net.core.wmem_max", 4194304L))
                                                .desired(),
                                        high),
                                "sysctl/net.core.wmem_max")
                        .state())
                .isEqualTo(SettingState.PLANNED);
    }

    @Test
    void aMinimumTheNodeCannotTakeIsAFindingAndTheRestIsPlanned() {
        Map<String, Long> min = Map.of("net.core.wmem_max", 4194304L, "net.core.rmem_max", 212992L);
        // absent: a network namespace on a kernel where these are the initial namespace's only
        NodeFacts absent = Facts.cpus(2)
                .noSysctl("net.core.wmem_max")
                .noSysctl("net.core.rmem_max")
                .build();
        Plan p = Planner.plan(
                spec().minimums(min).sysctls(Map.of("vm.swappiness", "0")).desired(), absent);
        assertThat(setting(p, "sysctl/net.core.wmem_max").state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(setting(p, "sysctl/net.core.wmem_max").message())
                .startsWith("no /proc/sys/net/core/wmem_max here (global: only the initial network namespace has it");
        assertThat(setting(p, "sysctl/vm.swappiness").state()).isEqualTo(SettingState.PLANNED);

        // read-only (newer kernels, outside the initial namespace): lower is a finding, at least it is in place
        NodeFacts readOnly = Facts.cpus(2)
                .readOnlySysctl("net.core.wmem_max", "212992")
                .readOnlySysctl("net.core.rmem_max", "4194304")
                .build();
        Plan q = Planner.plan(spec().minimums(min).desired(), readOnly);
        Setting w = setting(q, "sysctl/net.core.wmem_max");
        assertThat(w.state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(w.current()).isEqualTo("212992");
        assertThat(w.message())
                .isEqualTo(
                        "at least 4194304 asked, the node has 212992 and /proc/sys/net/core/wmem_max is read-only here "
                                + "(only the machine's initial network namespace may change it): sockets asking more are capped at "
                                + "212992");
        assertThat(setting(q, "sysctl/net.core.rmem_max").state()).isEqualTo(SettingState.UNCHANGED);
        assertThat(setting(q, "sysctl/net.core.rmem_max").message()).startsWith("already at least 212992");
        assertThat(q.changes()).extracting(Setting::name).doesNotContain("sysctl/net.core.wmem_max");

        // a value that is not one integer
        NodeFacts odd = Facts.cpus(2).sysctl("net.core.wmem_max", "4096 8192").build();
        assertThat(setting(
                                Planner.plan(
                                        spec().minimums(Map.of("net.core.wmem_max", 4194304L))
                                                .desired(),
                                        odd),
                                "sysctl/net.core.wmem_max")
                        .state())
                .isEqualTo(SettingState.UNSUPPORTED);
    }
}
