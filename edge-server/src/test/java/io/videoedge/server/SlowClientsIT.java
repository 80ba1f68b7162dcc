package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.RawHttp;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The defences against clients that hold connections without using them, on a real server on
 * loopback with short limits: a slowloris that trickles header lines is cut at limits.headerTimeout, a
 * stalled TLS handshake at limits.handshakeTimeout, a reader that takes a 16 MiB body below
 * limits.minSendBytes per limits.minSendPeriod is dropped, pipelining beyond limits.maxPipelined gets
 * 429; each counted by reason, and a normal client is served meanwhile.
 */
class SlowClientsIT {
    static final int SLOWLORIS = 1000;
    static EdgeFixture edge;

    @BeforeAll
    static void start() throws Exception {
        edge = EdgeFixture.start("""
                limits:
                  maxUriLength: 2k
                  maxConnections: 5000
                  maxConnectionsPerAddress: 4000
                  headerTimeout: 2s
                  handshakeTimeout: 1s
                  minSendBytes: 1m
                  minSendPeriod: 2s
                  maxPipelined: 4
                """, true); // with the 16 MiB bench segment
    }

    @AfterAll
    static void stop() throws Exception {
        edge.close();
    }

    static double refused(String reason) throws Exception {
        return edge.metric("videoedge_connections_refused_total{reason=\"" + reason + "\"}");
    }

