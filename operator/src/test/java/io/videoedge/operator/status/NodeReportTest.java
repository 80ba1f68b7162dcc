package io.videoedge.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.videoedge.api.NodeCapabilities;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningSpec;
import io.videoedge.api.NodeTuningStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeReportTest {
  static NodeTuning tuning(String node, long rendered, long metaGeneration, Long observed, List<Condition> conditions,
      NodeCapabilities caps) {
    NodeTuning nt = new NodeTuning();
    nt.getMetadata().setName(node);
    nt.getMetadata().setGeneration(metaGeneration);
    nt.setSpec(new NodeTuningSpec(new NodeTuningSpec.Source("video", "edge", "uid", rendered), null, null, null));
    nt.setStatus(new NodeTuningStatus(observed, conditions, null, null, null, null, caps, null));
    return nt;
  }

  static Condition cond(String type, String status, String reason, String message) {
    return new ConditionBuilder().withType(type).withStatus(status).withReason(reason).withMessage(message).build();
  }

  static NodeTuning applied(String node, long rendered, long metaGeneration) {
    return tuning(node, rendered, metaGeneration, metaGeneration, List.of(cond("Applied", "True", "AsExpected", "")), null);
  }

  static Pod readyPod(String node) {
    return pod(node, "Running", "True");
  }

  static Pod pod(String node, String phase, String ready) {
    return new PodBuilder().withNewMetadata().withName("edge-edge-server-" + node).withUid("uid-" + node).endMetadata()
        .withNewSpec().withNodeName(node).endSpec()
        .withNewStatus().withPhase(phase).addNewCondition().withType("Ready").withStatus(ready).endCondition().endStatus()
        .build();
  }

  @Test
  void tunedOnlyWhenRenderedForTheGenerationObservedByTheAgentAndApplied() {
    assertThat(NodeReport.of("a", applied("a", 4, 2), readyPod("a"), 4, false, null).tuning())
        .isEqualTo(NodeReport.Tuning.APPLIED);
    // rendered for an older generation of the VideoEdge
    assertThat(NodeReport.of("a", applied("a", 3, 2), readyPod("a"), 4, false, null).tuning())
        .isEqualTo(NodeReport.Tuning.PENDING);
    // the agent has not seen the NodeTuning's latest spec
    NodeTuning stale = tuning("a", 4, 3, 2L, List.of(cond("Applied", "True", "AsExpected", "")), null);
    NodeReport r = NodeReport.of("a", stale, readyPod("a"), 4, false, null);
    assertThat(r.tuning()).isEqualTo(NodeReport.Tuning.PENDING);
    assertThat(r.message()).isEqualTo("waiting for the node agent to apply the NodeTuning");
    assertThat(NodeReport.of("a", null, null, 4, false, null).summary().message()).isEqualTo("NodeTuning not created yet");
  }

  @Test
  void planOnlyIsPlannedAndAFailureIsFailedWithTheAgentsMessage() {
    NodeTuning plan = tuning("a", 1, 1, 1L, List.of(cond("Applied", "False", "PlanOnly", "3 settings would change")), null);
    assertThat(NodeReport.of("a", plan, readyPod("a"), 1, false, null).tuning()).isEqualTo(NodeReport.Tuning.PLANNED);
    NodeTuning failed = tuning("a", 1, 1, 1L,
        List.of(cond("Applied", "False", "RolledBack", "sysctl net.ipv4.tcp_mem: write failed")), null);
    NodeReport r = NodeReport.of("a", failed, readyPod("a"), 1, false, null);
    assertThat(r.tuning()).isEqualTo(NodeReport.Tuning.FAILED);
    assertThat(r.summary().message()).isEqualTo("agent reports Applied=False RolledBack: sysctl net.ipv4.tcp_mem: write failed");
    assertThat(r.tuned()).isFalse();
  }

  @Test
  void appliedWithAgentDegradedIsTunedButDegraded() {
    NodeTuning nt = tuning("a", 1, 1, 1L, List.of(cond("Applied", "True", "AsExpected", ""),
        cond("Degraded", "True", "UnsupportedSettings", "cpuset/relax_domain_level: cgroup v2")), null);
    NodeReport r = NodeReport.of("a", nt, readyPod("a"), 1, false, null);
    assertThat(r.tuning()).isEqualTo(NodeReport.Tuning.DEGRADED);
    assertThat(r.tuned()).isTrue();
  }

  @Test
  void serverStateFollowsThePod() {
    assertThat(NodeReport.server(null)).isEqualTo(NodeReport.Server.MISSING);
    assertThat(NodeReport.server(pod("a", "Pending", "False"))).isEqualTo(NodeReport.Server.PENDING);
    assertThat(NodeReport.server(pod("a", "Running", "False"))).isEqualTo(NodeReport.Server.NOT_READY);
    assertThat(NodeReport.server(readyPod("a"))).isEqualTo(NodeReport.Server.READY);
  }

  @Test
  void summaryShowsKernelKernelTlsAndTheTunedNic() {
    var caps = new NodeCapabilities("6.12.0-31-amd64", List.of("cubic", "bbr"), true, "unavailable", "v2", 1, "0-3",
        List.of(new NodeCapabilities.Nic("lo", null, 1, 1, null, null, null, -1, false),
            new NodeCapabilities.Nic("eth0", "virtio_net", 4, 4, 4, 4, List.of(30, 31), -1, false)));
    NodeTuning nt = tuning("a", 1, 1, 1L, List.of(cond("Applied", "True", "AsExpected", "")), caps);
    NodeReport r = NodeReport.of("a", nt, readyPod("a"), 1, true, List.of("eth0"));
    assertThat(r.summary()).satisfies(s -> {
      assertThat(s.kernel()).isEqualTo("6.12.0-31-amd64");
      assertThat(s.ktls()).isEqualTo("unavailable");
      assertThat(s.nic()).isEqualTo("eth0 (virtio_net)");
      assertThat(s.tuning()).isEqualTo("Applied");
      assertThat(s.server()).isEqualTo("Ready");
      assertThat(s.message()).isEqualTo("kernel TLS unavailable: the server uses userspace OpenSSL");
    });
    assertThat(r.kernelTlsUnavailable()).isTrue();
    assertThat(NodeReport.of("a", nt, readyPod("a"), 1, false, null).summary().ktls()).isEqualTo("not-requested");
  }
}
