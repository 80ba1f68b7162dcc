package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.Nginx;
import io.videoedge.server.testing.TempDirs;
import io.videoedge.server.testing.Tools;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An https:// origin: a real nginx with TLS on loopback and certificates made here with openssl (a
 * test CA; a certificate for localhost and 127.0.0.1 from it; one from it whose subject CN is
 * localhost but whose subjectAltName is another name; a self-signed one for localhost). The edge
 * fetches through the good one, by name and by IP, and refuses the others (502, counted as
 * {@code kind="tls"}) before any request reaches them, as it refuses the test CA when only the
 * system bundle is trusted.
 */
class HttpsOriginIT {
    static Path dir;
    static Nginx nginx;
    static byte[] object;
    EdgeFixture edge;

    @BeforeAll
    static void start() throws Exception {
        dir = TempDirs.create("https-origin");
        openssl(
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-nodes",
                "-days",
                "2",
                "-keyout",
                "ca.key",
                "-out",
                "ca.crt",
                "-subj",
                "/CN=videoedge test CA");
        signed("good", "/CN=localhost", "subjectAltName=DNS:localhost,IP:127.0.0.1");
        signed("wrongname", "/CN=localhost", "subjectAltName=DNS:wrong.example");
        // the origin's name but not its address (and the address only as the subject's CN, which no check uses)
        signed("noip", "/CN=127.0.0.1", "subjectAltName=DNS:localhost");
        openssl(
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-nodes",
                "-days",
                "2",
                "-keyout",
                "self.key",
                "-out",
                "self.crt",
                "-subj",
                "/CN=localhost",
                "-addext",
                "subjectAltName=DNS:localhost,IP:127.0.0.1");
        Path root = Files.createDirectories(dir.resolve("root/o"));
        object = new byte[1_500_000];
        new SplittableRandom(14).nextBytes(object);
        Files.write(root.resolve("seg.m4s"), object);
        Files.write(root.resolve("next.m4s"), object);
        Files.write(root.resolve("again.m4s"), object);
        // which connection each origin request came on, and its number on that connection
        StringBuilder servers = new StringBuilder("log_format conn '$connection $connection_requests $request_uri';\n");
        String[] certs = {"good", "wrongname", "self", "noip"};
        for (int i = 0; i < certs.length; i++) {
            servers.append("""
                      server {
                        listen 127.0.0.1:%%%d$d ssl;
                        ssl_certificate %s/%s.crt; ssl_certificate_key %s/%s.key;
                        access_log %s/access-%s.log conn;
                        keepalive_timeout 3s;
                        root %s/root;
                      }
                    """.formatted(i + 1, dir, certs[i], dir, certs[i], dir, certs[i], dir));
        }
        nginx = Nginx.start(certs.length, servers.toString());
    }

    private static void openssl(String... args) {
        Tools.Result r =
                Tools.run(Stream.concat(Stream.of("openssl"), Stream.of(args)).toList(), null, dir);
        assertThat(r.exitCode()).as(r.all()).isZero();
    }

    /** A key and a certificate signed by the test CA. */
    private static void signed(String name, String subject, String extension) throws Exception {
        openssl(
                "req",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-nodes",
                "-keyout",
                name + ".key",
                "-out",
                name + ".csr",
                "-subj",
                subject);
        Files.writeString(dir.resolve(name + ".ext"), extension + "\n");
        openssl(
                "x509",
                "-req",
                "-in",
                name + ".csr",
                "-CA",
                "ca.crt",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-days",
                "2",
                "-out",
                name + ".crt",
                "-extfile",
                name + ".ext");
    }

    @AfterAll
    static void stop() throws Exception {
        if (nginx != null) nginx.close();
        TempDirs.remove(dir);
    }

    @AfterEach
    void stopEdge() throws Exception {
        if (edge != null) edge.close();
    }

    private void startEdge(String url, String caFile) throws Exception {
        Path disk = TempDirs.create("edge-cache");
        edge = EdgeFixture.start("""
                origin:
                  url: %s
                %s  connectTimeout: 2s
                  readTimeout: 5s
                cache:
                  memory: 4m
                  disk:
                    path: %s
                    size: 64m
                bufferPool:
                  size: 8m
                  chunkSize: 64k
                """.formatted(url, caFile == null ? "" : "  caFile: " + caFile + "\n", disk));
    }

    private void fetchesThroughTls() throws Exception {
        HttpResponse<byte[]> miss = edge.get(edge.http("/o/seg.m4s"));
        assertThat(miss.statusCode()).isEqualTo(200);
        assertThat(miss.headers().firstValue("X-Cache")).hasValue("miss");
        assertThat(miss.body()).isEqualTo(object);
        HttpResponse<byte[]> hit = edge.get(edge.http("/o/seg.m4s"));
        assertThat(hit.headers().firstValue("X-Cache")).hasValue("hit-disk");
        assertThat(hit.body()).isEqualTo(object);
        assertThat(edge.metric("videoedge_origin_errors_total{kind=\"tls\"}")).isZero();
    }

