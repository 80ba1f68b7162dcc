package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.TempDirs;
import io.videoedge.server.testing.TestOrigin;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * POST /admin/purge on a real server in front of a real origin on loopback: refused without the
 * token (401) or with a wrong one (403) while serving goes on; an exact path and a prefix removed from
 * the memory and the disk tier (the next request is a miss, also after a restart); a fill in flight
 * when the purge arrives stores nothing; a repeated purge id is not applied twice.
 */
class PurgeIT {
    TestOrigin origin;
    EdgeFixture edge;
    final HttpClient client =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void start() throws Exception {
        origin = new TestOrigin();
        Path disk = TempDirs.create("edge-purge");
        edge = EdgeFixture.start("""
                origin:
                  url: %s
                  connectTimeout: 1s
                  readTimeout: 5s
                  maxConnections: 8
                cache:
                  memory: 4m
                  memoryMaxObject: 1m
                  disk:
                    path: %s
                    size: 64m
                bufferPool:
                  size: 8m
                  chunkSize: 64k
                """.formatted(origin.url(), disk));
    }

    @AfterEach
    void stop() throws Exception {
        if (edge != null) edge.close();
        if (origin != null) origin.close();
    }

    private String get(String path) throws Exception {
        HttpResponse<byte[]> r = edge.get(edge.http(path));
        assertThat(r.statusCode()).as("GET %s", path).isEqualTo(200);
        return r.headers().firstValue("X-Cache").orElse("");
    }

