package io.videoedge.agent.report;

import static io.videoedge.agent.testing.Specs.spec;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.videoedge.agent.apply.PassResult;
import io.videoedge.agent.facts.NicFacts;
import io.videoedge.agent.facts.NodeFacts;
import io.videoedge.agent.plan.Plan;
import io.videoedge.agent.plan.Planner;
import io.videoedge.agent.plan.Setting;
import io.videoedge.agent.testing.Facts;
import io.videoedge.agent.testing.Passes;
import io.videoedge.api.Conditions;
import io.videoedge.api.IrqAffinity;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.SettingState;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Conditions and status from a pass: pure, so every rule is a small case. */
class StatusBuilderTest {
    static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
    static final Instant T1 = Instant.parse("2026-01-01T10:05:00Z");

    private static PassResult applied(Plan p, NodeFacts f) {
        return Passes.applied(p, f);
    }

    private static Condition cond(NodeTuningStatus s, String type) {
        return s.conditions().stream()
                .filter(c -> c.getType().equals(type))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void appliedTrueWhilePodSettingsWaitForAnUnknownPod() {
        NodeFacts f = Facts.cpus(8).nic("eth0", "mlx5_core", 4, 8, 0).build();
        PassResult r = applied(Planner.plan(spec().irq(IrqAffinity.SERVER_CORES).desired(), f), f);
        NodeTuningStatus s = StatusBuilder.build(r, null, 3, false, T0);
        assertThat(cond(s, Conditions.APPLIED).getStatus()).isEqualTo("True");
        assertThat(cond(s, Conditions.APPLIED).getObservedGeneration()).isEqualTo(3L);
        assertThat(cond(s, Conditions.DEGRADED).getStatus()).isEqualTo("True");
        assertThat(cond(s, Conditions.DEGRADED).getReason()).isEqualTo(StatusBuilder.WAITING_FOR_SERVER_POD);
        assertThat(cond(s, Conditions.DEGRADED).getMessage()).contains("irq/eth0 (waiting for the edge-server pod");
        assertThat(s.observedGeneration()).isEqualTo(3L);
        assertThat(s.fingerprint()).isEqualTo(r.fingerprint());
    }

    @Test
    void appliedFalseOnceThePodIsKnownUntilItsSettingsAreIn() {
        NodeFacts f = Facts.cpus(8)
                .nic("eth0", "mlx5_core", 4, 8, 0)
                .podWithoutCgroup("p1")
                .build();
        PassResult r = applied(
                Planner.plan(spec().irq(IrqAffinity.SERVER_CORES).pod("p1").desired(), f), f);
        NodeTuningStatus s = StatusBuilder.build(r, null, 4, true, T0);
        assertThat(cond(s, Conditions.APPLIED).getStatus()).isEqualTo("False");
        assertThat(cond(s, Conditions.APPLIED).getReason()).isEqualTo(Conditions.APPLYING);
    }

    @Test
    void unsupportedSettingsDegradeButDoNotHoldAppliedBack() {
        NodeFacts f = Facts.cpus(2).nic("eth0", "virtio_net", 1, 1, -1).build();
        PassResult r = applied(Planner.plan(spec().modules("tls").desired(), f), f);
        NodeTuningStatus s = StatusBuilder.build(r, null, 1, false, T0);
        assertThat(cond(s, Conditions.APPLIED).getStatus()).isEqualTo("True");
        assertThat(cond(s, Conditions.DEGRADED).getReason()).isEqualTo(Conditions.UNSUPPORTED_SETTINGS);
        assertThat(cond(s, Conditions.DEGRADED).getMessage()).contains("module/tls (module tls is not built");
        assertThat(s.capabilities().ktls()).isEqualTo("unavailable");
        NodeTuningStatus.Setting tls = s.settings().stream()
                .filter(x -> x.name().equals("module/tls"))
                .findFirst()
                .orElseThrow();
        assertThat(tls.state()).isEqualTo(SettingState.UNSUPPORTED);
    }

    @Test
    void nicCapabilitiesTellWhetherTheNicCanOffloadTlsAndWhetherItDoesNow() {
        NodeFacts f = Facts.cpus(2)
                .nic("eth0", "mlx5_core", 1, 1, 0)
                .nic("eth1", "mlx5_core", 1, 1, 0)
                .nic("eth2", "virtio_net", 1, 1, -1)
                .nic("eth3", "ixgbe", 1, 1, 0)
                .tlsTxOffload("eth0", new NicFacts.Feature(false, false, false))
                .tlsTxOffload("eth1", new NicFacts.Feature(true, false, true))
                .tlsTxOffload("eth3", null)
                .build();
        PassResult r = applied(Planner.plan(spec().desired(), f), f);
        Map<String, List<Boolean>> offload = new java.util.TreeMap<>();
        StatusBuilder.build(r, null, 1, false, T0)
                .capabilities()
                .nics()
                .forEach(n -> offload.put(n.name(), java.util.Arrays.asList(n.tlsOffload(), n.tlsOffloadOn())));
        assertThat(offload)
                .containsEntry("eth0", List.of(true, false))
                .containsEntry("eth1", List.of(true, true))
                .containsEntry("eth2", List.of(false, false))
                .containsEntry("eth3", java.util.Arrays.asList(null, null));
    }

    @Test
    void tlsOffloadTheNicCannotTakeIsUnsupportedWithItsReasonAndDoesNotHoldAppliedBack() {
        NodeFacts f = Facts.cpus(2).nic("eth0", "virtio_net", 1, 1, -1).build();
        PassResult r = applied(Planner.plan(spec().tlsTxOffload(true).desired(), f), f);
        NodeTuningStatus s = StatusBuilder.build(r, null, 1, false, T0);
        assertThat(cond(s, Conditions.APPLIED).getStatus()).isEqualTo("True");
        assertThat(cond(s, Conditions.DEGRADED).getReason()).isEqualTo(Conditions.UNSUPPORTED_SETTINGS);
        assertThat(cond(s, Conditions.DEGRADED).getMessage())
                .contains(
                        "ethtool/eth0/tls-hw-tx-offload (eth0 (virtio_net) has no TLS "
                                + "TX offload (ethtool -k: tls-hw-tx-offload off [fixed]): the edge server uses kernel TLS in software)");
        NodeTuningStatus.Setting t = s.settings().stream()
                .filter(x -> x.name().endsWith("/tls-hw-tx-offload"))
                .findFirst()
                .orElseThrow();
        assertThat(t.state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(t.desired()).isEqualTo("on");
    }

    @Test
    void planModeIsAppliedFalsePlanOnlyWithTheDiff() {
        NodeFacts f = Facts.cpus(2).nic("eth0", "virtio_net", 1, 1, -1).build();
        Plan p = Planner.plan(spec().plan().desired(), f);
        NodeTuningStatus s = StatusBuilder.build(
                Passes.of(PassResult.Outcome.PLANNED, p, f, List.of(), false, null), null, 2, false, T0);
        assertThat(cond(s, Conditions.APPLIED).getReason()).isEqualTo(Conditions.PLAN_ONLY);
        NodeTuningStatus.Setting cc = s.settings().stream()
                .filter(x -> x.name().equals("sysctl/net.ipv4.tcp_congestion_control"))
                .findFirst()
                .orElseThrow();
        assertThat(cc.state()).isEqualTo(SettingState.PLANNED);
        assertThat(cc.actual()).isEqualTo("cubic");
        assertThat(cc.original()).isEqualTo("cubic");
        assertThat(cc.desired()).isEqualTo("bbr");
        assertThat(s.fingerprint()).isNull(); // nothing applied
    }

    @Test
    void sameResultLaterGivesAnEqualStatusSoNothingIsWritten() {
        NodeFacts f = Facts.cpus(2).nic("eth0", "virtio_net", 1, 1, -1).build();
        Plan p = Planner.plan(spec().desired(), f);
        PassResult first = applied(p, f);
        NodeTuningStatus s0 = StatusBuilder.build(first, null, 1, false, T0);
        PassResult quiet = Passes.of(PassResult.Outcome.APPLIED, first.plan(), f, List.of(), false, null);
        NodeTuningStatus s1 = StatusBuilder.build(quiet, s0, 1, false, T1);
        assertThat(s1).isEqualTo(s0);
    }

    @Test
    void driftIsRecordedAndCounted() {
        NodeFacts f = Facts.cpus(2).nic("eth0", "virtio_net", 1, 1, -1).build();
        Plan p = Planner.plan(spec().desired(), f);
        Setting cc = p.find("sysctl/net.ipv4.tcp_congestion_control").orElseThrow();
        PassResult r = Passes.of(PassResult.Outcome.APPLIED, p, f, List.of(cc), true, null);
        NodeTuningStatus s = StatusBuilder.build(r, null, 1, false, T0);
        NodeTuningStatus s2 = StatusBuilder.build(r, s, 1, false, T1);
        assertThat(s2.lastDrift().settings())
                .containsExactly("sysctl/net.ipv4.tcp_congestion_control: found cubic, want bbr");
        assertThat(s2.lastDrift().count()).isEqualTo(2L);
        assertThat(s2.lastDrift().detectedTime()).isEqualTo(T1.toString());
    }

    @Test
    void rolledBackPassNamesTheFailedSetting() {
        NodeFacts f = Facts.cpus(2).nic("eth0", "virtio_net", 1, 1, -1).build();
        Plan p = Planner.plan(spec().desired(), f);
        List<Setting> marked = p.settings().stream()
                .map(s -> s.name().equals("rps/eth0/rx-0")
                        ? s.with(SettingState.FAILED, s.current(), "write 3 to /sys/...: Invalid argument")
                        : s)
                .toList();
        PassResult r = Passes.of(
                PassResult.Outcome.ROLLED_BACK,
                new Plan(marked),
                f,
                List.of(),
                false,
                "rps/eth0/rx-0: write 3 to /sys/...: Invalid argument; the 2 change(s) of this pass were restored");
        NodeTuningStatus s = StatusBuilder.build(r, null, 5, false, T0);
        assertThat(cond(s, Conditions.APPLIED).getReason()).isEqualTo(Conditions.ROLLED_BACK);
        assertThat(cond(s, Conditions.DEGRADED).getMessage()).startsWith("failed: rps/eth0/rx-0 (write 3");
        assertThat(s.message()).contains("were restored");
    }

    @Test
    void anUnreadableJournalKeepsWhatTheLastPassesReported() {
        var traffic = new NodeTuningStatus.Traffic(T0.toString(), 60L, 2.5, 50.0, 0.0, 0.0, 0.1);
        var effect = new NodeTuningStatus.Effect(traffic, traffic);
        var drift = new NodeTuningStatus.Drift(T0.toString(), List.of("sysctl/vm.swappiness: found 30, want 0"), 1L);
        var prev = new NodeTuningStatus(3L, List.of(), "applied", "fp", T0.toString(), List.of(), null, drift, effect);

        NodeTuningStatus s = StatusBuilder.journalUnreadable(prev, 3L, "journal: not JSON", true, T1);

        assertThat(cond(s, Conditions.DEGRADED).getReason()).isEqualTo(Conditions.JOURNAL_UNREADABLE);
        assertThat(s.fingerprint()).isEqualTo("fp");
        assertThat(s.lastDrift()).isEqualTo(drift);
        assertThat(s.effect()).isEqualTo(effect);
    }
}