    /** Counted when the fill ends, just after the waiting request got its 502. */
    private void tlsErrorCounted() {
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(edge.metric("videoedge_origin_errors_total{kind=\"tls\"}"))
                        .isEqualTo(1));
    }

    private void refuses(String certName) throws Exception {
        HttpResponse<byte[]> r = edge.get(edge.http("/o/seg.m4s"));
        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.body()).isEmpty();
        tlsErrorCounted();
        assertThat(edge.get(edge.http("/index.m3u8")).statusCode())
                .as("local content still served")
                .isEqualTo(200);
        Path log = dir.resolve("access-" + certName + ".log");
        assertThat(Files.exists(log) ? Files.readString(log) : "")
                .as("no request reached the origin")
                .isEmpty();
    }

    @Test
    void anOriginWithACertificateForItsNameIsFetchedOverTls() throws Exception {
        startEdge("https://localhost:" + nginx.port(0), dir.resolve("ca.crt").toString());
        fetchesThroughTls();
    }

    /**
     * The TLS connection to the origin is pooled: the next fill reuses it (nginx's log: same connection,
     * its second request). nginx closes idle keep-alive connections after 3 s (1 s was too short on a busy machine
     * for the reuse to be seen): the pooled connection is
     * then found stale and replaced (a new connection, its first request), and the fill succeeds.
     */
    @Test
    void aPooledTlsConnectionTheOriginClosedIsReplaced() throws Exception {
        Path log = dir.resolve("access-good.log");
        int before = Files.exists(log) ? Files.readAllLines(log).size() : 0;
        startEdge("https://localhost:" + nginx.port(0), dir.resolve("ca.crt").toString());
        fetchesThroughTls();
        HttpResponse<byte[]> again = edge.get(edge.http("/o/again.m4s"));
        assertThat(again.statusCode()).isEqualTo(200);
        Thread.sleep(4000);
        HttpResponse<byte[]> next = edge.get(edge.http("/o/next.m4s"));
        assertThat(next.statusCode()).isEqualTo(200);
        assertThat(next.body()).isEqualTo(object);
        assertThat(edge.metric("videoedge_origin_errors_total{kind=\"tls\"}")).isZero();

        // "connection requests uri" per origin request of this test, in order
        List<String[]> requests = Files.readAllLines(log).stream()
                .skip(before)
                .map(l -> l.split(" "))
                .toList();
        assertThat(requests)
                .extracting(r -> r[2])
                .as("one origin request per miss")
                .containsExactly("/o/seg.m4s", "/o/again.m4s", "/o/next.m4s");
        assertThat(requests.get(1)[0])
                .as("the second fill reused the pooled connection")
                .isEqualTo(requests.get(0)[0]);
        assertThat(requests.get(1)[1]).as("... as its second request").isEqualTo("2");
        assertThat(requests.get(2)[0])
                .as("after nginx closed it, a new connection")
                .isNotEqualTo(requests.get(0)[0]);
        assertThat(requests.get(2)[1]).isEqualTo("1");
    }

    @Test
    void anOriginAddressedByIpNeedsThatIpInTheCertificate() throws Exception {
        startEdge("https://127.0.0.1:" + nginx.port(0), dir.resolve("ca.crt").toString());
        fetchesThroughTls();
    }

    @Test
    void anOriginAddressedByAnIpItsCertificateDoesNotNameIsRefused() throws Exception {
        startEdge("https://127.0.0.1:" + nginx.port(3), dir.resolve("ca.crt").toString());
        refuses("noip");
    }

    @Test
    void aCertificateForAnotherNameIsRefusedEvenWithTheRightSubjectCn() throws Exception {
        startEdge("https://localhost:" + nginx.port(1), dir.resolve("ca.crt").toString());
        refuses("wrongname");
    }

    @Test
    void aCertificateFromAnUntrustedIssuerIsRefused() throws Exception {
        startEdge("https://localhost:" + nginx.port(2), dir.resolve("ca.crt").toString());
        refuses("self");
    }

    @Test
    void withoutCaFileOnlyTheSystemBundleIsTrusted() throws Exception {
        startEdge("https://localhost:" + nginx.port(0), null);
        HttpResponse<byte[]> r = edge.get(edge.http("/o/seg.m4s"));
        assertThat(r.statusCode()).as("the test CA is not a system CA").isEqualTo(502);
        tlsErrorCounted();
    }

    @Test
    void theEdgeItselfCanBeTheHttpsOrigin() throws Exception {
        // another edge server (its TLS port, the shared test certificate for localhost) as the origin
        try (EdgeFixture origin = EdgeFixture.start()) {
            startEdge(
                    "https://localhost:" + origin.httpsPort + "/hls",
                    io.videoedge.server.testing.TestCerts.cert().toString());
            HttpResponse<byte[]> r = edge.get(edge.http("/seg-00001.m4s"));
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(origin.file("hls/seg-00001.m4s"));
        }
    }
}
