package io.videoedge.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.api.ServerSpec;
import io.videoedge.api.TlsMode;
import io.videoedge.api.TlsSpec;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeSpec;
import io.videoedge.operator.testing.TestFiles;
import io.videoedge.server.config.ConfigLoader;
import io.videoedge.server.config.EdgeServerConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

class EdgeServerConfigRendererTest {
    private static final String GOLDEN = "testdata/edge-server/edge-server.yaml";

    /** The header comment is not config (ConfigParser skips it) and says where each copy came from. */
    static String withoutLeadingComments(String text) {
        return text.replaceFirst("\\A(#[^\n]*\n)+", "");
    }

    static final String GOLDEN_HEADER = """
      # Edge server configuration, one-nio ConfigParser format.
      # Golden rendering of examples/videoedge.yaml (the operator renders this file into a ConfigMap,
      # mounted at /etc/videoedge/config/edge-server.yaml): only what differs from the server's defaults.
      # Field reference: edge-server/README.md. Regenerate: operator tests with -Dgolden.update=true.
      """;

    @Test
    void exampleRendersToTheGoldenFileSharedWithTheEdgeServer() {
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
        String rendered = EdgeServerConfigRenderer.render("video/edge", ve.getSpec());
        String golden = TestFiles.golden(GOLDEN, GOLDEN_HEADER + withoutLeadingComments(rendered));
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
        TlsSpec tls =
                new TlsSpec(TlsMode.OPENSSL, "edge-tls", List.of("TLSv1.3"), false, new TlsSpec.EarlyData(false, 4096));
        String rendered = EdgeServerConfigRenderer.render("video/edge", withTls(ve.getSpec(), tls));
        assertThat(rendered).contains("    protocols: TLSv1.3\n").doesNotContain("ticketDir");
        var ssl = EdgeServerConfigRenderer.config(withTls(ve.getSpec(), tls)).acceptors[1].ssl;
        assertThat(ssl.kernelTlsEnabled).isFalse();
        assertThat(ssl.maxEarlyDataSize).isZero();
        assertThat(ssl.ticketDir).isNull();
    }

    @Test
    void theAccessLogIsOnByDefaultAndItsSwitchesRestartTheServers() throws Exception {
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
        assertThat(EdgeServerConfigRenderer.config(ve.getSpec()).accessLog.enabled)
                .isTrue();
        assertThat(EdgeServerConfigRenderer.render("video/edge", ve.getSpec())).doesNotContain("accessLog");
        VideoEdgeSpec sampled =
                ve.getSpec().withServer(ve.getSpec().server().withAccessLog(new ServerSpec.AccessLog(true, 10)));
        VideoEdgeSpec off =
                ve.getSpec().withServer(ve.getSpec().server().withAccessLog(new ServerSpec.AccessLog(false, 1)));
        assertThat(EdgeServerConfigRenderer.render("video/edge", sampled)).contains("accessLog:\n  sample: 10\n");
        String offText = EdgeServerConfigRenderer.render("video/edge", off);
        assertThat(offText).contains("accessLog:\n  enabled: false\n");
        assertThat(io.videoedge.server.config.ConfigLoader.parse(offText, "off").accessLog.enabled)
                .isFalse();
        assertThat(EdgeServerConfigRenderer.restartChecksum("x", off))
                .as("the access log is set up at start")
                .isNotEqualTo(EdgeServerConfigRenderer.restartChecksum("x", ve.getSpec()));
        assertThat(EdgeServerConfigRenderer.restartChecksum("x", sampled))
                .as("its sampling too")
                .isNotEqualTo(EdgeServerConfigRenderer.restartChecksum("x", ve.getSpec()));
    }

