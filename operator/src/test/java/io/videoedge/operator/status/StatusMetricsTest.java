package io.videoedge.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusMetricsTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final StatusMetrics metrics = new StatusMetrics(registry);

    @Test
    void gaugesFollowTheLatestStatusAndGoWithTheVideoEdge() {
        VideoEdge ve = videoEdge("ns", "edge");
        metrics.record(ve, status(3, 2, 1, "False"));
        assertThat(nodes("selected")).isEqualTo(3);
        assertThat(nodes("tuned")).isEqualTo(2);
        assertThat(nodes("serving")).isEqualTo(1);
        assertThat(nodes("attention")).isEqualTo(2);
        assertThat(nodes("planned")).isEqualTo(1);
        assertThat(nodes("stalled")).isEqualTo(2);
        assertThat(ready()).isZero();

        metrics.record(ve, status(3, 3, 3, "True"));
        assertThat(nodes("serving")).isEqualTo(3);
        assertThat(ready()).isEqualTo(1);
        assertThat(registry.find("videoedge.nodes").gauges()).hasSize(7);

        metrics.remove(ve);
        assertThat(registry.find("videoedge.nodes").gauges()).isEmpty();
        assertThat(registry.find("videoedge.condition").gauges()).isEmpty();
    }

    @Test
    void theBlockedGaugeFollowsTheProgressingReason() {
        VideoEdge ve = videoEdge("ns", "edge");
        metrics.record(ve, progressing("True", "RollingOut"));
        assertThat(blocked()).isZero();
        metrics.record(ve, progressing("False", "RolloutBlocked"));
        assertThat(blocked()).isEqualTo(1);
        metrics.record(ve, progressing("False", "RolloutPaused"));
        assertThat(blocked()).isZero();
    }

    private double blocked() {
        return registry.get("videoedge.rollout.blocked").gauge().value();
    }

    private static VideoEdgeStatus progressing(String status, String reason) {
        return new VideoEdgeStatus(
                1L,
                List.of(new ConditionBuilder()
                        .withType("Progressing")
                        .withStatus(status)
                        .withReason(reason)
                        .build()),
                null,
                null,
                null,
                null,
                null,
                null,
                List.of());
    }

    @Test
    void aStatusWithoutCountsReadsAsZero() {
        metrics.record(
                videoEdge("ns", "new"), new VideoEdgeStatus(null, null, null, null, null, null, null, null, null));
        assertThat(nodes("selected")).isZero();
        assertThat(ready()).isZero();
    }

    private double nodes(String state) {
        return registry.get("videoedge.nodes").tag("state", state).gauge().value();
    }

    private double ready() {
        return registry.get("videoedge.condition").tag("type", "Ready").gauge().value();
    }

    private static VideoEdgeStatus status(int selected, int tuned, int serving, String ready) {
        return new VideoEdgeStatus(
                1L,
                List.of(new ConditionBuilder()
                        .withType("Ready")
                        .withStatus(ready)
                        .build()),
                new VideoEdgeStatus.NodeCounts(
                        selected, tuned, serving, serving, selected - serving, selected - tuned, selected - serving),
                tuned + "/" + selected,
                serving + "/" + selected,
                serving + "/" + selected,
                null,
                null,
                List.of());
    }

    private static VideoEdge videoEdge(String namespace, String name) {
        VideoEdge ve = new VideoEdge();
        ve.getMetadata().setNamespace(namespace);
        ve.getMetadata().setName(name);
        return ve;
    }
}