    private HttpResponse<String> purge(String query, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + edge.adminPort + "/admin/purge?" + query))
                .POST(HttpRequest.BodyPublishers.noBody());
        if (token != null) b.header("Authorization", "Bearer " + token);
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String q(String name, String value) {
        return name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    @Test
    void refusesWithoutTheTokenOrWithAWrongOneAndKeepsServing() throws Exception {
        origin.object("/v/a.mp4", 10_000);
        assertThat(get("/v/a.mp4")).isEqualTo("miss");

        HttpResponse<String> none = purge(q("path", "/v/a.mp4"), null);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
        assertThat(none.body()).contains("bearer token is required");
        HttpResponse<String> wrong = purge(q("path", "/v/a.mp4"), EdgeFixture.ADMIN_TOKEN + "x");
        assertThat(wrong.statusCode()).isEqualTo(403);
        assertThat(wrong.body()).contains("wrong admin token");
        HttpResponse<String> get = client.send(
                HttpRequest.newBuilder(edge.admin("/admin/purge?path=/v/a.mp4"))
                        .header("Authorization", "Bearer " + EdgeFixture.ADMIN_TOKEN)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(get.statusCode()).isEqualTo(405);
        assertThat(purge(q("path", "/v/../etc/passwd"), EdgeFixture.ADMIN_TOKEN).statusCode())
                .isEqualTo(400);
        assertThat(purge(q("path", "/a") + "&" + q("prefix", "/b"), EdgeFixture.ADMIN_TOKEN)
                        .statusCode())
                .isEqualTo(400);

        assertThat(get("/v/a.mp4")).as("nothing was purged: still cached").isEqualTo("hit-memory");
        assertThat(edge.metric("videoedge_admin_purge_requests_total{result=\"unauthorized\"}"))
                .isEqualTo(1);
        assertThat(edge.metric("videoedge_admin_purge_requests_total{result=\"forbidden\"}"))
                .isEqualTo(1);
        assertThat(edge.metric("videoedge_admin_purge_requests_total{result=\"bad_request\"}"))
                .isEqualTo(3);
        assertThat(edge.metric("videoedge_admin_purge_requests_total{result=\"ok\"}"))
                .isEqualTo(0);

        // the token file is read on every request: a rotated Secret needs no restart
        Files.writeString(edge.adminTokenFile, "rotated-token\n");
        assertThat(purge(q("path", "/v/a.mp4"), EdgeFixture.ADMIN_TOKEN).statusCode())
                .isEqualTo(403);
        assertThat(purge(q("path", "/v/a.mp4"), "rotated-token").statusCode()).isEqualTo(200);
    }

    @Test
    void anExactPathAndAPrefixLeaveBothTiersAndTheNextRequestIsAMiss() throws Exception {
        origin.object("/v/small.m3u8", 2_000); // memory and disk
        origin.object("/v/large.mp4", 2_000_000); // disk only (larger than memoryMaxObject)
        origin.object("/live/s1/001.ts", 50_000);
        origin.object("/live/s1/002.ts", 50_000);
        origin.object("/lively.ts", 50_000);
        for (String p :
                new String[] {"/v/small.m3u8", "/v/large.mp4", "/live/s1/001.ts", "/live/s1/002.ts", "/lively.ts"}) {
            assertThat(get(p)).isEqualTo("miss");
        }
        assertThat(get("/v/small.m3u8")).isEqualTo("hit-memory");
        assertThat(get("/v/large.mp4")).isEqualTo("hit-disk");

        HttpResponse<String> exact = purge(q("path", "/v/small.m3u8"), EdgeFixture.ADMIN_TOKEN);
        assertThat(exact.statusCode()).isEqualTo(200);
        assertThat(exact.body()).contains("\"memory\":1", "\"disk\":1", "\"fills\":0");
        HttpResponse<String> large = purge(q("path", "/v/large.mp4"), EdgeFixture.ADMIN_TOKEN);
        assertThat(large.body()).contains("\"memory\":0", "\"disk\":1");
        HttpResponse<String> prefix = purge(q("prefix", "/live/"), EdgeFixture.ADMIN_TOKEN);
        assertThat(prefix.statusCode()).isEqualTo(200);
        assertThat(prefix.body()).contains("\"purge\":\"/live/*\"", "\"disk\":2");

        assertThat(get("/v/small.m3u8")).isEqualTo("miss");
        assertThat(get("/v/large.mp4")).isEqualTo("miss");
        assertThat(get("/live/s1/001.ts")).isEqualTo("miss");
        assertThat(get("/live/s1/002.ts")).isEqualTo("miss");
        assertThat(get("/lively.ts"))
                .as("a directory prefix is not a string prefix")
                .isEqualTo("hit-memory");
        assertThat(origin.requests("/v/small.m3u8")).isEqualTo(2);
        assertThat(edge.metric("videoedge_cache_purged_total{tier=\"disk\"}")).isEqualTo(4);
        assertThat(edge.metric("videoedge_cache_purged_total{tier=\"memory\"}")).isEqualTo(3);

        // the disk tier survives a restart; what was purged from it does not come back
        purge(q("path", "/v/large.mp4"), EdgeFixture.ADMIN_TOKEN);
        edge.restart();
        assertThat(get("/lively.ts")).isEqualTo("hit-disk");
        assertThat(get("/v/large.mp4")).as("purged before the restart").isEqualTo("miss");
    }

    @Test
    void aFillInFlightWhenThePurgeArrivesStoresNothing() throws Exception {
        origin.object("/v/seg.m4s", 300_000);
        origin.hold(); // the origin answers after the purge
        CompletableFuture<HttpResponse<byte[]>> inFlight = CompletableFuture.supplyAsync(() -> {
            try {
                return edge.get(edge.http("/v/seg.m4s"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(20)).until(() -> edge.gauge("videoedge_cache_fills_in_flight") == 1);
        HttpResponse<String> p = purge(q("prefix", "/v/"), EdgeFixture.ADMIN_TOKEN);
        assertThat(p.body()).contains("\"fills\":1", "\"disk\":0");
        origin.release();
        assertThat(inFlight.get().statusCode())
                .as("the request that was waiting is answered")
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(20)).until(() -> edge.gauge("videoedge_cache_fills_in_flight") == 0);

        assertThat(get("/v/seg.m4s"))
                .as("the fill that ran through the purge stored nothing")
                .isEqualTo("miss");
        assertThat(origin.requests("/v/seg.m4s")).isEqualTo(2);
        assertThat(get("/v/seg.m4s")).as("the fill after the purge is stored").isIn("hit-memory", "hit-disk");
    }

    @Test
    void aRepeatedPurgeIdIsAnsweredWithoutPurgingAgain() throws Exception {
        origin.object("/v/a.mp4", 10_000);
        get("/v/a.mp4");
        HttpResponse<String> first = purge(q("path", "/v/a.mp4") + "&id=uid-1", EdgeFixture.ADMIN_TOKEN);
        assertThat(first.body()).contains("\"id\":\"uid-1\"", "\"memory\":1", "\"repeated\":false");
        assertThat(get("/v/a.mp4")).isEqualTo("miss");
        HttpResponse<String> again = purge(q("path", "/v/a.mp4") + "&id=uid-1", EdgeFixture.ADMIN_TOKEN);
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.body()).contains("\"memory\":1", "\"repeated\":true");
        java.util.regex.Pattern at = java.util.regex.Pattern.compile("\"appliedAt\":\"([^\"]+)\"");
        var firstAt = at.matcher(first.body());
        var againAt = at.matcher(again.body());
        assertThat(firstAt.find() && againAt.find())
                .as("both answers say when it was applied")
                .isTrue();
        assertThat(java.time.Instant.parse(againAt.group(1)))
                .as("a repeated answer says when it was first applied (the operator tells late nodes by it)")
                .isEqualTo(java.time.Instant.parse(firstAt.group(1)))
                .isBetween(java.time.Instant.now().minusSeconds(60), java.time.Instant.now());
        assertThat(get("/v/a.mp4"))
                .as("cached after the first purge, kept by the repeated one")
                .isEqualTo("hit-memory");
    }
}
