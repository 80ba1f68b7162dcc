package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.TempDirs;
import io.videoedge.server.testing.TestCerts;
import io.videoedge.server.testing.TestOrigin;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * 200 concurrent large transfers of every kind (origin misses streamed while filling, disk hits and
 * memory hits over TLS, local files) against the server in its own JVM with
 * -XX:MaxDirectMemorySize=32m and a 16m buffer pool: direct memory never grows past what the pool
 * took at startup, no direct buffer is created on the request path, and the pool is never exhausted.
 */
class DirectMemoryBoundIT {
    static TestOrigin origin;
    static EdgeFixture edge;

    @BeforeAll
    static void start() throws Exception {
        origin = new TestOrigin();
        edge = EdgeFixture.startProcess(
                """
                origin:
                  url: %s
                  maxConnections: 16
                  readTimeout: 30s
                cache:
                  memory: 64m
                  memoryMaxObject: 2m
                  disk:
                    path: %s
                    size: 512m
                bufferPool:
                  size: 16m
                  chunkSize: 128k
                """.formatted(origin.url(), TempDirs.create("edge-cache")),
                true,
                "-Xmx256m",
                "-XX:MaxDirectMemorySize=32m",
                "-Djdk.nio.maxCachedBufferSize=65536");
    }

    @AfterAll
    static void stop() throws Exception {
        edge.close();
        origin.close();
    }

    @Test
    void directMemoryStaysWithinThePoolUnder200ConcurrentLargeTransfers() throws Exception {
        List<Download> downloads = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            byte[] miss = origin.object("/big/miss-" + i + ".m4s", 3_000_000);
            downloads.add(new Download(edge.http("/big/miss-" + i + ".m4s"), digest(miss)));
        }
        byte[] onDisk = origin.object("/big/disk.m4s", 6_000_000);
        byte[] inMemory = origin.object("/big/memory.m4s", 1_500_000);
        // warm the two cached objects (and check them), then everything else runs at once
        assertThat(download(new Download(edge.https("/big/disk.m4s"), digest(onDisk))))
                .isTrue();
        assertThat(download(new Download(edge.https("/big/memory.m4s"), digest(inMemory))))
                .isTrue();
        assertThat(download(new Download(edge.https("/big/memory.m4s"), digest(inMemory))))
                .isTrue(); // second request: promoted
        org.awaitility.Awaitility.await("in the memory tier")
                .atMost(Duration.ofSeconds(30))
                .until(() -> edge.gauge("videoedge_cache_memory_entries") == 1);
        for (int i = 0; i < 50; i++) downloads.add(new Download(edge.https("/big/disk.m4s"), digest(onDisk)));
        for (int i = 0; i < 50; i++) downloads.add(new Download(edge.https("/big/memory.m4s"), digest(inMemory)));
        byte[] local = edge.file("bench/seg-16m.m4s");
        for (int i = 0; i < 50; i++) downloads.add(new Download(edge.http("/bench/seg-16m.m4s"), digest(local)));

        double directAtStart = edge.gauge("videoedge_jvm_direct_memory_used_bytes");
        double buffersAtStart = edge.gauge("videoedge_jvm_direct_buffers");
        double poolBytes = edge.gauge("videoedge_buffer_pool_capacity_bytes");
        assertThat(poolBytes).isEqualTo(16 << 20);

        AtomicBoolean running = new AtomicBoolean(true);
        double[] maxDirect = {0};
        double[] maxPoolUsed = {0};
        Thread sampler = Thread.ofVirtual().start(() -> {
            while (running.get()) {
                try {
                    String m = edge.metrics();
                    maxDirect[0] = Math.max(
                            maxDirect[0],
                            io.videoedge.server.testing.Metrics.required(m, "videoedge_jvm_direct_memory_used_bytes"));
                    maxPoolUsed[0] = Math.max(
                            maxPoolUsed[0],
                            io.videoedge.server.testing.Metrics.required(m, "videoedge_buffer_pool_used_bytes"));
                } catch (Exception e) {
                    // the next sample
                }
            }
        });

        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        List<Future<Boolean>> results = new ArrayList<>();
        for (Download d : downloads) results.add(pool.submit(() -> download(d)));
        int ok = 0;
        for (Future<Boolean> f : results) if (f.get()) ok++;
        running.set(false);
        sampler.join();
        pool.shutdown();

        assertThat(downloads).hasSize(200);
        assertThat(ok).as("transfers complete and intact").isEqualTo(200);
        assertThat(maxPoolUsed[0]).as("the pool was in use during the run").isGreaterThan(0);
        assertThat(maxDirect[0])
                .as("direct memory never grew past the pool allocated at startup")
                .isLessThanOrEqualTo(directAtStart);
        assertThat(directAtStart)
                .as("the pool is direct memory, so it is measured here")
                .isBetween(poolBytes, (double) (32 << 20));
        assertThat(edge.gauge("videoedge_jvm_direct_buffers"))
                .as("no direct buffer created on the request path")
                .isEqualTo(buffersAtStart);
        assertThat(edge.gauge("videoedge_buffer_pool_exhausted_total")).isZero();
        assertThat(origin.requests("/big/disk.m4s")).isEqualTo(1);
        assertThat(Files.readString(edge.processLog)).doesNotContain("OutOfMemoryError");
    }

    private record Download(URI uri, byte[] sha256) {}

    private static final HttpClient PLAIN = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(30))
            .build();
    private static final HttpClient TLS = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .sslContext(TestCerts.trustingContext())
            .connectTimeout(Duration.ofSeconds(30))
            .build();

    private static boolean download(Download d) throws Exception {
        HttpClient client = d.uri.getScheme().equals("https") ? TLS : PLAIN;
        HttpResponse<InputStream> r = client.send(
                HttpRequest.newBuilder(d.uri).timeout(Duration.ofSeconds(120)).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (InputStream in = r.body()) {
            byte[] buf = new byte[64 * 1024];
            for (int n; (n = in.read(buf)) > 0; ) md.update(buf, 0, n);
        }
        return r.statusCode() == 200 && Arrays.equals(md.digest(), d.sha256);
    }

    private static byte[] digest(byte[] data) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(data);
    }
}
