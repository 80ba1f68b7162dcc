package io.videoedge.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.videoedge.api.ServerSpec;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeSpec;
import io.videoedge.operator.testing.TestFiles;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class SpecValidationTest {
  static final Secret TLS = new SecretBuilder().withNewMetadata().withName("edge-tls").endMetadata()
      .withType("kubernetes.io/tls").addToData("tls.crt", "Y3J0").addToData("tls.key", "a2V5").build();

  static Node node(String name, String cpu, String memory) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata()
        .withNewStatus().addToAllocatable("cpu", new Quantity(cpu)).addToAllocatable("memory", new Quantity(memory)).endStatus()
        .build();
  }

  static VideoEdge example(UnaryOperator<ServerSpec> change) {
    VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
    VideoEdgeSpec s = ve.getSpec();
    ve.setSpec(s.withServer(change.apply(s.server())));
    return ve;
  }

  static ServerSpec server(ServerSpec s, int cpus, String memory, ServerSpec.Port http, ServerSpec.Cache cache) {
    return new ServerSpec(cpus, memory, s.selectors(), s.affinity(), s.pinAcceptors(), s.multiAcceptor(), http, s.https(),
        s.socket(), cache, s.origin(), s.contentPath(), s.image(), s.maxUnavailable());
  }

  @Test
  void theExampleWithItsSecretOnABigEnoughNodeIsValid() {
    assertThat(SpecValidation.problems(example(s -> s), Optional.of(TLS), List.of(node("a", "4", "8Gi")))).isEmpty();
  }

  @Test
  void aMissingOrWrongTlsSecretIsNamed() {
    assertThat(SpecValidation.problems(example(s -> s), Optional.empty(), List.of()))
        .containsExactly("TLS Secret video/edge-tls (tls.secretName) not found: create a Secret of type kubernetes.io/tls "
            + "with tls.crt and tls.key");
    Secret opaque = new SecretBuilder(TLS).withType("Opaque").build();
    assertThat(SpecValidation.problems(example(s -> s), Optional.of(opaque), List.of()))
        .containsExactly("TLS Secret video/edge-tls is of type Opaque, not kubernetes.io/tls");
    Secret noKey = new SecretBuilder(TLS).withData(java.util.Map.of("tls.crt", "Y3J0")).build();
    assertThat(SpecValidation.problems(example(s -> s), Optional.of(noKey), List.of()))
        .containsExactly("TLS Secret video/edge-tls has no tls.key");
  }

  @Test
  void aServerLargerThanANodesAllocatableNamesTheNode() {
    VideoEdge ve = example(s -> server(s, 8, s.memory(), s.http(), s.cache()));
    assertThat(SpecValidation.problems(ve, Optional.of(TLS), List.of(node("big", "16", "64Gi"), node("small", "4", "8Gi"))))
        .containsExactly("server.cpus 8 / server.memory 1Gi do not fit on node small (4 CPUs allocatable): "
            + "lower them or narrow nodeSelector");
    VideoEdge fat = example(s -> server(s, 1, "16Gi", s.http(), s.cache()));
    assertThat(SpecValidation.problems(fat, Optional.of(TLS), List.of(node("small", "4", "8Gi"))))
        .singleElement().asString().contains("small (8Gi memory allocatable)");
  }

  @Test
  void theAdminPortIsTaken() {
    VideoEdge ve = example(s -> server(s, 1, s.memory(), new ServerSpec.Port(9400, true), s.cache()));
    assertThat(SpecValidation.problems(ve, Optional.of(TLS), List.of()))
        .containsExactly("port 9400 is the edge server's admin port (metrics, probes): choose another server.http.port "
            + "or server.https.port");
  }

  @Test
  void aCacheThatDoesNotFitTheMemoryIsRefused() {
    VideoEdge ve = example(s -> server(s, 1, s.memory(), s.http(), new ServerSpec.Cache("1Gi", s.cache().disk())));
    assertThat(SpecValidation.problems(ve, Optional.of(TLS), List.of())).singleElement().asString()
        .startsWith("server.cache.memory (1g) does not fit in server.memory");
  }

  @Test
  void noAcceptorAtAll() {
    VideoEdge ve = EdgeServerSpecs.noHttps(example(s -> server(s, 1, s.memory(), new ServerSpec.Port(8080, false), s.cache())));
    assertThat(SpecValidation.problems(ve, Optional.empty(), List.of()))
        .containsExactly("no acceptor: server.http is disabled and HTTPS is off (tls.mode none or server.https disabled)");
  }
}
