package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.OpenSsl;
import io.videoedge.server.testing.TestCerts;
import io.videoedge.server.testing.Tools;
import io.videoedge.server.tls.KernelTls;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TLS through one-nio's OpenSSL binding, checked with openssl s_client, curl and java.net.http:
 * protocols, session tickets, 0-RTT early data, and what the sessions really got from the kernel.
 */
class TlsIT {
    static EdgeFixture edge;
    static Path request;

    @BeforeAll
    static void start() throws Exception {
        edge = EdgeFixture.start("", true);
        request = edge.dir.resolve("request.txt");
        Files.writeString(request, "GET /hls/playlist.m3u8 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    }

    @AfterAll
    static void stop() throws Exception {
        edge.close();
    }

    private Tools.Result sClient(String... extra) throws Exception {
        return OpenSsl.sClient(edge.httpsPort, request, extra);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-tls1_2", "-tls1_3"})
    void opensslHandshakesAndGetsTheObject(String protocol) throws Exception {
        Tools.Result r = sClient(protocol);
        String version = protocol.equals("-tls1_2") ? "TLSv1.2" : "TLSv1.3";
        assertThat(r.all())
                .contains("New, " + version)
                .contains("Verify return code: 0 (ok)")
                .contains("HTTP/1.1 200 OK");
        assertThat(r.stdout()).contains(new String(edge.file("hls/playlist.m3u8"), StandardCharsets.US_ASCII));
    }

    @Test
    void tls11AndOlderAreRefusedAndCountedAsHandshakeFailures() throws Exception {
        double failuresBefore = edge.metric("videoedge_tls_handshake_failures_total");
        Tools.Result r = Tools.run(
                List.of(
                        "openssl",
                        "s_client",
                        "-connect",
                        "127.0.0.1:" + edge.httpsPort,
                        "-tls1_1",
                        "-cipher",
                        "DEFAULT@SECLEVEL=0"),
                new byte[0],
                null);
        assertThat(r.all()).doesNotContain("New, TLSv1.1").doesNotContain("HTTP/1.1 200");
        await().untilAsserted(() -> assertThat(edge.metric("videoedge_tls_handshake_failures_total"))
                .isEqualTo(failuresBefore + 1));
        assertThat(sClient("-tls1_3").all()).contains("HTTP/1.1 200 OK");
    }

    @Test
    void plainHttpOnTheTlsPortIsAHandshakeFailureAndAClientThatJustClosesIsNot() throws Exception {
        double failuresBefore = edge.metric("videoedge_tls_handshake_failures_total");
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", edge.httpsPort)) {
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            assertThat(s.getInputStream().readAllBytes())
                    .doesNotContain("HTTP/1.1".getBytes(StandardCharsets.US_ASCII));
        }
        await().untilAsserted(() -> assertThat(edge.metric("videoedge_tls_handshake_failures_total"))
                .isEqualTo(failuresBefore + 1));
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", edge.httpsPort)) {
            s.shutdownOutput(); // a TCP health check: connect, close (OpenSSL may answer with an alert)
            s.getInputStream().readAllBytes();
        }
        assertThat(sClient("-tls1_2").all()).contains("HTTP/1.1 200 OK");
        assertThat(edge.metric("videoedge_tls_handshake_failures_total")).isEqualTo(failuresBefore + 1);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-tls1_2", "-tls1_3"})
    void sessionTicketsResumeTheSession(String protocol) throws Exception {
        double resumedBefore = edge.metric("videoedge_tls_handshakes_resumed_total");
        Path session = edge.dir.resolve("session" + protocol + ".pem");
        assertThat(sClient(protocol, "-sess_out", session.toString()).all()).contains("New, ");
        Tools.Result second = sClient(protocol, "-sess_in", session.toString());
        assertThat(second.all()).contains("Reused, ").contains("HTTP/1.1 200 OK");
        assertThat(edge.metric("videoedge_tls_handshakes_resumed_total")).isGreaterThan(resumedBefore);
    }

    @Test
    void earlyDataIsAcceptedWhenConfigured() throws Exception {
        double before = edge.metric("videoedge_tls_early_data_requests_total");
        Path session = edge.dir.resolve("session-0rtt.pem");
        Tools.Result first = sClient("-tls1_3", "-sess_out", session.toString());
        assertThat(first.all()).contains("Max Early Data: 4096");
        Tools.Result early = Tools.run(
                List.of(
                        "openssl",
                        "s_client",
                        "-connect",
                        "127.0.0.1:" + edge.httpsPort,
                        "-servername",
                        "localhost",
                        "-CAfile",
                        TestCerts.cert().toString(),
                        "-ign_eof",
                        "-tls1_3",
                        "-sess_in",
                        session.toString(),
                        "-early_data",
                        request.toString()),
                new byte[0],
                null);
        assertThat(early.all())
                .contains("Reused, TLSv1.3")
                .contains("Early data was accepted")
                .contains("HTTP/1.1 200 OK");
        assertThat(edge.metric("videoedge_tls_early_data_requests_total")).isEqualTo(before + 1);
    }

    @Test
    void largeObjectsOverTlsArriveIntactThroughCurl() throws Exception {
        Path out = edge.dir.resolve("tls.out");
        Tools.Result r = Tools.run(List.of(
                "curl",
                "-sS",
                "--cacert",
                TestCerts.cert().toString(),
                "-o",
                out.toString(),
                "-w",
                "%{http_code} %{ssl_verify_result}",
                edge.https("/bench/seg-16m.m4s").toString()));
        assertThat(r.stdout()).isEqualTo("200 0");
        assertThat(Files.readAllBytes(out)).isEqualTo(edge.file("bench/seg-16m.m4s"));
    }

    @ParameterizedTest(name = "java.net.http over {0}")
    @ValueSource(strings = {"TLSv1.2", "TLSv1.3"})
    void javaHttpClientGetsRangesOverTls(String protocol) throws Exception {
        SSLParameters params = new SSLParameters();
        params.setProtocols(new String[] {protocol});
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .sslContext(TestCerts.trustingContext())
                .sslParameters(params)
                .build();
        byte[] file = edge.file("bench/seg-2m.m4s");
        HttpResponse<byte[]> whole = client.send(
                HttpRequest.newBuilder(edge.https("/bench/seg-2m.m4s")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(whole.statusCode()).isEqualTo(200);
        assertThat(whole.body()).isEqualTo(file);
        HttpResponse<byte[]> part = client.send(
                HttpRequest.newBuilder(edge.https("/bench/seg-2m.m4s"))
                        .header("Range", "bytes=1000000-1000099")
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(part.statusCode()).isEqualTo(206);
        assertThat(part.body()).isEqualTo(java.util.Arrays.copyOfRange(file, 1_000_000, 1_000_100));
    }

    /**
     * kernelTlsEnabled is passed to OpenSSL; whether a session really got kTLS is read per session
     * and decides sendfile vs the pooled copy. This asserts that what is reported is consistent with
     * the kernel and with the path the bytes took: where the kernel offers the tls ULP (make vm-test
     * runs this class on Debian's kernel with the module loaded) the session must be in kernel TLS and
     * the body must go out with sendfile; where it does not (this project's build VM) only the
     * user-space branch can happen.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"TLSv1.2", "TLSv1.3"})
    void sessionsReportWhetherTheKernelTookOverTlsAndTheBytesFollowThatPath(String protocol) throws Exception {
        String kernel = KernelTls.kernelSupport();
        assertThat(edge.metrics()).contains("videoedge_ktls_info{kernel=\"" + kernel + "\",requested=\"true\"} 1");

        String sessions = "videoedge_tls_sessions_total{ktls=\"%s\",protocol=\"" + protocol + "\",resumed=\"false\"}";
        double copyBefore = edge.metric("videoedge_http_response_body_bytes_total{via=\"tls_copy\"}");
        double sendfileBefore = edge.metric("videoedge_http_response_body_bytes_total{via=\"sendfile\"}");
        double userSpaceBefore = edge.metric(sessions.formatted("false"));
        double kernelBefore = edge.metric(sessions.formatted("true"));

        SSLParameters params = new SSLParameters();
        params.setProtocols(new String[] {protocol});
        HttpClient fresh = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .sslContext(TestCerts.trustingContext())
                .sslParameters(params)
                .build();
        HttpResponse<byte[]> r = fresh.send(
                HttpRequest.newBuilder(edge.https("/bench/seg-2m.m4s")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.body()).isEqualTo(edge.file("bench/seg-2m.m4s"));
        long size = r.body().length;

        boolean gotKtls = edge.metric(sessions.formatted("true")) > kernelBefore;
        if (kernel.equals("available")) {
            assertThat(gotKtls)
                    .as(
                            "the kernel offers the tls ULP and the config asks for it: the %s session must be in kernel TLS",
                            protocol)
                    .isTrue();
        } else {
            assertThat(gotKtls)
                    .as("no tls ULP in this kernel: kTLS must be reported unavailable, never faked")
                    .isFalse();
        }
        // byte counters move right after each write call: the client may have the last byte first
        if (gotKtls) {
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(30))
                    .untilAsserted(
                            () -> assertThat(edge.metric("videoedge_http_response_body_bytes_total{via=\"sendfile\"}")
                                            - sendfileBefore)
                                    .isGreaterThanOrEqualTo(size));
        } else {
            assertThat(edge.metric(sessions.formatted("false"))).isEqualTo(userSpaceBefore + 1);
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(30))
                    .untilAsserted(
                            () -> assertThat(edge.metric("videoedge_http_response_body_bytes_total{via=\"tls_copy\"}")
                                            - copyBefore)
                                    .isEqualTo(size));
        }
    }

    @Test
    void plainHttpOnTheTlsPortIsDroppedAndTheServerKeepsServing() throws Exception {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", edge.httpsPort)) {
            s.setSoTimeout(30_000);
            s.getOutputStream()
                    .write("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] answer = s.getInputStream().readAllBytes();
            assertThat(new String(answer, StandardCharsets.ISO_8859_1)).doesNotContain("200 OK");
        } catch (java.net.SocketException reset) {
            // a reset is a fine way to drop it too
        }
        assertThat(edge.get(edge.https("/index.m3u8")).statusCode()).isEqualTo(200);
    }

    @Test
    void metricsShowTheHandshakes() throws Exception {
        double before = edge.metric("videoedge_tls_handshakes_total");
        edge.get(URI.create("https://localhost:" + edge.httpsPort + "/index.m3u8"));
        Tools.run(List.of(
                "curl",
                "-sS",
                "-o",
                "/dev/null",
                "--cacert",
                TestCerts.cert().toString(),
                edge.https("/index.m3u8").toString()));
        assertThat(edge.metric("videoedge_tls_handshakes_total")).isGreaterThanOrEqualTo(before + 1);
    }
}
