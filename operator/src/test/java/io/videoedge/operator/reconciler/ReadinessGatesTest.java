package io.videoedge.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.videoedge.api.Conditions;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningSpec;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.TuningMode;
import io.videoedge.api.TuningSpec;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.operator.render.Names;
import io.videoedge.operator.rollout.NodeDecision;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReadinessGatesTest {
    static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

    static Pod pod(String uid, PodCondition... conditions) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("edge-edge-server-a")
                .withUid(uid)
                .endMetadata()
                .withNewSpec()
                .withNodeName("a")
                .endSpec()
                .withNewStatus()
                .withPhase("Running")
                .withConditions(conditions)
                .endStatus()
                .build();
    }

    static NodeTuning tuning(String podUid, String appliedStatus, String reason) {
        return tuning(podUid, appliedStatus, reason, TuningMode.APPLY);
    }

    static NodeTuning tuning(String podUid, String appliedStatus, String reason, TuningMode mode) {
        NodeTuning nt = new NodeTuning();
        nt.getMetadata().setName("a");
        nt.getMetadata().setGeneration(2L);
        nt.setSpec(new NodeTuningSpec(
                new NodeTuningSpec.Source("video", "edge", "u"),
                null,
                new TuningSpec(mode, "bbr", null, null, null, null),
                new NodeTuningSpec.ServerPlacement(1, "video", "edge-edge-server-a", podUid)));
        nt.setStatus(new NodeTuningStatus(
                2L,
                List.of(new io.fabric8.kubernetes.api.model.ConditionBuilder()
                        .withType("Applied")
                        .withStatus(appliedStatus)
                        .withReason(reason)
                        .build()),
                null,
                null,
                null,
                null,
                null,
                null));
        return nt;
    }

    static PodCondition gate(Pod pod, NodeTuning nt) {
        return ReadinessGates.desired(pod, nt, null, NOW);
    }

    @Test
    void opensWhenTheNodeIsTunedAsItsNodeTuningAsksWithThisPod() {
        Pod pod = pod("p1");
        PodCondition c = gate(pod, tuning("p1", "True", "AsExpected"));
        assertThat(c.getType()).isEqualTo(VideoEdgeApi.READINESS_GATE_NODE_TUNED);
        assertThat(c.getStatus()).isEqualTo("True");
        assertThat(c.getReason()).isEqualTo(Conditions.AS_EXPECTED);
        assertThat(c.getLastTransitionTime()).isEqualTo(NOW.toString());
    }

    @Test
    void staysClosedWhileTheTuningNamesAnotherPod() {
        PodCondition c = gate(pod("p2"), tuning("p1", "True", "AsExpected"));
        assertThat(c.getStatus()).isEqualTo("False");
        assertThat(c.getMessage()).isEqualTo("waiting for the node's NodeTuning to name this pod");
    }

    @Test
    void staysClosedUntilApplied() {
        PodCondition c = gate(pod("p1"), tuning("p1", "False", "Applying"));
        assertThat(c.getStatus()).isEqualTo("False");
        assertThat(c.getReason()).isEqualTo(Conditions.NODE_NOT_TUNED);
    }

    @Test
    void planModeOpensOnAPlannedNodeOnlyInPlanMode() {
        PodCondition planned = gate(pod("p1"), tuning("p1", "False", "PlanOnly", TuningMode.PLAN));
        assertThat(planned.getStatus()).isEqualTo("True");
        assertThat(planned.getReason()).isEqualTo(Conditions.PLAN_ONLY);
        assertThat(gate(pod("p1"), tuning("p1", "False", "PlanOnly", TuningMode.APPLY))
                        .getStatus())
                .isEqualTo("False");
    }

    @Test
    void closesWhileTheRolloutDrainsThePodEvenOnATunedNode() {
        var draining = new NodeDecision(
                "a",
                null,
                "r2",
                null,
                NodeDecision.Phase.DRAINING,
                NodeDecision.PodAction.DRAIN,
                "draining its edge server before the restart");
        PodCondition c = ReadinessGates.desired(pod("p1"), tuning("p1", "True", "AsExpected"), draining, NOW);
        assertThat(c.getStatus()).isEqualTo("False");
        assertThat(c.getReason()).isEqualTo(Conditions.DRAINING);
        assertThat(c.getMessage()).contains("draining its edge server");
        var waiting = new NodeDecision(
                "a", null, "r1", null, NodeDecision.Phase.WAITING, NodeDecision.PodAction.NONE, "waiting");
        assertThat(ReadinessGates.desired(pod("p1"), tuning("p1", "True", "AsExpected"), waiting, NOW)
                        .getStatus())
                .isEqualTo("True");
    }

    @Test
    void closesWhileTheRolloutGivesTheNodeAnotherTuning() {
        NodeTuning applied = tuning("p1", "True", "AsExpected");
        applied.getMetadata().setAnnotations(java.util.Map.of(Names.TUNING_REVISION, "t1"));
        var turn = new NodeDecision(
                "a", null, "t2", null, NodeDecision.Phase.UPDATING, NodeDecision.PodAction.NONE, "in its turn");
        PodCondition c = ReadinessGates.desired(pod("p1"), applied, turn, NOW);
        assertThat(c.getStatus())
                .as("the status still reads Applied, for the tuning this pass replaces")
                .isEqualTo("False");
        assertThat(c.getReason()).isEqualTo(Conditions.NODE_NOT_TUNED);
        assertThat(c.getMessage()).contains("tuning revision t2");
        var same = new NodeDecision(
                "a", null, "t1", null, NodeDecision.Phase.UPDATING, NodeDecision.PodAction.NONE, "in its turn");
        assertThat(ReadinessGates.desired(pod("p1"), applied, same, NOW).getStatus())
                .as("its tuning applied")
                .isEqualTo("True");
    }

    @Test
    void keepsItsTransitionTimeAndIsNotRewrittenWhenUnchanged() {
        PodCondition first = gate(pod("p1"), tuning("p1", "True", "AsExpected"));
        first.setLastTransitionTime("2026-01-01T00:00:00Z");
        Pod withGate = pod("p1", first);
        PodCondition again = ReadinessGates.desired(withGate, tuning("p1", "True", "AsExpected"), null, NOW);
        assertThat(again.getLastTransitionTime()).isEqualTo("2026-01-01T00:00:00Z");
        assertThat(ReadinessGates.same(again, first)).isTrue();
    }
}
