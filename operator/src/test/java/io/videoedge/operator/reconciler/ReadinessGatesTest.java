package io.videoedge.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.videoedge.api.Conditions;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningSpec;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.operator.status.NodeReport;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReadinessGatesTest {
  static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

  static Pod pod(String uid, PodCondition... conditions) {
    return new PodBuilder().withNewMetadata().withName("edge-edge-server-a").withUid(uid).endMetadata()
        .withNewSpec().withNodeName("a").endSpec()
        .withNewStatus().withPhase("Running").withConditions(conditions).endStatus().build();
  }

  static NodeTuning tuning(String podUid, String appliedStatus, String reason) {
    NodeTuning nt = new NodeTuning();
    nt.getMetadata().setName("a");
    nt.getMetadata().setGeneration(2L);
    nt.setSpec(new NodeTuningSpec(new NodeTuningSpec.Source("video", "edge", "u", 5L), null, null,
        new NodeTuningSpec.ServerPlacement(1, "video", "edge-edge-server-a", podUid)));
    nt.setStatus(new NodeTuningStatus(2L, List.of(new io.fabric8.kubernetes.api.model.ConditionBuilder()
        .withType("Applied").withStatus(appliedStatus).withReason(reason).build()), null, null, null, null, null, null));
    return nt;
  }

  static PodCondition gate(Pod pod, NodeTuning nt, boolean plan) {
    NodeReport report = NodeReport.of("a", nt, pod, 5, false, null);
    return ReadinessGates.desired(pod, report, nt, plan, 5, NOW);
  }

  @Test
  void opensWhenTheNodeIsTunedForTheGenerationWithThisPod() {
    Pod pod = pod("p1");
    PodCondition c = gate(pod, tuning("p1", "True", "AsExpected"), false);
    assertThat(c.getType()).isEqualTo(VideoEdgeApi.READINESS_GATE_NODE_TUNED);
    assertThat(c.getStatus()).isEqualTo("True");
    assertThat(c.getReason()).isEqualTo(Conditions.AS_EXPECTED);
    assertThat(c.getLastTransitionTime()).isEqualTo(NOW.toString());
  }

  @Test
  void staysClosedWhileTheTuningNamesAnotherPod() {
    PodCondition c = gate(pod("p2"), tuning("p1", "True", "AsExpected"), false);
    assertThat(c.getStatus()).isEqualTo("False");
    assertThat(c.getMessage()).isEqualTo("waiting for the node's NodeTuning to name this pod");
  }

  @Test
  void staysClosedUntilApplied() {
    PodCondition c = gate(pod("p1"), tuning("p1", "False", "Applying"), false);
    assertThat(c.getStatus()).isEqualTo("False");
    assertThat(c.getReason()).isEqualTo(Conditions.NODE_NOT_TUNED);
  }

  @Test
  void planModeOpensOnAPlannedNodeOnlyInPlanMode() {
    assertThat(gate(pod("p1"), tuning("p1", "False", "PlanOnly"), true).getReason()).isEqualTo(Conditions.PLAN_ONLY);
    assertThat(gate(pod("p1"), tuning("p1", "False", "PlanOnly"), false).getStatus()).isEqualTo("False");
  }

  @Test
  void keepsItsTransitionTimeAndIsNotRewrittenWhenUnchanged() {
    PodCondition first = gate(pod("p1"), tuning("p1", "True", "AsExpected"), false);
    first.setLastTransitionTime("2026-01-01T00:00:00Z");
    Pod withGate = pod("p1", first);
    PodCondition again = ReadinessGates.desired(withGate, NodeReport.of("a", tuning("p1", "True", "AsExpected"), withGate, 5, false, null),
        tuning("p1", "True", "AsExpected"), false, 5, NOW);
    assertThat(again.getLastTransitionTime()).isEqualTo("2026-01-01T00:00:00Z");
    assertThat(ReadinessGates.same(again, first)).isTrue();
  }
}
