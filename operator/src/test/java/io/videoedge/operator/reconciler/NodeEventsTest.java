package io.videoedge.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which Node updates bring the VideoEdges to look again: those that change what the operator reads of a Node. */
class NodeEventsTest {
    static NodeBuilder node() {
        return new NodeBuilder()
                .withNewMetadata()
                .withName("n1")
                .withLabels(Map.of("videoedge.io/role", "edge"))
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .withNewStatus()
                .withAllocatable(Map.of("cpu", new Quantity("4")))
                .endStatus();
    }

    @Test
    void aTaintAddedOrChangedIsReadLabelsAllocatableAndDeletionToo() {
        Node before = node().build();
        assertThat(VideoEdgeReconciler.readChanged(node().build(), before)).isFalse();
        assertThat(VideoEdgeReconciler.readChanged(
                        node().editSpec()
                                .withTaints(new Taint("NoSchedule", "dedicated", null, "video"))
                                .endSpec()
                                .build(),
                        before))
                .isTrue();
        assertThat(VideoEdgeReconciler.readChanged(
                        node().editMetadata().withLabels(Map.of()).endMetadata().build(), before))
                .isTrue();
        assertThat(VideoEdgeReconciler.readChanged(
                        node().editStatus()
                                .withAllocatable(Map.of("cpu", new Quantity("8")))
                                .endStatus()
                                .build(),
                        before))
                .isTrue();
        assertThat(VideoEdgeReconciler.readChanged(
                        node().editMetadata()
                                .withDeletionTimestamp("2026-12-07T00:00:00Z")
                                .endMetadata()
                                .build(),
                        before))
                .isTrue();
        assertThat(VideoEdgeReconciler.readChanged(
                        node().editMetadata()
                                .withResourceVersion("2")
                                .endMetadata()
                                .build(),
                        before))
                .as("a heartbeat-like update changes nothing read")
                .isFalse();
    }
}
