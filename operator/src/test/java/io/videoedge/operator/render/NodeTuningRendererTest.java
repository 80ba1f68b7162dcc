package io.videoedge.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.TlsMode;
import io.videoedge.api.TlsSpec;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.operator.testing.CrdDefaulting;
import io.videoedge.operator.testing.TestFiles;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeTuningRendererTest {
  static final String NODE = "edge-1";
  static final Pod POD = new PodBuilder().withNewMetadata().withName("edge-edge-server-x7k2p").withNamespace("video")
      .withUid("5f0c0de0-0000-4000-8000-00000000000a").endMetadata().build();

  /** The example's own tuning, as the rollout gives it to a node. */
  static NodeTuning render(VideoEdge ve, Pod pod) {
    TuningInputs tuning = TuningInputs.of(ve.getSpec());
    return NodeTuningRenderer.render(ve, NODE, tuning, java.util.Map.of(Names.TUNING_REVISION, tuning.revision()), pod);
  }

  static io.videoedge.api.NodeTuningSpec spec(VideoEdge ve) {
    return NodeTuningRenderer.spec(ve, TuningInputs.of(ve.getSpec()), null);
  }

  @Test
  void theSpecDoesNotChangeWithTheVideoEdgesGenerationAlone() {
    VideoEdge a = TestFiles.exampleVideoEdge("video", 3);
    VideoEdge b = TestFiles.exampleVideoEdge("video", 4);
    assertThat(spec(b)).isEqualTo(spec(a));
  }

  @Test
  void exampleOnANodeWithItsServerPodRendersTheGoldenNodeTuning() {
    VideoEdge ve = TestFiles.exampleVideoEdge("video", 3);
    String yaml = Serialization.asYaml(render(ve, POD));
    assertThat(yaml).isEqualTo(TestFiles.golden("testdata/operator/nodetuning-edge-1.yaml", yaml));
  }

  @Test
  void aNodeTuningIsWhatTheCrdAccepts() {
    // defaulting by the NodeTuning schema changes nothing: every field rendered is explicit
    VideoEdge ve = TestFiles.exampleVideoEdge("video", 3);
    NodeTuning nt = render(ve, POD);
    assertThat(CrdDefaulting.nodeTunings().apply(nt).getSpec()).isEqualTo(nt.getSpec());
  }

  @Test
  void namedAfterTheNodeAndLabelledWithItsOwnerInsteadOfAnOwnerReference() {
    NodeTuning nt = render(TestFiles.exampleVideoEdge("video", 3), null);
    assertThat(nt.getMetadata().getName()).isEqualTo("edge-1");
    assertThat(nt.getMetadata().getOwnerReferences()).isNullOrEmpty();
    assertThat(nt.getMetadata().getLabels())
        .containsEntry(VideoEdgeApi.LABEL_OWNER_NAME, "edge")
        .containsEntry(VideoEdgeApi.LABEL_OWNER_NAMESPACE, "video")
        .containsEntry(VideoEdgeApi.LABEL_NODE, "edge-1")
        .containsEntry(VideoEdgeApi.LABEL_MANAGED_BY, VideoEdgeApi.MANAGED_BY);
    assertThat(nt.getMetadata().getAnnotations())
        .containsEntry(Names.TUNING_REVISION, TuningInputs.of(TestFiles.exampleVideoEdge("video", 3).getSpec()).revision());
    assertThat(nt.getSpec().server().cpus()).isEqualTo(1);
    assertThat(nt.getSpec().server().podUid()).isNull();
  }

  @Test
  void kernelTlsAddsTheTlsModuleOnceAndOtherModesDoNot() {
    VideoEdge ve = TestFiles.exampleVideoEdge("video", 3);
    assertThat(spec(ve).tuning().kernelModules()).containsExactly("tls");

    var t = ve.getSpec().tuning();
    ve.setSpec(ve.getSpec().withTuning(new io.videoedge.api.TuningSpec(t.mode(), t.congestionControl(), t.sysctls(),
        t.cpusetRelaxDomainLevel(), t.numaInterleave(), List.of("tcp_bbr", "tls"))));
    assertThat(spec(ve).tuning().kernelModules()).containsExactly("tcp_bbr", "tls");

    ve.setSpec(EdgeServerConfigRendererTest.withTls(ve.getSpec(),
        new TlsSpec(TlsMode.OPENSSL, "edge-tls", List.of("TLSv1.3"), true, null)));
    assertThat(spec(ve).tuning().kernelModules()).containsExactly("tcp_bbr", "tls");
    ve.setSpec(ve.getSpec().withTuning(new io.videoedge.api.TuningSpec(t.mode(), t.congestionControl(), t.sysctls(),
        t.cpusetRelaxDomainLevel(), t.numaInterleave(), List.of())));
    assertThat(spec(ve).tuning().kernelModules()).isEmpty();
  }
}