    @Test
    void signedUrlRulesBecomeTheServersRulesAndTheServerTakesThem() throws Exception {
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
        VideoEdgeSpec spec = ve.getSpec()
                .withServer(ve.getSpec()
                        .server()
                        .withSignedUrls(new ServerSpec.SignedUrls(
                                "url-keys",
                                List.of(
                                        new ServerSpec.SignedUrlRule("/vod/", null),
                                        new ServerSpec.SignedUrlRule("/live/", io.videoedge.api.SignedUrlMode.OPTIONAL),
                                        new ServerSpec.SignedUrlRule(
                                                "/vod/free/", io.videoedge.api.SignedUrlMode.OFF)))));
        var parsed = io.videoedge.server.config.ConfigLoader.parse(
                EdgeServerConfigRenderer.render("video/edge", spec), "rendered");
        assertThat(parsed.signedUrls.keyDir).isEqualTo(EdgeServerLayout.SIGNING_KEYS_DIR);
        assertThat(parsed.signedUrls.rules)
                .extracting(r -> r.prefix + " " + r.mode)
                .containsExactly("/vod/ required", "/live/ optional", "/vod/free/ off");
        assertThat(EdgeServerConfigRenderer.problems(spec)).isEmpty();
        assertThat(EdgeServerConfigRenderer.signingKeysSecret(spec.server())).isEqualTo("url-keys");
    }

    @Test
    void staleIfErrorStaleWhileRevalidateAndSliceBecomeTheServersCacheSettings() throws Exception {
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
        ServerSpec s = ve.getSpec().server();
        VideoEdgeSpec spec = ve.getSpec()
                .withServer(s.withCache(
                        new ServerSpec.Cache(s.cache().memory(), s.cache().disk(), "10m", "30s", "4Mi")));
        var parsed = ConfigLoader.parse(EdgeServerConfigRenderer.render("video/edge", spec), "rendered");
        assertThat(parsed.cache.staleWhileError).isEqualTo(600_000);
        assertThat(parsed.cache.staleWhileRevalidate).isEqualTo(30_000);
        assertThat(parsed.cache.slice).isEqualTo(4L * 1024 * 1024);
        assertThat(EdgeServerConfigRenderer.config(ve.getSpec()).cache.staleWhileRevalidate)
                .as("the CRD's default")
                .isZero();
        assertThat(EdgeServerConfigRenderer.config(ve.getSpec()).cache.slice)
                .as("the CRD's default: off")
                .isZero();
    }

    @Test
    void serverLimitsReachTheLimitsSectionAndTheirDefaultsAreTheServersOwn() {
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
        ServerSpec s = ve.getSpec().server();
        // the CRD's defaults are the server's: nothing to write but maxConnections, which the pod's memory sets
        VideoEdgeSpec defaults = ve.getSpec()
                .withServer(s.withLimits(new ServerSpec.Limits("30s", "10s", 1000, "64k", "30s", 32, 0, 100)));
        assertThat(EdgeServerConfigRenderer.render("video/edge", defaults))
                .contains("\nlimits:\n  maxConnections: 22900\ncache:\n");
        VideoEdgeSpec spec =
                ve.getSpec().withServer(s.withLimits(new ServerSpec.Limits("5s", "2s", 50, "1m", "10s", 8, 200, 400)));
        EdgeServerConfig c = EdgeServerConfigRenderer.config(spec);
        assertThat(c.limits.headerTimeout).isEqualTo(5_000);
        assertThat(c.limits.handshakeTimeout).isEqualTo(2_000);
        assertThat(c.limits.maxConnectionsPerAddress).isEqualTo(50);
        assertThat(c.limits.minSendBytes).isEqualTo(1 << 20);
        assertThat(c.limits.minSendPeriod).isEqualTo(10_000);
        assertThat(c.limits.maxPipelined).isEqualTo(8);
        assertThat(c.limits.maxRequestRate).isEqualTo(200);
        assertThat(c.limits.requestBurst).isEqualTo(400);
        assertThat(EdgeServerConfigRenderer.problems(spec)).isEmpty();
        assertThat(EdgeServerConfigRenderer.restartChecksum("x", spec))
                .as("live fields, from their defaults too: the pods do not roll")
                .isEqualTo(EdgeServerConfigRenderer.restartChecksum("x", defaults));
        // a spec built without the section (not through the API server) keeps the server's defaults
        assertThat(EdgeServerConfigRenderer.config(ve.getSpec().withServer(s.withLimits(null))).limits.headerTimeout)
                .isEqualTo(30_000);
    }

