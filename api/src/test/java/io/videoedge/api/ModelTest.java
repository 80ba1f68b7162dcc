package io.videoedge.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ModelTest {

  @Test
  void exampleDeserializesIntoTheTypedModel() throws IOException {
    VideoEdge ve = Serialization.unmarshal(Files.readString(Path.of("../examples/videoedge.yaml")), VideoEdge.class);
    assertThat(ve.getSpec().nic().irqAffinity()).isEqualTo(IrqAffinity.HOUSEKEEPING);
    assertThat(ve.getSpec().nic().coalescing().rxUsecs()).isEqualTo(64);
    assertThat(ve.getSpec().server().https().port()).isEqualTo(8443);
    assertThat(ve.getSpec().tls().earlyData().enabled()).isTrue();
    assertThat(ve.getSpec().tuning().cpusetRelaxDomainLevel()).isEqualTo(1);
  }

  @Test
  void nullFieldsAreNotSerialized() {
    TuningSpec tuning = new TuningSpec(null, "bbr", null, null, null, null);
    assertThat(Serialization.asJson(tuning)).isEqualTo("{\"congestionControl\":\"bbr\"}");
  }

  @Test
  void enumsUseTheSpecSpelling() {
    assertThat(Serialization.asJson(TlsMode.KTLS_OFFLOAD)).isEqualTo("\"ktls-offload\"");
    assertThat(Serialization.asJson(IrqAffinity.SERVER_CORES)).isEqualTo("\"server-cores\"");
    assertThat(Serialization.asJson(TuningMode.PLAN)).isEqualTo("\"Plan\"");
    assertThat(TlsMode.KTLS_OFFLOAD.id()).isEqualTo("ktls-offload");
    assertThat(NicType.MLX5.id()).isEqualTo("mlx5");
  }

  @Test
  void nicTypeFollowsTheKernelDriverName() {
    assertThat(NicType.ofDriver("mlx5_core")).isEqualTo(NicType.MLX5);
    assertThat(NicType.ofDriver("virtio_net")).isEqualTo(NicType.VIRTIO);
    assertThat(NicType.ofDriver("e1000e")).isEqualTo(NicType.AUTO);
    assertThat(NicType.ofDriver(null)).isEqualTo(NicType.AUTO);
    assertThat(NicType.MLX5.canOffloadTls()).isTrue();
    assertThat(NicType.ICE.canOffloadTls()).isFalse();
  }
}
