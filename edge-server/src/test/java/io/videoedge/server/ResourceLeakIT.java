package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.RawHttp;
import io.videoedge.server.testing.TestCerts;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * 10,000 requests of every kind (200, 206, 304, HEAD, 404, refused malformed requests on fresh
 * connections, TLS with new handshakes) against the server in its own JVM: afterwards its direct
 * memory and its open file descriptors are exactly where they were before.
 */
class ResourceLeakIT {
    static EdgeFixture edge;

    @BeforeAll
    static void start() throws Exception {
        edge = EdgeFixture.startProcess(
                "", false, "-Xmx256m", "-XX:MaxDirectMemorySize=64m", "-Djdk.nio.maxCachedBufferSize=65536");
    }

    @AfterAll
    static void stop() throws Exception {
        edge.close();
    }

    @Test
    void directMemoryAndFileDescriptorsAreFlatAfterTenThousandRequests() throws Exception {
        assertThat(run(1_000)).isEqualTo(1_000); // warm-up: lazily created things exist from here on
        Snapshot before = snapshot();

        assertThat(run(10_000)).isEqualTo(10_000);
        Snapshot after = snapshot();

        assertThat(after.fds).as("open file descriptors").isEqualTo(before.fds);
        assertThat(after.directBytes).as("direct memory bytes").isEqualTo(before.directBytes);
        assertThat(after.directBuffers).as("direct buffers").isEqualTo(before.directBuffers);
        assertThat(edge.gauge("videoedge_buffer_pool_used_bytes")).isZero();
        assertThat(edge.metric("videoedge_http_requests_total{method=\"GET\",status=\"200\"}"))
                .isGreaterThan(4_000);
        assertThat(edge.metric("videoedge_http_requests_total{method=\"GET\",status=\"404\"}"))
                .isGreaterThanOrEqualTo(1_100);
    }

    private record Snapshot(double fds, double directBytes, double directBuffers) {}

    private Snapshot snapshot() throws Exception {
        await("all connections closed")
                .atMost(Duration.ofSeconds(60))
                .until(() -> edge.gauge("videoedge_connections") == 0);
        Snapshot s = new Snapshot(
                edge.gauge("videoedge_process_open_fds"),
                edge.gauge("videoedge_jvm_direct_memory_used_bytes"),
                edge.gauge("videoedge_jvm_direct_buffers"));
        assertThat(s.fds).as("the server has listening sockets and jars open").isGreaterThan(10);
        assertThat(s.directBytes)
                .as("the buffer pool lives in direct memory")
                .isGreaterThanOrEqualTo(edge.gauge("videoedge_buffer_pool_capacity_bytes"));
        return s;
    }

    /** Runs n requests on 4 threads; returns how many got the status they should. */
    private int run(int n) throws Exception {
        AtomicInteger ok = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int first = t;
            threads.add(Thread.ofVirtual().start(() -> {
                Clients clients = new Clients();
                try {
                    for (int i = first; i < n; i += 4) {
                        if (request(i, clients)) ok.incrementAndGet();
                    }
                } catch (Exception e) {
                    throw new AssertionError(e);
                } finally {
                    clients.plain.close(); // closes the client's connections, so the server can be measured idle
                    clients.tls.close();
                }
            }));
        }
        for (Thread th : threads) th.join();
        return ok.get();
    }

    private static final class Clients {
        final HttpClient plain =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpClient tls = tlsClient();
    }

    private static HttpClient tlsClient() {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .sslContext(TestCerts.trustingContext())
                .build();
    }

    private boolean request(int i, Clients c) throws Exception {
        return switch (i % 10) {
            case 0, 1, 2, 3 -> status(c.plain, edge.http("/hls/seg-0000" + (1 + i % 6) + ".m4s"), "GET") == 200;
            case 4 -> status(c.plain, edge.http("/mp4/clip.mp4"), "GET", "Range", "bytes=100-60000") == 206;
            case 5 -> status(c.plain, edge.http("/index.m3u8"), "GET", "If-None-Match", etag(c.plain)) == 304;
            case 6 -> status(c.plain, edge.http("/missing/" + i + ".m4s"), "GET") == 404;
            case 7 -> malformed(i);
            case 8 -> status(c.plain, edge.http("/hls/playlist.m3u8"), "HEAD") == 200;
            default -> {
                if (i % 100 == 9) { // a new client: a new TLS handshake
                    c.tls.close();
                    c.tls = tlsClient();
                }
                yield status(c.tls, edge.https("/hls/init.mp4"), "GET") == 200;
            }
        };
    }

    private volatile String etag;

    private String etag(HttpClient client) throws Exception {
        if (etag == null) {
            etag = client.send(
                            HttpRequest.newBuilder(edge.http("/index.m3u8")).build(),
                            HttpResponse.BodyHandlers.discarding())
                    .headers()
                    .firstValue("ETag")
                    .orElseThrow();
        }
        return etag;
    }

    private boolean malformed(int i) throws Exception {
        String[] requests = {
            "GET /" + "a".repeat(3000) + " HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /index.m3u8 HTTP/1.1\r\nHost: x\r\nCookie: " + "c".repeat(9000) + "\r\n\r\n",
            "garbage\r\n\r\n",
            "GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
        };
        int[] statuses = {414, 431, 400, 400};
        int k = (i / 10) % requests.length;
        return RawHttp.exchange(edge.httpPort, requests[k]).status() == statuses[k];
    }

    private static int status(HttpClient client, java.net.URI uri, String method, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody());
        if (headers.length > 0) b.headers(headers);
        return client.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
