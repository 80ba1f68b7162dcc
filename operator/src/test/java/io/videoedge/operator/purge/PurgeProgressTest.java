package io.videoedge.operator.purge;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.videoedge.api.CachePurge;
import io.videoedge.api.CachePurgeStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
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

    static Condition condition(CachePurgeStatus s, String type) {
        return s.conditions().stream()
                .filter(c -> c.getType().equals(type))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void callsTheNodesThatHaveNotAcknowledgedUntilTheDeadline() {
        Set<String> targets = Set.of("a", "b", "c");
        assertThat(PurgeProgress.toCall(null, targets, Map.of("b", ack()), T0, DEADLINE))
                .containsExactly("a", "c");
        assertThat(PurgeProgress.toCall(null, targets, Map.of(), DEADLINE, DEADLINE))
                .isEmpty();
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
        assertThat(d.finalNow()).isNull();
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
        assertThat(d.finalNow()).isEqualTo(CachePurge.COMPLETE);
        assertThat(d.status().removed()).isEqualTo(new CachePurgeStatus.Removed(2, 4, 0));
        assertThat(d.status().pending()).isNull();
        assertThat(condition(d.status(), CachePurge.COMPLETE).getStatus()).isEqualTo("True");
        assertThat(PurgeProgress.isFinal(d.status())).isTrue();
    }

    @Test
    void failsAtTheDeadlineNamingThePendingNodesAndStaysFinal() {
        var d = PurgeProgress.decide(1, null, Set.of("a", "b"), Map.of("a", ack()), Map.of(), DEADLINE, DEADLINE);
        assertThat(d.finalNow()).isEqualTo(CachePurge.FAILED);
        Condition failed = condition(d.status(), CachePurge.FAILED);
        assertThat(failed.getStatus()).isEqualTo("True");
        assertThat(failed.getReason()).isEqualTo(CachePurge.DEADLINE_EXCEEDED);
        assertThat(failed.getMessage()).contains("1 of 2 nodes", "b");
        assertThat(d.status().pending())
                .singleElement()
                .satisfies(p -> assertThat(p.reason()).isEqualTo(CachePurge.NOT_TRIED));

        // final: a later acknowledgement changes nothing, no more calls, no new event
        var later = PurgeProgress.decide(
                1,
                d.status(),
                Set.of("a", "b"),
                Map.of("a", ack(), "b", ack()),
                Map.of(),
                DEADLINE.plusSeconds(5),
                DEADLINE);
        assertThat(later.status()).isSameAs(d.status());
        assertThat(later.finalNow()).isNull();
        assertThat(PurgeProgress.toCall(d.status(), Set.of("b"), Map.of(), T0, DEADLINE))
                .isEmpty();
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
    void aMissingVideoEdgeFailsAtOnce() {
        var d = PurgeProgress.videoEdgeMissing(1, null, "edge", T0, DEADLINE);
        assertThat(d.finalNow()).isEqualTo(CachePurge.FAILED);
        assertThat(condition(d.status(), CachePurge.FAILED).getReason()).isEqualTo(CachePurge.VIDEO_EDGE_NOT_FOUND);
    }
}
