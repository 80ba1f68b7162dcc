package io.videoedge.agent.metrics;

import static io.videoedge.agent.testing.Specs.spec;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.videoedge.agent.apply.PassResult;
import io.videoedge.agent.effect.EffectTracker;
import io.videoedge.agent.effect.TrafficCounters;
import io.videoedge.agent.facts.NodeFacts;
import io.videoedge.agent.plan.Plan;
import io.videoedge.agent.plan.Planner;
import io.videoedge.agent.plan.Setting;
import io.videoedge.agent.report.StatusBuilder;
import io.videoedge.agent.testing.Facts;
import io.videoedge.agent.testing.Passes;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.SettingState;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * videoedge_agent_condition{type}: what the chart's VideoEdgeNodeTuningDegraded alert reads. It follows the
 * conditions of the status the agent builds, so an Unsupported setting (the node cannot take it) degrades
 * the node as much as a Failed one does.
 */
class AgentMetricsTest {
    static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
    static final String APPLIED = "videoedge_agent_condition{type=\"Applied\"} ";
    static final String DEGRADED = "videoedge_agent_condition{type=\"Degraded\"} ";

    private static PassResult applied(Plan p, NodeFacts f) {
        return Passes.applied(p, f);
    }

    private static String scrape(AgentMetrics m) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        m.write(out);
        return out.toString();
    }

    @Test
    void bothConditionsAreZeroBeforeAnyNodeTuning() throws IOException {
        assertThat(scrape(new AgentMetrics())).contains(APPLIED + "0.0", DEGRADED + "0.0");
    }

    @Test
    void anUnsupportedSettingReportsDegradedWhileApplied() throws IOException {
        NodeFacts f = Facts.cpus(2).nic("eth0", "virtio_net", 1, 1, -1).build(); // no tls module on this node
        NodeTuningStatus s =
                StatusBuilder.build(applied(Planner.plan(spec().modules("tls").desired(), f), f), null, 1, false, T0);
        AgentMetrics m = new AgentMetrics();
        m.recordConditions(s.conditions());
        assertThat(scrape(m)).contains(APPLIED + "1.0", DEGRADED + "1.0");
    }

    @Test
    void aFailedPassIsNeitherAppliedNorHealthy() throws IOException {
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
                "rps/eth0/rx-0: write 3 to /sys/...: Invalid argument");
        AgentMetrics m = new AgentMetrics();
        m.recordConditions(StatusBuilder.build(r, null, 1, false, T0).conditions());
        assertThat(scrape(m)).contains(APPLIED + "0.0", DEGRADED + "1.0");
    }

    /** A pass that wrote and then could not undo all of it changed the node, but applied no change of the plan. */
    @Test
    void theLastApplyIsAPassThatAppliedAChangeNotOneThatRolledBackInPart() throws IOException {
        NodeFacts f = Facts.cpus(2).nic("eth0", "virtio_net", 1, 1, -1).build();
        Plan p = Planner.plan(spec().desired(), f);
        AgentMetrics m = new AgentMetrics();
        m.recordPass(
                Passes.of(PassResult.Outcome.ROLLBACK_INCOMPLETE, p, f, List.of(), true, "rps/eth0/rx-0: EIO"), T0);
        assertThat(scrape(m)).contains("videoedge_agent_last_apply_timestamp_seconds 0.0");
        assertThat(StatusBuilder.build(
                                Passes.of(PassResult.Outcome.ROLLBACK_INCOMPLETE, p, f, List.of(), true, "EIO"),
                                null,
                                1,
                                false,
                                T0)
                        .lastAppliedTime())
                .isNull();
        m.recordPass(Passes.of(PassResult.Outcome.APPLIED, p, f, List.of(), true, null), T0);
        assertThat(scrape(m))
                .contains("videoedge_agent_last_apply_timestamp_seconds ")
                .doesNotContain("videoedge_agent_last_apply_timestamp_seconds 0.0");
    }

    @Test
    void aCleanPassClearsDegradedAndARestoreClearsBoth() throws IOException {
        NodeFacts f = Facts.cpus(2)
                .nic("eth0", "virtio_net", 1, 1, -1)
                .congestionControls("reno", "cubic", "bbr")
                .build();
        NodeTuningStatus clean = StatusBuilder.build(applied(Planner.plan(spec().desired(), f), f), null, 1, false, T0);
        AgentMetrics m = new AgentMetrics();
        m.recordConditions(List.of(
                new ConditionBuilder().withType("Degraded").withStatus("True").build()));
        m.recordConditions(clean.conditions());
        assertThat(scrape(m)).contains(APPLIED + "1.0", DEGRADED + "0.0");
        m.recordRevert();
        assertThat(scrape(m)).contains(APPLIED + "0.0", DEGRADED + "0.0");
    }

    @Test
    void theNodesTrafficCountersAreReadAtTheScrapeAndTheEffectGoesIntoTheStatus() throws IOException {
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        TrafficCounters c = new TrafficCounters(500, 1200, 300, List.of(700L, 300L), 10_000, 2, 5, 8000, 40);
        AgentMetrics m = new AgentMetrics();
        m.traffic(() -> {
            reads.incrementAndGet();
            return java.util.Optional.of(c);
        });
        assertThat(scrape(m))
                .contains(
                        "videoedge_agent_tcp_memory_pages 1200.0",
                        "videoedge_agent_tcp_established_connections 300.0",
                        "videoedge_agent_net_rx_softirqs_total{cpu=\"0\"} 700.0",
                        "videoedge_agent_net_rx_softirqs_total{cpu=\"1\"} 300.0",
                        "videoedge_agent_softnet_dropped_total 2.0",
                        "videoedge_agent_softnet_time_squeezed_total 5.0",
                        "videoedge_agent_tcp_retransmitted_segments_total 40.0",
                        "videoedge_agent_tcp_sent_segments_total 8000.0");
        assertThat(reads).as("one read of /proc serves the whole scrape").hasValue(1);

        // a node without the files (a fake tree): no traffic series at all, not zeros
        AgentMetrics none = new AgentMetrics();
        none.traffic(java.util.Optional::empty);
        assertThat(scrape(none)).doesNotContain("videoedge_agent_tcp_memory_pages ", "net_rx_softirqs_total{");

        // the status: before (since boot, at the apply) and, a drift interval later, after
        NodeFacts f = Facts.cpus(2).nic("eth0", "virtio_net", 1, 1, -1).build();
        EffectTracker t = new EffectTracker(java.time.Duration.ofSeconds(54));
        t.record(c, true, T0);
        TrafficCounters later = new TrafficCounters(560, 300, 300, List.of(1200L, 800L), 20_000, 2, 5, 18_000, 40);
        EffectTracker.Effect e = t.record(later, false, T0.plusSeconds(60));
        NodeTuningStatus s = StatusBuilder.build(
                applied(Planner.plan(spec().desired(), f), f), null, 1, false, T0.plusSeconds(60), e);
        assertThat(s.effect().before())
                .isEqualTo(new NodeTuningStatus.Traffic("2026-01-01T10:00:00Z", 500L, 4.0, 70.0, 200.0, 500.0, 0.5));
        assertThat(s.effect().after())
                .isEqualTo(new NodeTuningStatus.Traffic("2026-01-01T10:01:00Z", 60L, 1.0, 50.0, 0.0, 0.0, 0.0));
        // as the API server stores it and the agent reads it back
        assertThat(io.fabric8.kubernetes.client.utils.Serialization.unmarshal(
                        io.fabric8.kubernetes.client.utils.Serialization.asJson(s), NodeTuningStatus.class))
                .isEqualTo(s);
        // a pass without counters keeps what the previous status had
        assertThat(StatusBuilder.build(applied(Planner.plan(spec().desired(), f), f), s, 1, false, T0, null)
                        .effect())
                .isEqualTo(s.effect());
    }
}
