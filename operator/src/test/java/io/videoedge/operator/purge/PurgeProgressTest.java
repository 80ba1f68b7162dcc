package io.videoedge.operator.purge;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.videoedge.api.CachePurge;
import io.videoedge.api.CachePurgeStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PurgeProgressTest {
    static final Instant T0 = Instant.parse("2026-11-24T12:00:00Z");
    static final Instant DEADLINE = T0.plusSeconds(600);

    static PurgeProgress.Ack ack() {
        return new PurgeProgress.Ack(T0, 1, 2, 0);
    }

    /** Applied after the deadline. */
    static PurgeProgress.Ack lateAck() {
        return new PurgeProgress.Ack(DEADLINE.plusSeconds(3600), 1, 2, 0);
    }

    static List<String> outcomes(PurgeProgress.Decision d) {
        return d.transitions().stream().map(PurgeProgress.Transition::outcome).toList();
    }

    static Condition condition(CachePurgeStatus s, String type) {
        return s.conditions().stream()
                .filter(c -> c.getType().equals(type))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void callsTheNodesThatHaveNotAcknowledgedBeforeAndAfterTheDeadlineUntilComplete() {
        Set<String> targets = Set.of("a", "b", "c");
        assertThat(PurgeProgress.toCall(null, targets, Map.of("b", ack()))).containsExactly("a", "c");
        var failed = PurgeProgress.decide(1, null, targets, Map.of("b", ack()), Map.of(), DEADLINE, DEADLINE);
        assertThat(PurgeProgress.isFinal(failed.status())).isFalse();
        assertThat(PurgeProgress.toCall(failed.status(), targets, Map.of("b", ack())))
                .as("past the deadline the pending nodes are still called")
                .containsExactly("a", "c");
        var complete = PurgeProgress.decide(
                1,
                failed.status(),
                targets,
                Map.of("a", lateAck(), "b", ack(), "c", lateAck()),
                Map.of(),
                DEADLINE,
                DEADLINE);
        assertThat(PurgeProgress.toCall(complete.status(), targets, Map.of())).isEmpty();
    }

    @Test
    void isPendingWhileNodesHaveNotAcknowledgedAndRetriesSoon() {
        var d = PurgeProgress.decide(
                1,
                null,
                Set.of("a", "b"),
                Map.of("a", ack()),
                Map.of("b", new PurgeProgress.Attempt(T0, CachePurge.UNREACHABLE, "connection refused")),
                T0,
                DEADLINE);
        assertThat(d.isFinal()).isFalse();
        assertThat(d.transitions()).isEmpty();
        assertThat(d.recheck()).isEqualTo(PurgeProgress.RETRY);
        assertThat(d.status().acknowledged()).isEqualTo("1/2");
        assertThat(d.status().pending()).singleElement().satisfies(p -> {
            assertThat(p.node()).isEqualTo("b");
            assertThat(p.reason()).isEqualTo(CachePurge.UNREACHABLE);
            assertThat(p.lastAttempt()).isEqualTo(T0.toString());
        });
        assertThat(condition(d.status(), CachePurge.COMPLETE).getStatus()).isEqualTo("False");
        assertThat(condition(d.status(), CachePurge.COMPLETE).getReason()).isEqualTo(CachePurge.PENDING);
        assertThat(condition(d.status(), CachePurge.FAILED).getStatus()).isEqualTo("False");
        assertThat(d.status().deadline()).isEqualTo(DEADLINE.toString());
    }

    @Test
    void looksAgainAtTheDeadlineWhenItIsCloserThanTheRetry() {
        var d = PurgeProgress.decide(1, null, Set.of("a"), Map.of(), Map.of(), DEADLINE.minusSeconds(1), DEADLINE);
        assertThat(d.recheck()).isLessThan(PurgeProgress.RETRY).isGreaterThan(Duration.ofMillis(999));
    }

    @Test
    void isCompleteWhenEveryNodeAcknowledgedAndSumsWhatTheyRemoved() {
        var d = PurgeProgress.decide(1, null, Set.of("a", "b"), Map.of("a", ack(), "b", ack()), Map.of(), T0, DEADLINE);
        assertThat(d.isFinal()).isTrue();
        assertThat(outcomes(d)).containsExactly("complete");
        assertThat(d.transitions().getFirst().eventReason()).isEqualTo("Purged");
        assertThat(d.status().removed()).isEqualTo(new CachePurgeStatus.Removed(2, 4, 0));
        assertThat(d.status().missedDeadline()).isNull();
        assertThat(d.status().acknowledgedLate()).isNull();
        assertThat(condition(d.status(), CachePurge.COMPLETE).getReason()).isEqualTo(CachePurge.ALL_ACKNOWLEDGED);
        assertThat(d.status().pending()).isNull();
        assertThat(condition(d.status(), CachePurge.COMPLETE).getStatus()).isEqualTo("True");
        assertThat(PurgeProgress.isFinal(d.status())).isTrue();
    }

    @Test
    void failsAtTheDeadlineNamingThePendingNodesAndKeepsCallingThemSlowly() {
        var d = PurgeProgress.decide(1, null, Set.of("a", "b"), Map.of("a", ack()), Map.of(), DEADLINE, DEADLINE);
        assertThat(outcomes(d)).containsExactly("failed");
        assertThat(d.transitions().getFirst().eventReason()).isEqualTo("PurgeFailed");
        assertThat(d.isFinal()).as("not final: b is still called").isFalse();
        assertThat(d.recheck()).isEqualTo(PurgeProgress.LATE_RETRY);
        Condition failed = condition(d.status(), CachePurge.FAILED);
        assertThat(failed.getStatus()).isEqualTo("True");
        assertThat(failed.getReason()).isEqualTo(CachePurge.DEADLINE_EXCEEDED);
        assertThat(failed.getMessage()).contains("1 of 2 nodes", "b", "when it is back");
        assertThat(condition(d.status(), CachePurge.COMPLETE).getStatus()).isEqualTo("False");
        assertThat(condition(d.status(), CachePurge.COMPLETE).getMessage()).contains("1 of 2", "every 60 s");
        assertThat(d.status().missedDeadline()).isEqualTo(1);
        assertThat(d.status().acknowledgedLate()).isZero();
        assertThat(d.status().pending())
                .singleElement()
                .satisfies(p -> assertThat(p.reason()).isEqualTo(CachePurge.NOT_TRIED));

        // still pending an hour later: the same record, nothing new to tell
        var still = PurgeProgress.decide(
                1, d.status(), Set.of("a", "b"), Map.of("a", ack()), Map.of(), DEADLINE.plusSeconds(3600), DEADLINE);
        assertThat(still.transitions()).isEmpty();
        assertThat(still.status()).isEqualTo(d.status());
    }

    @Test
    void aNodeThatAcknowledgesAfterTheDeadlineCompletesItLateAndTheFailureStaysOnRecord() {
        var failed = PurgeProgress.decide(1, null, Set.of("a", "b"), Map.of("a", ack()), Map.of(), DEADLINE, DEADLINE);
        Instant back = DEADLINE.plusSeconds(3600);
        var late = PurgeProgress.decide(
                1, failed.status(), Set.of("a", "b"), Map.of("a", ack(), "b", lateAck()), Map.of(), back, DEADLINE);
        assertThat(late.isFinal()).isTrue();
        assertThat(outcomes(late)).containsExactly("complete_after_deadline");
        assertThat(late.transitions().getFirst().eventReason()).isEqualTo("PurgedAfterDeadline");
        Condition complete = condition(late.status(), CachePurge.COMPLETE);
        assertThat(complete.getStatus()).isEqualTo("True");
        assertThat(complete.getReason()).isEqualTo(CachePurge.ACKNOWLEDGED_AFTER_DEADLINE);
        assertThat(complete.getMessage()).contains("all 2 nodes", "1 of them after the deadline");
        assertThat(condition(late.status(), CachePurge.FAILED))
                .as("the record that the deadline was missed, as written then")
                .isEqualTo(condition(failed.status(), CachePurge.FAILED));
        assertThat(late.status().missedDeadline()).isEqualTo(1);
        assertThat(late.status().acknowledgedLate()).isEqualTo(1);
        assertThat(late.status().acknowledged()).isEqualTo("2/2");
        assertThat(late.status().pending()).isNull();
        assertThat(PurgeProgress.isFinal(late.status())).isTrue();

        // final: nothing more
        var after = PurgeProgress.decide(
                1, late.status(), Set.of("a", "b", "c"), Map.of(), Map.of(), back.plusSeconds(60), DEADLINE);
        assertThat(after.status()).isSameAs(late.status());
        assertThat(after.transitions()).isEmpty();
        assertThat(PurgeProgress.toCall(late.status(), Set.of("c"), Map.of())).isEmpty();
    }

    @Test
    void afterAnOperatorRestartPastTheDeadlineTheNodesTimesTellOnTimeFromLate() {
        // the operator was down over the deadline: its first pass finds a applied on time, b late, c not at all
        var d = PurgeProgress.decide(
                1,
                null,
                Set.of("a", "b", "c"),
                Map.of("a", ack(), "b", lateAck()),
                Map.of(),
                DEADLINE.plusSeconds(7200),
                DEADLINE);
        assertThat(outcomes(d)).containsExactly("failed");
        assertThat(d.status().missedDeadline())
                .as("b and c had not applied it by the deadline")
                .isEqualTo(2);
        assertThat(d.status().acknowledgedLate()).isEqualTo(1);
        assertThat(condition(d.status(), CachePurge.FAILED).getMessage()).contains("2 of 3", "b, c");

        // and when all had it, late: both transitions in one pass
        var both = PurgeProgress.decide(
                1,
                null,
                Set.of("a", "b"),
                Map.of("a", ack(), "b", lateAck()),
                Map.of(),
                DEADLINE.plusSeconds(7200),
                DEADLINE);
        assertThat(outcomes(both)).containsExactly("failed", "complete_after_deadline");
        assertThat(condition(both.status(), CachePurge.FAILED).getStatus()).isEqualTo("True");
        assertThat(condition(both.status(), CachePurge.COMPLETE).getReason())
                .isEqualTo(CachePurge.ACKNOWLEDGED_AFTER_DEADLINE);

        // every node applied it by the deadline, the operator only learns it after: Complete on time
        var onTime = PurgeProgress.decide(
                1,
                null,
                Set.of("a", "b"),
                Map.of("a", ack(), "b", ack()),
                Map.of(),
                DEADLINE.plusSeconds(7200),
                DEADLINE);
        assertThat(outcomes(onTime)).containsExactly("complete");
        assertThat(condition(onTime.status(), CachePurge.FAILED).getStatus()).isEqualTo("False");
    }

    @Test
    void aStatusWrittenBeforeLateCallsExistedIsTakenUpAndCounted() {
        // Failed=True DeadlineExceeded without missedDeadline, as the previous operator version wrote it
        var old = PurgeProgress.decide(1, null, Set.of("a", "b"), Map.of("a", ack()), Map.of(), DEADLINE, DEADLINE);
        CachePurgeStatus s = old.status();
        CachePurgeStatus written = new CachePurgeStatus(
                s.observedGeneration(),
                s.conditions(),
                s.deadline(),
                s.targeted(),
                s.acknowledgedNodes(),
                s.pendingNodes(),
                s.acknowledged(),
                s.removed(),
                s.pending(),
                null,
                null);
        assertThat(PurgeProgress.isFinal(written)).isFalse();
        var d = PurgeProgress.decide(
                1, written, Set.of("a", "b"), Map.of("a", ack()), Map.of(), DEADLINE.plusSeconds(60), DEADLINE);
        assertThat(d.transitions()).as("the deadline was recorded already").isEmpty();
        assertThat(d.status().missedDeadline()).isEqualTo(1);
    }

    @Test
    void aVideoEdgeWithoutNodesAtTheDeadlineFailsAndANodeThatJoinsLaterCompletesIt() {
        var d = PurgeProgress.decide(1, null, Set.of(), Map.of(), Map.of(), DEADLINE, DEADLINE);
        assertThat(outcomes(d)).containsExactly("failed");
        assertThat(condition(d.status(), CachePurge.FAILED).getMessage()).contains("had no nodes");
        assertThat(d.recheck()).isEqualTo(PurgeProgress.LATE_RETRY);
        var joined = PurgeProgress.decide(
                1, d.status(), Set.of("a"), Map.of("a", lateAck()), Map.of(), DEADLINE.plusSeconds(60), DEADLINE);
        assertThat(outcomes(joined)).containsExactly("complete_after_deadline");
    }

    @Test
    void theStatusStaysBoundedForAThousandNodes() {
        Set<String> targets = IntStream.range(0, 1000)
                .mapToObj(i -> "node-%04d".formatted(i))
                .collect(Collectors.toCollection(TreeSet::new));
        Map<String, PurgeProgress.Ack> acks = new HashMap<>();
        targets.stream().limit(900).forEach(n -> acks.put(n, ack()));
        var d = PurgeProgress.decide(1, null, targets, acks, Map.of(), T0, DEADLINE);
        assertThat(d.status().pending()).hasSize(CachePurgeStatus.MAX_PENDING_LISTED);
        assertThat(d.status().pendingNodes()).isEqualTo(100);
        assertThat(d.status().acknowledged()).isEqualTo("900/1000");
        assertThat(condition(d.status(), CachePurge.COMPLETE).getMessage()).contains("and 95 more");
    }

    @Test
    void keepsTheTransitionTimeWhileAConditionDoesNotChange() {
        var first = PurgeProgress.decide(1, null, Set.of("a"), Map.of(), Map.of(), T0, DEADLINE);
        var second =
                PurgeProgress.decide(1, first.status(), Set.of("a"), Map.of(), Map.of(), T0.plusSeconds(30), DEADLINE);
        assertThat(condition(second.status(), CachePurge.COMPLETE).getLastTransitionTime())
                .isEqualTo(condition(first.status(), CachePurge.COMPLETE).getLastTransitionTime());
        assertThat(second.status()).isEqualTo(first.status());
    }

    @Test
    void aMissingVideoEdgeFailsAtOnceAndForGood() {
        var d = PurgeProgress.videoEdgeMissing(1, null, "edge", T0, DEADLINE);
        assertThat(outcomes(d)).containsExactly("failed");
        assertThat(d.isFinal()).isTrue();
        assertThat(condition(d.status(), CachePurge.FAILED).getReason()).isEqualTo(CachePurge.VIDEO_EDGE_NOT_FOUND);
        assertThat(PurgeProgress.isFinal(d.status())).isTrue();
        assertThat(PurgeProgress.toCall(d.status(), Set.of("a"), Map.of())).isEmpty();
    }
}