    @Test
    void originSectionOnlyWhenAnOriginIsSet() {
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
        assertThat(EdgeServerConfigRenderer.render("video/edge", ve.getSpec())).doesNotContain("origin:");
        ServerSpec s = ve.getSpec().server();
        ServerSpec withOrigin = s.withOrigin(
                        new ServerSpec.Origin("http://origin.example:8080", null, "500ms", "10s", 32))
                .withAccessLog(null);
        VideoEdgeSpec spec = ve.getSpec().withServer(withOrigin);
        assertThat(EdgeServerConfigRenderer.render("video/edge", spec)).contains("""
        origin:
          url: http://origin.example:8080
          connectTimeout: 500ms
          maxConnections: 32
        """);
    }

    @Test
    void failoverOriginsFollowTheUrlWithTheirDownTime() throws Exception {
        VideoEdgeSpec spec = withFailover("http://b.example", "https://c.example/v");
        var parsed = ConfigLoader.parse(EdgeServerConfigRenderer.render("video/edge", spec), "rendered");
        assertThat(parsed.origin.urls())
                .containsExactly("http://a.example:8080", "http://b.example", "https://c.example/v");
        assertThat(parsed.origin.downFor).isEqualTo(2000);
    }

    /** The example's spec with origin http://a.example:8080 and these failover origins, down for 2 s after a failure. */
    private static VideoEdgeSpec withFailover(String... urls) {
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
        return ve.getSpec()
                .withServer(ve.getSpec()
                        .server()
                        .withOrigin(new ServerSpec.Origin(
                                "http://a.example:8080",
                                null,
                                "1s",
                                "10s",
                                64,
                                java.util.Arrays.stream(urls)
                                        .map(ServerSpec.FailoverOrigin::new)
                                        .toList(),
                                "2s")));
    }

    /**
     * The config is checked as the server will read it: ConfigParser splits a list at its commas, so a failover URL
     * with one (the CRD refuses it: CrdAdmissionIT) would be read as two origins, one nobody named.
     */
    @Test
    void aConfigTheServerWouldReadOtherwiseThanWrittenIsAProblem() {
        VideoEdgeSpec spec = withFailover("http://b.example/x,http://c.example");
        assertThat(EdgeServerConfigRenderer.problems(spec))
                .singleElement()
                .asString()
                .startsWith("the edge server would read this spec's config otherwise than written: ")
                .contains("'failover: http://b.example/x,http://c.example' reads as 'failover: http://b.example/x,"
                        + " http://c.example'");
    }

    @Test
    void anHttpsOriginTrustsTheCaSecretsBundleWhereThePodMountsItAndOtherwiseTheSystemStore() throws Exception {
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
        ServerSpec s = ve.getSpec().server();
        VideoEdgeSpec withCa = ve.getSpec()
                .withServer(s.withOrigin(
                        new ServerSpec.Origin("https://origin.example:8443/video", "origin-ca", "1s", "10s", 64)));
        VideoEdgeSpec systemStore = ve.getSpec()
                .withServer(s.withOrigin(
                        new ServerSpec.Origin("https://origin.example:8443/video", null, "1s", "10s", 64)));

        assertThat(EdgeServerConfigRenderer.originCaSecret(withCa.server())).isEqualTo("origin-ca");
        assertThat(EdgeServerConfigRenderer.config(withCa).origin.caFile).isEqualTo(EdgeServerLayout.ORIGIN_CA_FILE);
        String rendered = EdgeServerConfigRenderer.render("video/edge", withCa);
        assertThat(rendered).contains("""
        origin:
          url: https://origin.example:8443/video
          caFile: /etc/videoedge/origin-ca/ca.crt
        """);
        // the server's own loader takes it (the file itself is the pod's: not looked at here)
        assertThat(ConfigLoader.parse(rendered, "rendered").origin.caFile).isEqualTo("/etc/videoedge/origin-ca/ca.crt");
        assertThat(EdgeServerConfigRenderer.problems(withCa)).isEmpty();

        // without it no caFile: the server's default, the image's system bundle
        assertThat(EdgeServerConfigRenderer.originCaSecret(systemStore.server()))
                .isNull();
        assertThat(EdgeServerConfigRenderer.config(systemStore).origin.caFile).isNull();
        assertThat(EdgeServerConfigRenderer.render("video/edge", systemStore)).doesNotContain("caFile");
        assertThat(EdgeServerConfigRenderer.problems(systemStore)).isEmpty();
        // origin is restart-only: adding the bundle restarts the servers
        assertThat(EdgeServerConfigRenderer.restartChecksum("video/edge", withCa))
                .isNotEqualTo(EdgeServerConfigRenderer.restartChecksum("video/edge", systemStore));
        // and no origin, no CA Secret
        assertThat(EdgeServerConfigRenderer.originCaSecret(ve.getSpec().server()))
                .isNull();
    }