    /** True when the server closed {@code s}: end of stream or a reset within {@code wait}. */
    static boolean closedByServer(Socket s, Duration wait) throws IOException {
        s.setSoTimeout((int) wait.toMillis());
        try {
            InputStream in = s.getInputStream();
            while (true) {
                if (in.read() < 0) return true;
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    static Socket connect(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        return s;
    }

    @Test
    void slowlorisIsCutAtTheHeaderDeadlineWhileANormalClientIsServed() throws Exception {
        awaitNoConnections();
        double before = refused("header_timeout");
        List<Socket> clients = new ArrayList<>(); // trickling
        List<Socket> silent = new ArrayList<>();
        long[] connectedAt = new long[SLOWLORIS];
        long started = System.nanoTime();
        try {
            for (int i = 0; i < SLOWLORIS; i++) {
                Socket s = connect(edge.httpPort);
                connectedAt[i] = System.nanoTime();
                if (i % 10 != 0) { // every tenth sends nothing at all
                    s.getOutputStream().write("GET /index.m3u8 HTTP/1.1\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    clients.add(s);
                } else {
                    silent.add(s);
                }
            }
            // trickle one header line to each every 300 ms: every byte used to reset the idle timeout
            CompletableFuture<Void> trickle = CompletableFuture.runAsync(() -> {
                for (int round = 0; round < 30; round++) {
                    for (Socket s : clients) {
                        try {
                            OutputStream out = s.getOutputStream();
                            out.write(("X-Slow-" + round + ": 1\r\n").getBytes(StandardCharsets.ISO_8859_1));
                        } catch (IOException e) {
                            // cut by the server
                        }
                    }
                    try {
                        Thread.sleep(300);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            // connections younger than headerTimeout (2s, less a margin) cannot have been cut yet, however
            // long the 1,000 connects took on a busy machine: at least those must be open. The gauge counts
            // what the server accepted, and a connect returns once the kernel queued it, so the last ones
            // may still wait in the listen backlog (882 of 1,000 counted once in CI): it is read again for up
            // to a second, each time against the connections still younger than the deadline
            long young = young(connectedAt);
            assertThat(young)
                    .as("slowloris connections made within the deadline")
                    .isPositive();
            await("the slowloris connections are open before the deadline")
                    .atMost(Duration.ofSeconds(1))
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> {
                        long youngNow = young(connectedAt);
                        assertThat(edge.gauge("videoedge_connections"))
                                .as("open connections (%d made within the deadline)", youngNow)
                                .isGreaterThanOrEqualTo(youngNow * 0.9);
                    });
            long t0 = System.nanoTime();
            HttpResponse<byte[]> normal = edge.get(edge.http("/index.m3u8"));
            long normalMs = (System.nanoTime() - t0) / 1_000_000;
            assertThat(normal.statusCode()).isEqualTo(200);
            assertThat(normal.body()).isEqualTo(edge.file("index.m3u8"));

            try {
                await("every slowloris connection is cut after limits.headerTimeout (2s)")
                        .atMost(Duration.ofSeconds(15))
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> refused("header_timeout") - before >= SLOWLORIS);
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError(diagnose(), e);
            }
            long cutMs = (System.nanoTime() - started) / 1_000_000;
            int remaining = 0;
            for (Socket s : clients) {
                if (!closedByServer(s, Duration.ofMillis(200))) remaining++;
            }
            for (Socket s : silent) {
                if (!closedByServer(s, Duration.ofMillis(200))) remaining++;
            }
            trickle.cancel(true);
            System.out.printf(
                    "slowloris: %d clients trickling a header line every 300 ms, headerTimeout 2s: %d remain after the"
                            + " deadline, all cut %d ms after the first connected; a normal GET meanwhile: 200 in %d ms%n",
                    SLOWLORIS, remaining, cutMs, normalMs);
            assertThat(remaining).isZero();
            assertThat(refused("header_timeout") - before).isEqualTo(SLOWLORIS);
            assertThat(edge.get(edge.http("/index.m3u8")).statusCode()).isEqualTo(200);
        } finally {
            for (Socket s : clients) s.close();
            for (Socket s : silent) s.close();
        }
    }

    @Test
    void aCompleteRequestWithinTheDeadlineIsServedOnAKeptConnection() throws Exception {
        try (RawHttp c = new RawHttp(edge.httpPort)) {
            c.send("GET /index.m3u8 HTTP/1.1\r\n");
            Thread.sleep(500);
            c.send("Host: x\r\n");
            Thread.sleep(500); // 1 s of the 2 s headerTimeout: slack for a loaded machine
            assertThat(c.send("\r\n").read().status()).isEqualTo(200);
            Thread.sleep(1500); // idle between requests is keepAlive's business, not the header deadline's
            assertThat(c.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                            .read()
                            .status())
                    .isEqualTo(200);
        }
    }

    @Test
    void aStalledTlsHandshakeIsCutAtTheHandshakeDeadline() throws Exception {
        awaitNoConnections();
        double before = refused("handshake_timeout");
        double headerBefore = refused("header_timeout");
        List<Socket> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 50; i++) {
                Socket s = connect(edge.httpsPort);
                if (i % 2 == 0) {
                    // the start of a ClientHello record that never ends
                    s.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, (byte) 0xfc});
                }
                clients.add(s);
            }
            long started = System.nanoTime();
            HttpResponse<byte[]> normal = edge.get(edge.https("/index.m3u8"));
            assertThat(normal.statusCode()).isEqualTo(200);
            for (Socket s : clients) {
                assertThat(closedByServer(s, Duration.ofSeconds(5)))
                        .as("cut after limits.handshakeTimeout")
                        .isTrue();
            }
            long cutMs = (System.nanoTime() - started) / 1_000_000;
            // the handshake deadline cut every one, the header deadline (2 s) none: counted, not timed
            assertThat(refused("handshake_timeout") - before).isEqualTo(50);
            assertThat(refused("header_timeout")).isEqualTo(headerBefore);
            System.out.printf("stalled TLS handshakes: 50 cut within %d ms (handshakeTimeout 1s)%n", cutMs);
        } finally {
            for (Socket s : clients) s.close();
        }
    }

    @Test
    void aSlowReaderOfALargeBodyIsDroppedWhileANormalReaderCompletes() throws Exception {
        byte[] big = edge.file("bench/seg-16m.m4s");
        double before = refused("slow_reader");
        CompletableFuture<HttpResponse<byte[]>> normal = CompletableFuture.supplyAsync(() -> {
            try {
                return edge.get(edge.http("/bench/seg-16m.m4s"));
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        long received = 0;
        long started = System.nanoTime();
        try (Socket slow = new Socket()) {
            slow.setReceiveBufferSize(16 * 1024);
            slow.connect(new InetSocketAddress("127.0.0.1", edge.httpPort), 10_000);
            slow.getOutputStream()
                    .write("GET /bench/seg-16m.m4s HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            slow.setSoTimeout(30_000);
            InputStream in = slow.getInputStream();
            byte[] buf = new byte[4096];
            // 8 KiB/s, far below minSendBytes 1m per minSendPeriod 2s
            while (System.nanoTime() - started < 30_000_000_000L) {
                int n;
                try {
                    n = in.read(buf);
                } catch (IOException e) {
                    break; // reset
                }
                if (n < 0) break;
                received += n;
                Thread.sleep(500);
            }
        }
        long cutMs = (System.nanoTime() - started) / 1_000_000;
        HttpResponse<byte[]> n = normal.get();
        assertThat(n.statusCode()).isEqualTo(200);
        assertThat(n.body()).isEqualTo(big);
        System.out.printf(
                "slow reader of 16 MiB at 8 KiB/s (minSendBytes 1m per 2s): cut after %d ms having received %d bytes;"
                        + " a normal reader got all 16 MiB%n",
                cutMs, received);
        assertThat(received).as("cut before the whole body\n" + diagnose()).isLessThan(big.length);
        assertThat(cutMs).as("not before one period").isGreaterThanOrEqualTo(2000);
        assertThat(refused("slow_reader") - before).isEqualTo(1);
    }

    @Test
    void pipeliningBeyondTheBoundGets429AfterTheEarlierResponses() throws Exception {
        double before = refused("pipeline");
        try (RawHttp c = new RawHttp(edge.httpPort)) {
            StringBuilder eight = new StringBuilder();
            for (int i = 0; i < 8; i++) eight.append("GET /bench/seg-16m.m4s HTTP/1.1\r\nHost: x\r\n\r\n");
            c.send(eight.toString());
            // the first is answered, 4 more may wait behind it (maxPipelined 4), the sixth is refused
            for (int i = 0; i < 5; i++) {
                RawHttp.Response r = c.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).hasSize(16 << 20);
            }
            RawHttp.Response refused = c.read();
            assertThat(refused.status()).isEqualTo(429);
            assertThat(refused.header("Retry-After")).isEqualTo("1");
            assertThat(refused.header("Connection")).isEqualTo("close");
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(refused("pipeline") - before).isEqualTo(1);
        // pipelined requests whose responses leave at once are never in flight: no bound applies
        try (RawHttp c = new RawHttp(edge.httpPort)) {
            c.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n".repeat(20));
            for (int i = 0; i < 20; i++) assertThat(c.read().status()).isEqualTo(200);
        }
    }

    /** What the server and its guard thread are doing, for a failure message. */
    static String diagnose() {
        StringBuilder sb = new StringBuilder();
        try {
            for (String l : edge.metrics().split("\n")) {
                if (l.startsWith("videoedge_connections")) sb.append(l).append('\n');
            }
        } catch (Exception e) {
            sb.append(e).append('\n');
        }
        Thread.getAllStackTraces().forEach((t, stack) -> {
            if (t.getName().equals("edge-guard")) {
                sb.append(t).append(' ').append(t.getState()).append('\n');
                for (StackTraceElement e : stack) sb.append("  at ").append(e).append('\n');
            }
        });
        return sb.toString();
    }

    static void awaitNoConnections() {
        await("connections of earlier tests are gone")
                .atMost(Duration.ofSeconds(30))
                .until(() -> edge.gauge("videoedge_connections") == 0);
    }

    /** How many of the connections were made less than 1.8 s ago (headerTimeout 2 s, less a margin). */
    private static long young(long[] connectedAt) {
        long since = System.nanoTime() - Duration.ofMillis(1800).toNanos();
        return java.util.Arrays.stream(connectedAt).filter(t -> t > since).count();
    }
}
