package io.videoedge.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.videoedge.api.VideoEdgeStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusPacingTest {
    static final Instant T0 = Instant.parse("2026-11-24T12:00:00Z");
    final StatusPacing pacing = new StatusPacing(Duration.ofSeconds(1));

    static VideoEdgeStatus status(long generation, String readyStatus, String readyReason, int serving, String state) {
        Condition ready = new ConditionBuilder()
                .withType("Ready")
                .withStatus(readyStatus)
                .withReason(readyReason)
                .withMessage("serving " + serving) // messages move with the counts: not a transition
                .build();
        return new VideoEdgeStatus(
                generation,
                List.of(ready),
                new VideoEdgeStatus.NodeCounts(100, 100, serving, 100, 100 - serving, 0, 0),
                "100/100",
                serving + "/100",
                "100/100",
                "openssl",
                new VideoEdgeStatus.Rollout("r1", state, 10, 0, 0, 10, "rolling"),
                List.of());
    }

    @Test
    void movedCountsWaitForTheRestOfTheInterval() {
        var before = status(2, "False", "RolloutInProgress", 90, "Progressing");
        var after = status(2, "False", "RolloutInProgress", 91, "Progressing");
        assertThat(pacing.defer(before, after, T0, T0.plusMillis(300))).contains(Duration.ofMillis(700));
        assertThat(pacing.defer(before, after, T0, T0.plusMillis(1000))).isEmpty();
        assertThat(pacing.defer(before, after, T0, T0.plusSeconds(5))).isEmpty();
    }

    @Test
    void aTransitionIsWrittenAtOnce() {
        var before = status(2, "False", "RolloutInProgress", 99, "Progressing");
        Instant soon = T0.plusMillis(10);
        assertThat(pacing.defer(before, status(2, "True", "AsExpected", 100, "Progressing"), T0, soon))
                .as("a condition's status")
                .isEmpty();
        assertThat(pacing.defer(before, status(2, "False", "RolloutPaused", 99, "Progressing"), T0, soon))
                .as("a condition's reason")
                .isEmpty();
        assertThat(pacing.defer(before, status(3, "False", "RolloutInProgress", 99, "Progressing"), T0, soon))
                .as("a new generation")
                .isEmpty();
        assertThat(pacing.defer(before, status(2, "False", "RolloutInProgress", 99, "Complete"), T0, soon))
                .as("the rollout's state")
                .isEmpty();
    }

    @Test
    void theFirstWriteSinceTheOperatorStartedIsNotDeferred() {
        var after = status(2, "False", "RolloutInProgress", 91, "Progressing");
        assertThat(pacing.defer(status(2, "False", "RolloutInProgress", 90, "Progressing"), after, null, T0))
                .isEmpty();
        assertThat(pacing.defer(null, after, T0, T0)).isEmpty();
    }
}
