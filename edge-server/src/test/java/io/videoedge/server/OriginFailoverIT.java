package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.videoedge.server.http.HttpDates;
import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.TempDirs;
import io.videoedge.server.testing.TestOrigin;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Failover between real origins on loopback ({@code origin.url} then {@code origin.failover}): a primary
 * that refuses connections or answers 5xx is skipped for {@code origin.downFor} while the next one
 * serves, comes back by itself after that, and each origin's requests, results and health are in the
 * metrics under its host:port.
 */
class OriginFailoverIT {
    TestOrigin primary;
    TestOrigin backup;
    EdgeFixture edge;

    @AfterEach
    void stop() throws Exception {
        if (edge != null) edge.close();
        if (primary != null) primary.close();
        if (backup != null) backup.close();
    }

    private void start() throws Exception {
        primary = new TestOrigin();
        backup = new TestOrigin();
        edge = EdgeFixture.start("""
                origin:
                  url: %s
                  failover:
                    - %s
                  downFor: 3s
                  connectTimeout: 1s
                  readTimeout: 2s
                cache:
                  memory: 4m
                  disk:
                    path: %s
                    size: 64m
                bufferPool:
                  size: 8m
                  chunkSize: 64k
                """.formatted(primary.url(), backup.url(), TempDirs.create("edge-cache")));
    }

    private String label(TestOrigin o) {
        return "127.0.0.1:" + o.port();
    }

    @Test
    void aPrimaryThatAnswers5xxIsSkippedUntilItsDownTimeIsOver() throws Exception {
        start();
        for (TestOrigin o : new TestOrigin[] {primary, backup}) {
            o.object("/a.m4s", 1000);
            o.object("/b.m4s", 1000);
            o.object("/c.m4s", 1000);
        }
        primary.mode(TestOrigin.Mode.ERROR_500);
        HttpResponse<byte[]> a = edge.get(edge.http("/a.m4s"));
        assertThat(a.statusCode()).isEqualTo(200);
        assertThat(primary.requests("/a.m4s")).isEqualTo(1);
        assertThat(backup.requests("/a.m4s")).isEqualTo(1);
        assertThat(edge.gauge("videoedge_origin_upstream_up{origin=\"" + label(primary) + "\"}"))
                .isZero();
        assertThat(edge.gauge("videoedge_origin_upstream_up{origin=\"" + label(backup) + "\"}"))
                .isEqualTo(1);

        // while it is down the primary is not asked
        assertThat(edge.get(edge.http("/b.m4s")).statusCode()).isEqualTo(200);
        assertThat(primary.requests("/b.m4s")).isZero();
        assertThat(backup.requests("/b.m4s")).isEqualTo(1);

        // healthy again and its time over: back to the primary (down for 3 s: long enough for the checks
        // above on a loaded machine, which must all fall inside it)
        primary.mode(TestOrigin.Mode.NORMAL);
        await().atMost(Duration.ofSeconds(15))
                .until(() -> edge.gauge("videoedge_origin_upstream_up{origin=\"" + label(primary) + "\"}") == 1);
        assertThat(edge.get(edge.http("/c.m4s")).statusCode()).isEqualTo(200);
        assertThat(primary.requests("/c.m4s")).isEqualTo(1);
        assertThat(backup.requests("/c.m4s")).isZero();
        assertThat(edge.metric("videoedge_origin_upstream_requests_total{origin=\"" + label(primary)
                        + "\",result=\"status_5xx\"}"))
                .isEqualTo(1);
        assertThat(edge.metric(
                        "videoedge_origin_upstream_requests_total{origin=\"" + label(backup) + "\",result=\"ok\"}"))
                .isEqualTo(2);
    }

    /**
     * An answer is as old as the request that got it: the backup's, asked after the primary hung for its
     * 2 s read timeout, is not taken for 2 s old (its Age 0, its Date the second the backup was asked in
     * or the one after).
     */
    @Test
    void theBackupsAnswerAfterAHungPrimaryIsAsOldAsTheRequestToTheBackup() throws Exception {
        start();
        backup.object("/d.m4s", 1000);
        backup.cacheControl("/d.m4s", "max-age=60");
        primary.mode(TestOrigin.Mode.HANG);
        long before = System.currentTimeMillis();
        HttpResponse<byte[]> d = edge.get(edge.http("/d.m4s"));
        long after = System.currentTimeMillis();
        assertThat(d.statusCode()).isEqualTo(200);
        assertThat(after - before).as("the primary's read timeout passed first").isGreaterThanOrEqualTo(2000);
        assertThat(d.headers().firstValue("Age")).hasValue("0");
        assertThat(HttpDates.parseSeconds(d.headers().firstValue("Date").orElseThrow()))
                .isBetween((before + 2000) / 1000, after / 1000);
    }

    @Test
    void aPrimaryThatRefusesConnectionsFailsOverAndEveryOriginDownIsA502() throws Exception {
        start();
        backup.object("/a.m4s", 1000);
        primary.stop();
        HttpResponse<byte[]> a = edge.get(edge.http("/a.m4s"));
        assertThat(a.statusCode()).isEqualTo(200);
        assertThat(edge.metric("videoedge_origin_upstream_requests_total{origin=\"" + label(primary)
                        + "\",result=\"connect\"}"))
                .isEqualTo(1);
        backup.stop();
        HttpResponse<byte[]> b = edge.get(edge.http("/b.m4s"));
        assertThat(b.statusCode()).isEqualTo(502);
        assertThat(edge.get(edge.http("/a.m4s")).statusCode())
                .as("cached: still served")
                .isEqualTo(200);
    }
}
