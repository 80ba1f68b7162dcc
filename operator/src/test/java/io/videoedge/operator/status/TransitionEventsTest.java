package io.videoedge.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.api.Conditions;
import io.videoedge.api.VideoEdgeStatus;
import io.videoedge.operator.rollout.NodeDecision;
import io.videoedge.operator.rollout.RolloutPlan;
import io.videoedge.operator.rollout.RolloutPolicy;
import io.videoedge.operator.rollout.RolloutTarget;
import java.time.Duration;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class TransitionEventsTest {
    static VideoEdgeStatus ready() {
        return new StatusAggregator(StatusAggregatorTest.ve(1), StatusAggregatorTest.T0)
                .node(StatusAggregatorTest.tunedAndServing("a"), true)
                .build(null);
    }

    static VideoEdgeStatus notTuned() {
        return new StatusAggregator(StatusAggregatorTest.ve(1), StatusAggregatorTest.T0)
                .node(StatusAggregatorTest.tunedAndServing("a"), true)
                .notReady(Conditions.TUNING_APPLIED, Conditions.NODE_NOT_TUNED, "not tuned on b")
                .build(null);
    }

    static VideoEdgeStatus conflict() {
        return new StatusAggregator(StatusAggregatorTest.ve(1), StatusAggregatorTest.T0)
                .node(StatusAggregatorTest.tunedAndServing("a"), true)
                .warning(Conditions.CONFLICT, "node c ...")
                .build(null);
    }

    @Test
    void becomingReadyIsNormalAndLosingItAWarningWithTheReason() {
        assertThat(TransitionEvents.between(notTuned(), ready()))
                .containsExactly(new TransitionEvents.Notice("Normal", "Ready", "serving on 1/1 nodes"));
        assertThat(TransitionEvents.between(ready(), notTuned()))
                .containsExactly(new TransitionEvents.Notice("Warning", Conditions.NODE_NOT_TUNED, "not tuned on b"));
    }

    @Test
    void nothingWhenNothingChanged() {
        assertThat(TransitionEvents.between(ready(), ready())).isEmpty();
        assertThat(TransitionEvents.between(conflict(), conflict())).isEmpty();
        // a first status that is not ready yet is the normal start, not news
        assertThat(TransitionEvents.between(null, notTuned())).isEmpty();
    }

    @Test
    void degradedAndRecoveredAreAnnounced() {
        assertThat(TransitionEvents.between(ready(), conflict()))
                .containsExactly(new TransitionEvents.Notice("Warning", Conditions.CONFLICT, "node c ..."));
        assertThat(TransitionEvents.between(conflict(), ready()))
                .containsExactly(
                        new TransitionEvents.Notice("Normal", "Recovered", "no longer degraded (was Conflict)"));
    }

    /** A status whose rollout is complete, progressing (n2 in its turn) or paused (n2 failed). */
    static VideoEdgeStatus rollout(NodeDecision.Phase n2) {
        var target = new RolloutTarget(null, "t1", "p1");
        var policy = new RolloutPolicy(1, Duration.ofSeconds(600), Duration.ofSeconds(10), true, Duration.ofSeconds(5));
        var nodes = new TreeMap<String, NodeDecision>();
        nodes.put(
                "n1",
                new NodeDecision(
                        "n1", null, "t1", null, NodeDecision.Phase.UPDATED, NodeDecision.PodAction.NONE, null));
        nodes.put("n2", new NodeDecision("n2", null, "t1", null, n2, NodeDecision.PodAction.NONE, null));
        boolean paused = n2 == NodeDecision.Phase.REVERTED;
        var plan = new RolloutPlan(
                target,
                policy,
                nodes,
                paused ? "n2" : null,
                paused ? "agent reports Failed" : null,
                false,
                List.of(),
                List.of());
        StatusAggregator a = new StatusAggregator(StatusAggregatorTest.ve(1), StatusAggregatorTest.T0)
                .node(StatusAggregatorTest.tunedAndServing("n1"), true)
                .rollout(plan);
        if (paused) {
            a.warning(Conditions.ROLLOUT_PAUSED, "rollout paused: node n2 failed");
        }
        return a.build(null);
    }

    @Test
    void aRolloutStartingAndCompletingIsAnnouncedAndAPauseOnlyOnceByTheRolloutItself() {
        VideoEdgeStatus complete = rollout(NodeDecision.Phase.UPDATED);
        VideoEdgeStatus progressing = rollout(NodeDecision.Phase.UPDATING);
        assertThat(TransitionEvents.between(complete, progressing))
                .extracting(TransitionEvents.Notice::reason)
                .containsExactly("RolloutStarted");
        assertThat(TransitionEvents.between(progressing, complete))
                .extracting(TransitionEvents.Notice::reason)
                .contains(Conditions.ROLLOUT_COMPLETE);
        // the rollout records its own Warning naming the node and the revert: the Degraded transition adds none
        assertThat(TransitionEvents.between(progressing, rollout(NodeDecision.Phase.REVERTED)))
                .extracting(TransitionEvents.Notice::reason)
                .doesNotContain(Conditions.ROLLOUT_PAUSED);
    }
}