    @Test
    void aCaSecretForAPlainHttpOriginIsRefusedByTheServersOwnCheck() {
        // the CRD refuses it first (CrdAdmissionIT); should one get through, the server's validator still says no
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
        VideoEdgeSpec spec = ve.getSpec()
                .withServer(ve.getSpec()
                        .server()
                        .withOrigin(new ServerSpec.Origin("http://origin.example", "origin-ca", "1s", "10s", 64)));
        assertThat(EdgeServerConfigRenderer.problems(spec))
                .singleElement()
                .asString()
                .contains("origin.caFile")
                .contains("only for an https:// origin");
    }

    @Test
    void manyOriginConnectionsGetABufferPoolThatHoldsThem() {
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
        ServerSpec s = ve.getSpec().server();
        VideoEdgeSpec spec =
                ve.getSpec().withServer(s.withOrigin(new ServerSpec.Origin("http://o:8080", null, "1s", "10s", 1000)));
        var config = EdgeServerConfigRenderer.config(spec);
        assertThat(config.bufferPool.size).isEqualTo((1000 + 8) * 128L * 1024);
        assertThat(EdgeServerConfigRenderer.problems(spec)).isEmpty();
    }

    @Test
    void whatTheServerWouldRefuseIsAProblemNamingTheField() {
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
        ServerSpec s = ve.getSpec().server();
        ServerSpec.Socket k = s.socket();
        VideoEdgeSpec tooBig = ve.getSpec()
                .withServer(s.withSocket(new ServerSpec.Socket(
                        k.recvBuf(), "4g", k.notsentLowat(), k.reusePort(), k.acceptorThreads(), k.backlog())));
        assertThat(EdgeServerConfigRenderer.problems(tooBig))
                .singleElement()
                .asString()
                .contains("server.socket.sendBuf 4g")
                .contains("2g - 1");
        assertThat(EdgeServerConfigRenderer.problems(ve.getSpec())).isEmpty();
    }

    @Test
    void onlyALiveFieldChangeKeepsTheRestartChecksum() {
        VideoEdgeSpec spec = TestFiles.exampleVideoEdge("video", 1).getSpec();
        ServerSpec.Socket k = spec.server().socket();
        String before = EdgeServerConfigRenderer.restartChecksum("video/edge", spec);
        VideoEdgeSpec live = spec.withServer(spec.server()
                .withSocket(
                        new ServerSpec.Socket("128k", "1m", "256k", k.reusePort(), k.acceptorThreads(), k.backlog())));
        assertThat(EdgeServerConfigRenderer.restartChecksum("video/edge", live)).isEqualTo(before);
        VideoEdgeSpec toZero = spec.withServer(spec.server()
                .withSocket(new ServerSpec.Socket(
                        "0", k.sendBuf(), k.notsentLowat(), k.reusePort(), k.acceptorThreads(), k.backlog())));
        assertThat(EdgeServerConfigRenderer.restartChecksum("video/edge", toZero))
                .as("0 cannot be set live")
                .isNotEqualTo(before);
        VideoEdgeSpec threads = spec.withServer(spec.server()
                .withSocket(new ServerSpec.Socket(
                        k.recvBuf(), k.sendBuf(), k.notsentLowat(), k.reusePort(), 2, k.backlog())));
        assertThat(EdgeServerConfigRenderer.restartChecksum("video/edge", threads))
                .isNotEqualTo(before);
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
