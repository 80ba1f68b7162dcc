package io.videoedge.agent.effect;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The numbers of a window and the before-and-after the agent keeps. */
class TrafficWindowTest {
    static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");

    static TrafficCounters at(double uptime, long memPages, long estab, List<Long> netRx, long out, long retrans) {
        return new TrafficCounters(uptime, memPages, estab, netRx, 1_000_000L * (long) uptime, 0, 0, out, retrans);
    }

    @Test
    void numbersThatDoNotDependOnTheWindowsLength() {
        TrafficCounters a = new TrafficCounters(100, 10, 5, List.of(1000L, 1000L), 2_000_000, 4, 10, 10_000, 100);
        TrafficCounters b = new TrafficCounters(160, 3000, 200, List.of(10_000L, 1600L), 4_000_000, 6, 30, 30_000, 300);
        TrafficWindow w = TrafficWindow.between(a, b);
        assertThat(w.seconds()).isEqualTo(60);
        assertThat(w.tcpMemoryPagesPerConnection()).isEqualTo(15.0); // 3000 pages / 200 connections
        assertThat(w.netRxBusiestCpuPercent()).isEqualTo(93.8); // 9000 of 9600
        assertThat(w.softnetDropsPerMillion()).isEqualTo(1.0); // 2 of 2,000,000
        assertThat(w.timeSqueezesPerMillion()).isEqualTo(10.0);
        assertThat(w.tcpRetransmitPercent()).isEqualTo(1.0); // 200 of 20,000
    }

    @Test
    void nothingHappenedIsNullNotZero() {
        TrafficCounters a = new TrafficCounters(100, 0, 0, List.of(5L, 5L), 7, 0, 0, 9, 0);
        TrafficCounters b = new TrafficCounters(130, 0, 0, List.of(5L, 5L), 7, 0, 0, 9, 0);
        TrafficWindow w = TrafficWindow.between(a, b);
        assertThat(w.netRxBusiestCpuPercent()).isNull();
        assertThat(w.softnetDropsPerMillion()).isNull();
        assertThat(w.tcpRetransmitPercent()).isNull();
        assertThat(w.tcpMemoryPagesPerConnection()).isEqualTo(0.0);
    }

    @Test
    void countersThatWentBackwardsMeanAReboot() {
        TrafficCounters before = new TrafficCounters(5000, 10, 5, List.of(900L, 900L), 9000, 0, 0, 9000, 90);
        TrafficCounters after = new TrafficCounters(60, 10, 5, List.of(300L, 100L), 1000, 0, 0, 1000, 10);
        TrafficWindow w = TrafficWindow.between(before, after);
        assertThat(w.seconds()).isEqualTo(60);
        assertThat(w.netRxBusiestCpuPercent()).isEqualTo(75.0);
        assertThat(w.tcpRetransmitPercent()).isEqualTo(1.0);
    }

    @Test
    void beforeEndsAtTheApplyAndAfterIsTheFirstLongEnoughWindowAfterIt() {
        EffectTracker t = new EffectTracker(Duration.ofSeconds(54));
        // the agent starts and applies at once: before is since boot
        TrafficCounters start = at(1000, 100, 10, List.of(9000L, 1000L), 10_000, 100);
        EffectTracker.Effect e = t.record(start, true, T0);
        assertThat(e.before().traffic().seconds()).isEqualTo(1000);
        assertThat(e.before().traffic().netRxBusiestCpuPercent()).isEqualTo(90.0);
        assertThat(e.before().end()).isEqualTo(T0);
        assertThat(e.after()).isNull();
        // its own status write brings a pass a second later: too short for after
        assertThat(t.record(at(1001, 100, 10, List.of(9001L, 1001L), 10_010, 100), false, T0.plusSeconds(1))
                        .after())
                .isNull();
        // the drift check a minute later: after, from the apply
        EffectTracker.Effect later =
                t.record(at(1060, 20, 10, List.of(9500L, 1500L), 20_000, 100), false, T0.plusSeconds(60));
        assertThat(later.before()).isEqualTo(e.before());
        assertThat(later.after().traffic().seconds()).isEqualTo(60);
        assertThat(later.after().traffic().netRxBusiestCpuPercent()).isEqualTo(50.0);
        assertThat(later.after().traffic().tcpMemoryPagesPerConnection()).isEqualTo(2.0);
        assertThat(later.after().traffic().tcpRetransmitPercent()).isEqualTo(0.0);
        // later checks change nothing: the status stays as it is
        assertThat(t.record(at(1120, 50, 10, List.of(9900L, 1900L), 30_000, 500), false, T0.plusSeconds(120)))
                .isEqualTo(later);
        // a new spec applied: before is the window since the last sample at least 54 s old
        EffectTracker.Effect next =
                t.record(at(1200, 50, 10, List.of(10_900L, 1900L), 40_000, 600), true, T0.plusSeconds(200));
        assertThat(next.before().traffic().seconds()).isEqualTo(80);
        assertThat(next.before().traffic().netRxBusiestCpuPercent()).isEqualTo(100.0);
        assertThat(next.after()).isNull();
    }

    @Test
    void aChangeSoonAfterADriftCheckStillHasAWindowBeforeItAtLeastMinAfterLong() {
        EffectTracker t = new EffectTracker(Duration.ofSeconds(54));
        // the agent starts with nothing to change, then checks for drift a minute later
        assertThat(t.record(at(1000, 100, 10, List.of(9000L, 1000L), 10_000, 100), false, T0))
                .isNull();
        assertThat(t.record(at(1060, 100, 10, List.of(9600L, 1400L), 20_000, 100), false, T0.plusSeconds(60)))
                .isNull();
        // a new spec 5 s after that check: before goes back to the sample a minute older, not 5 s
        EffectTracker.Effect e =
                t.record(at(1065, 100, 10, List.of(9650L, 1450L), 21_000, 100), true, T0.plusSeconds(65));
        assertThat(e.before().traffic().seconds()).isEqualTo(65);
        // and another change 10 s after that one: the node had the first one for 10 s, and that is all
        // the window says (nothing from before the first change)
        EffectTracker.Effect again =
                t.record(at(1075, 100, 10, List.of(9700L, 1500L), 22_000, 100), true, T0.plusSeconds(75));
        assertThat(again.before().traffic().seconds()).isEqualTo(10);
        assertThat(again.before().traffic().netRxBusiestCpuPercent()).isEqualTo(50.0);
    }
}
