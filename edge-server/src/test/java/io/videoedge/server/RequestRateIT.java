package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.RawHttp;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * limits.maxRequestRate and requestBurst on a real server on loopback: one address asking faster than
 * the cap gets its burst, then 429 with a Retry-After, on a connection that stays usable (closed after
 * the 429 when the request asked for that, as after any response); another
 * address is not affected; each refusal is counted; without the cap (the default) the same client is
 * never refused.
 */
class RequestRateIT {
    static final String GET = "GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n";

    @Test
    void anAddressOverTheRateGets429WithRetryAfterAndKeepsItsConnection() throws Exception {
        try (EdgeFixture edge = EdgeFixture.start(
                "limits:\n  maxUriLength: 2k\n  maxConnections: 1000\n  maxRequestRate: 2\n  requestBurst: 10\n")) {
            try (RawHttp c = new RawHttp(edge.httpPort)) {
                int ok = 0;
                int refused = 0;
                String retryAfter = null;
                long started = System.nanoTime();
                for (int i = 0; i < 30; i++) {
                    RawHttp.Response r = c.send(GET).read();
                    if (r.status() == 200) ok++;
                    if (r.status() == 429) {
                        refused++;
                        retryAfter = r.header("Retry-After");
                        assertThat(r.header("Connection"))
                                .as("the connection is kept")
                                .isEqualToIgnoringCase("keep-alive");
                    }
                }
                // the burst of 10 and the tokens refilled (2 a second) while the 30 went by: usually well
                // under a second, but a loaded machine may take longer
                double seconds = (System.nanoTime() - started) / 1e9;
                assertThat(ok).isBetween(10, 11 + (int) (2 * seconds));
                assertThat(refused).isEqualTo(30 - ok);
                assertThat(Integer.parseInt(retryAfter)).isBetween(1, 2);
                assertThat(edge.metric("videoedge_requests_refused_total{reason=\"request_rate\"}"))
                        .isEqualTo(refused);
                // another address has its own bucket
                assertThat(statusFrom("127.0.0.2", edge.httpPort)).isEqualTo(200);
                Thread.sleep(1100); // two tokens a second: one is back
                assertThat(c.send(GET).read().status())
                        .as("the same connection, later")
                        .isEqualTo(200);
            }
        }
    }

    /**
     * A 429 of the rate cap ends the connection when the request asked for that, as any other response
     * does (RFC 9112 9.6): {@code Connection: close} on HTTP/1.1, HTTP/1.0 without keep-alive. An
     * HTTP/1.0 request with {@code Connection: keep-alive} keeps it, as HTTP/1.1 does by default.
     */
    @Test
    void a429ClosesTheConnectionWhenTheRequestAskedForThat() throws Exception {
        try (EdgeFixture edge = EdgeFixture.start(
                "limits:\n  maxUriLength: 2k\n  maxConnections: 1000\n  maxRequestRate: 1\n  requestBurst: 1\n")) {
            assert429(edge.httpPort, "GET /index.m3u8 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", true);
            assert429(edge.httpPort, "GET /index.m3u8 HTTP/1.0\r\n\r\n", true);
            assert429(edge.httpPort, "GET /index.m3u8 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", false);
            assert429(edge.httpPort, GET, false);
        }
    }

    /** Sends {@code request} on new connections until one is answered 429 (a token refills each second). */
    private static void assert429(int port, String request, boolean closes) throws Exception {
        for (int i = 0; i < 10; i++) {
            try (RawHttp c = new RawHttp(port)) {
                RawHttp.Response r = c.send(request).read();
                if (r.status() == 200) continue; // the bucket's token, or one refilled meanwhile
                assertThat(r.status()).as(request).isEqualTo(429);
                assertThat(r.header("Connection")).as(request).isEqualToIgnoringCase(closes ? "close" : "keep-alive");
                if (closes) {
                    assertThat(c.closedByServer())
                            .as("closed after the 429: " + request)
                            .isTrue();
                } else {
                    assertThat(c.send(request).read().status())
                            .as("the same connection answers again: " + request)
                            .isIn(200, 429);
                }
                return;
            }
        }
        throw new AssertionError("never over the rate: " + request);
    }

    @Test
    void withoutTheCapTheSameClientIsNeverRefused() throws Exception {
        try (EdgeFixture edge = EdgeFixture.start();
                RawHttp c = new RawHttp(edge.httpPort)) {
            for (int i = 0; i < 300; i++) {
                assertThat(c.send(GET).read().status()).isEqualTo(200);
            }
            assertThat(edge.metric("videoedge_requests_refused_total{reason=\"request_rate\"}"))
                    .isZero();
        }
    }

    private static int statusFrom(String source, int port) throws Exception {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            s.setSoTimeout(10_000);
            s.getOutputStream().write(GET.getBytes(StandardCharsets.ISO_8859_1));
            byte[] head = s.getInputStream().readNBytes(12);
            return Integer.parseInt(new String(head, StandardCharsets.ISO_8859_1).substring(9, 12));
        }
    }
}
