package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.TempDirs;
import io.videoedge.server.testing.TestOrigin;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * An origin that restarts closes every connection the edge holds in its pool. The first miss after it
 * is back must be fetched, not answered 502 because the retry after a stale connection took another
 * stale one from the pool (seen while looking into make chaos's origin-down scenario).
 */
class OriginRestartIT {
    @Test
    void theFirstMissAfterTheOriginRestartedIsFetched() throws Exception {
        try (TestOrigin origin = new TestOrigin();
                EdgeFixture edge = EdgeFixture.start("""
                        origin:
                          url: %s
                          connectTimeout: 1s
                          readTimeout: 5s
                          maxConnections: 16
                        cache:
                          memory: 4m
                          disk:
                            path: %s
                            size: 64m
                        """.formatted(origin.url(), TempDirs.create("edge-cache")));
                ExecutorService pool = Executors.newFixedThreadPool(8)) {
            for (int i = 0; i < 8; i++) origin.object("/warm/" + i, 100_000);
            origin.object("/after", 100_000);
            origin.hold(); // eight misses at once: eight pooled connections
            List<Future<HttpResponse<byte[]>>> warm = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String path = "/warm/" + i;
                warm.add(pool.submit(() -> edge.get(edge.http(path))));
            }
            // all eight at the origin at once, held: eight connections, pooled once answered
            await().atMost(Duration.ofSeconds(10)).until(() -> origin.totalRequests() == 8);
            origin.release();
            for (Future<HttpResponse<byte[]>> f : warm)
                assertThat(f.get().statusCode()).isEqualTo(200);

            origin.stop();
            origin.restart();
            HttpResponse<byte[]> r = edge.get(edge.http("/after"));
            assertThat(r.statusCode()).as("the first miss after the restart").isEqualTo(200);
            assertThat(origin.requests("/after")).isEqualTo(1);
        }
    }
}
