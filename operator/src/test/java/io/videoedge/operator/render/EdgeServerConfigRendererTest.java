package io.videoedge.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.api.ServerSpec;
import io.videoedge.api.TlsMode;
import io.videoedge.api.TlsSpec;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeSpec;
import io.videoedge.operator.testing.TestFiles;
import java.util.List;
import org.junit.jupiter.api.Test;

class EdgeServerConfigRendererTest {
  private static final String GOLDEN = "testdata/edge-server/edge-server.yaml";

  /** The header comment is not config (ConfigParser skips it) and says where each copy came from. */
  static String withoutLeadingComments(String text) {
    return text.replaceFirst("\\A(#[^\n]*\n)+", "");
  }

  @Test
  void exampleRendersToTheGoldenFileSharedWithTheEdgeServer() {
    VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
    String rendered = EdgeServerConfigRenderer.render("video/edge", ve.getSpec());
    String golden = TestFiles.read(GOLDEN);
    assertThat(withoutLeadingComments(rendered)).isEqualTo(withoutLeadingComments(golden));
    assertThat(rendered).startsWith("# Edge server configuration, one-nio ConfigParser format.\n");
  }

  @Test
  void renderingIsStableSoTheChecksumOnlyMovesWithTheConfig() {
    VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
    VideoEdge later = TestFiles.exampleVideoEdge("video", 7);
    assertThat(EdgeServerConfigRenderer.render("video/edge", later.getSpec()))
        .isEqualTo(EdgeServerConfigRenderer.render("video/edge", ve.getSpec()));
  }

  @Test
  void noHttpsAcceptorWithoutTls() {
    VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
    VideoEdgeSpec spec = withTls(ve.getSpec(), new TlsSpec(TlsMode.NONE, null, List.of("TLSv1.3"), true, null));
    String rendered = EdgeServerConfigRenderer.render("video/edge", spec);
    assertThat(rendered).contains("- port: 8080").doesNotContain("8443").doesNotContain("ssl:");
  }

  @Test
  void userspaceTlsWithoutTicketsOrEarlyData() {
    VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
    TlsSpec tls = new TlsSpec(TlsMode.OPENSSL, "edge-tls", List.of("TLSv1.3"), false, new TlsSpec.EarlyData(false, 4096));
    String rendered = EdgeServerConfigRenderer.render("video/edge", withTls(ve.getSpec(), tls));
    assertThat(rendered)
        .contains("    protocols: TLSv1.3\n")
        .contains("    kernelTlsEnabled: false\n")
        .contains("    maxEarlyDataSize: 0\n")
        .doesNotContain("ticketDir");
  }

  @Test
  void originSectionOnlyWhenAnOriginIsSet() {
    VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
    assertThat(EdgeServerConfigRenderer.render("video/edge", ve.getSpec())).doesNotContain("origin:");
    ServerSpec s = ve.getSpec().server();
    ServerSpec withOrigin = new ServerSpec(s.cpus(), s.memory(), s.selectors(), s.affinity(), s.pinAcceptors(),
        s.multiAcceptor(), s.http(), s.https(), s.socket(), s.cache(),
        new ServerSpec.Origin("http://origin.example:8080", "500ms", "10s", 32), s.contentPath(), s.image(),
        s.maxUnavailable());
    VideoEdgeSpec spec = ve.getSpec().withServer(withOrigin);
    assertThat(EdgeServerConfigRenderer.render("video/edge", spec)).endsWith("""
        origin:
          url: http://origin.example:8080
          connectTimeout: 500ms
          readTimeout: 10s
          maxConnections: 32
        """);
  }

  @Test
  void kubernetesQuantitiesBecomeOneNioSizes() {
    assertThat(Quantities.oneNioSize("128Mi")).isEqualTo("128m");
    assertThat(Quantities.oneNioSize("1Gi")).isEqualTo("1g");
    assertThat(Quantities.oneNioSize("1536Mi")).isEqualTo("1536m");
    assertThat(Quantities.oneNioSize("1.5Gi")).isEqualTo("1536m");
    assertThat(Quantities.oneNioSize("100G")).isEqualTo("97656250k");
    assertThat(Quantities.oneNioSize("1000")).isEqualTo("1000");
    assertThat(Quantities.oneNioSize("0")).isEqualTo("0");
  }

  static VideoEdgeSpec withTls(VideoEdgeSpec spec, TlsSpec tls) {
    return spec.withTls(tls);
  }
}
