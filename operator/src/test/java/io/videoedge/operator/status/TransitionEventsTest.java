package io.videoedge.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.api.Conditions;
import io.videoedge.api.VideoEdgeStatus;
import org.junit.jupiter.api.Test;

class TransitionEventsTest {
  static VideoEdgeStatus ready() {
    return new StatusAggregator(StatusAggregatorTest.ve(1), StatusAggregatorTest.T0)
        .node(StatusAggregatorTest.tunedAndServing("a"), true).build(null);
  }

  static VideoEdgeStatus notTuned() {
    return new StatusAggregator(StatusAggregatorTest.ve(1), StatusAggregatorTest.T0)
        .node(StatusAggregatorTest.tunedAndServing("a"), true)
        .notReady(Conditions.TUNING_APPLIED, Conditions.NODE_NOT_TUNED, "not tuned on b").build(null);
  }

  static VideoEdgeStatus conflict() {
    return new StatusAggregator(StatusAggregatorTest.ve(1), StatusAggregatorTest.T0)
        .node(StatusAggregatorTest.tunedAndServing("a"), true)
        .warning(Conditions.CONFLICT, "node c ...").build(null);
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
        .containsExactly(new TransitionEvents.Notice("Normal", "Recovered", "no longer degraded (was Conflict)"));
  }
}
