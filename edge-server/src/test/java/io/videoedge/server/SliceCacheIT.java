package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.Nginx;
import io.videoedge.server.testing.RangeOrigin;
import io.videoedge.server.testing.RawHttp;
import io.videoedge.server.testing.TempDirs;
import java.io.RandomAccessFile;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Slice caching ({@code cache.slice}) in front of real origins on loopback: a scripted origin that
 * serves a virtual 1 GiB object and misbehaves on request (wrong ranges, ignored Range, short bodies,
 * an object that changes between slices), and a real nginx serving a file. Checked: the start of a
 * large object costs about one slice at the origin, slices are cached in the tiers and shared by
 * concurrent misses, every byte is the origin's, and what the origin gets wrong is a clear status
 * (or a cut connection once the head has left), never a cached or stitched body.
 */
class SliceCacheIT {
    static final long MIB = 1024 * 1024;
    static final long SLICE = 4 * MIB;
    static final String BIG = "/v/big.mp4";

    RangeOrigin origin;
    Nginx nginx;
    EdgeFixture edge;

    @AfterEach
    void stop() throws Exception {
        if (edge != null) edge.close();
        if (origin != null) origin.close();
        if (nginx != null) nginx.close();
    }

    private void start(String originUrl) throws Exception {
        start(originUrl, "");
    }

    /** @param cacheLines more lines of the cache section (indented by two) */
    private void start(String originUrl, String cacheLines) throws Exception {
        Path disk = TempDirs.create("edge-cache");
        edge = EdgeFixture.start("""
                origin:
                  url: %s
                  connectTimeout: 1s
                  readTimeout: 2s
                  maxConnections: 16
                cache:
                  memory: 16m
                  memoryMaxObject: 4m
                  slice: 4m
                %s  disk:
                    path: %s
                    size: 256m
                bufferPool:
                  size: 8m
                  chunkSize: 64k
                """.formatted(originUrl, cacheLines, disk));
    }

    private void startWithRangeOrigin() throws Exception {
        origin = new RangeOrigin();
        origin.object(BIG, 1L << 30);
        start(origin.url());
    }

    private RawHttp.Response get(String path, String range) throws Exception {
        return RawHttp.exchange(
                edge.httpPort,
                "GET " + path + " HTTP/1.1\r\nHost: edge\r\n" + (range == null ? "" : "Range: " + range + "\r\n")
                        + "Connection: close\r\n\r\n");
    }

    @Test
    void theFirstMebibyteOfAGibibyteCostsOneSliceAtTheOriginThenHits() throws Exception {
        startWithRangeOrigin();
        origin.cacheControl(BIG, "public, max-age=86400");
        RawHttp.Response miss = get(BIG, "bytes=0-1048575");
        assertThat(miss.status()).isEqualTo(206);
        assertThat(miss.header("Cache-Control")).isEqualTo("public, max-age=86400");
        assertThat(miss.header("Age")).isEqualTo("0");
        assertThat(miss.header("Content-Range")).isEqualTo("bytes 0-1048575/1073741824");
        assertThat(miss.header("X-Cache")).isEqualTo("miss");
        assertThat(miss.header("ETag")).isEqualTo("\"v1-40000000\"");
        assertThat(miss.body()).isEqualTo(RangeOrigin.bytes(BIG, 1, 0, MIB));
        assertThat(origin.requests(BIG)).isEqualTo(1);
        await().atMost(Duration.ofSeconds(10)) // the slice is committed when its 4 MiB are in
                .untilAsserted(() ->
                        assertThat(edge.gauge("videoedge_cache_disk_entries")).isEqualTo(1));
        assertThat(origin.bytesSent(BIG)).isEqualTo(SLICE);
        assertThat(origin.requests(BIG)).isEqualTo(1);

        RawHttp.Response hit = get(BIG, "bytes=1048576-2097151");
        assertThat(hit.header("X-Cache")).startsWith("hit-");
        assertThat(hit.header("Cache-Control")).as("the first slice's").isEqualTo("public, max-age=86400");
        assertThat(hit.body()).isEqualTo(RangeOrigin.bytes(BIG, 1, MIB, 2 * MIB));
        assertThat(origin.requests(BIG)).isEqualTo(1);

        // a range across a slice boundary, deep inside the object: two slices, each fetched once
        long from = 300 * MIB - 1000;
        RawHttp.Response across = get(BIG, "bytes=" + from + "-" + (from + 1999));
        assertThat(across.status()).isEqualTo(206);
        assertThat(across.body()).isEqualTo(RangeOrigin.bytes(BIG, 1, from, from + 2000));
        assertThat(origin.requests(BIG)).isEqualTo(3);
        assertThat(get(BIG, "bytes=" + from + "-" + (from + 1999)).body()).isEqualTo(across.body());
        assertThat(origin.requests(BIG)).isEqualTo(3);
        await().atMost(Duration.ofSeconds(10)) // each slice is committed when its 4 MiB are in
                .untilAsserted(() ->
                        assertThat(edge.gauge("videoedge_cache_disk_entries")).isEqualTo(3));

        // the last bytes (a suffix range) and a range past the end: the object's length from its first slice
        RawHttp.Response tail = get(BIG, "bytes=-100");
        assertThat(tail.header("Content-Range")).isEqualTo("bytes 1073741724-1073741823/1073741824");
        assertThat(tail.body()).isEqualTo(RangeOrigin.bytes(BIG, 1, (1L << 30) - 100, 1L << 30));
        RawHttp.Response past = get(BIG, "bytes=2000000000-");
        assertThat(past.status()).isEqualTo(416);
        assertThat(past.header("Content-Range")).isEqualTo("bytes */1073741824");
        assertThat(past.header("Cache-Control"))
                .as("not the object's: no one keeps a 416")
                .isNull();
    }

    /**
     * An empty object, whose origin answers the first slice's Range with 416 (there is no byte 0): a
     * Range request gets 416 with the complete length, 0, in Content-Range (RFC 9110 15.5.17), whichever
     * byte it starts at; a request without Range gets the empty object, 200, not a 416.
     */
    @Test
    void anEmptyObjectIs416WithItsLengthForARangeAnd200Without() throws Exception {
        startWithRangeOrigin();
        origin.object("/v/empty.mp4", 0);
        for (String range : new String[] {"bytes=0-", "bytes=0-99", "bytes=-10", "bytes=5000000-"}) {
            RawHttp.Response r = get("/v/empty.mp4", range);
            assertThat(r.status()).as(range).isEqualTo(416);
            assertThat(r.header("Content-Range")).as(range).isEqualTo("bytes */0");
        }
        RawHttp.Response whole = get("/v/empty.mp4", null);
        assertThat(whole.status()).isEqualTo(200);
        assertThat(whole.header("Content-Length")).isEqualTo("0");
    }

    /** An object the origin does not have is its 404, with the origin's Cache-Control (none of the edge's own). */
    @Test
    void anObjectTheOriginDoesNotHaveIsItsOwn404WithItsCacheControl() throws Exception {
        startWithRangeOrigin();
        origin.cacheControl("/v/absent.mp4", "max-age=5");
        RawHttp.Response r = get("/v/absent.mp4", "bytes=0-99");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.header("Cache-Control")).isEqualTo("max-age=5");
        assertThat(r.header("X-Cache")).isEqualTo("miss");
    }

    /**
     * An expired slice the origin answers with its word on the object (451, taken down) is not served stale and
     * leaves the cache, as a whole object's copy does (CacheIT): it is not kept until evicted.
     */
    @Test
    void anExpiredSliceTheOriginTookDownLeavesTheCache() throws Exception {
        origin = new RangeOrigin();
        origin.object(BIG, 1L << 30);
        origin.cacheControl(BIG, "max-age=0"); // expired as soon as stored
        start(origin.url(), "  staleWhileError: 1h\n");
        assertThat(get(BIG, "bytes=0-999").status()).isEqualTo(206);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() ->
                        assertThat(edge.gauge("videoedge_cache_disk_entries")).isEqualTo(1));

        origin.fault(BIG, RangeOrigin.Fault.TAKEN_DOWN_451);
        assertThat(get(BIG, "bytes=0-999").status()).isEqualTo(451);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() ->
                        assertThat(edge.gauge("videoedge_cache_disk_entries")).isZero());
        assertThat(get(BIG, "bytes=0-999").status())
                .as("asked again: the origin's word")
                .isEqualTo(451);
    }

    /**
     * Expired slices are fetched again; while the origin fails, the expired copy answers ({@code stale})
     * within cache.staleWhileError, both for the slice a response starts in and for the next one; without
     * that window the failure is the answer.
     */
    @ParameterizedTest
    @ValueSource(strings = {"1h", "0s"})
    void anExpiredSliceIsServedStaleWhileTheOriginFails(String staleWhileError) throws Exception {
        origin = new RangeOrigin();
        origin.object(BIG, 1L << 30);
        origin.cacheControl(BIG, "max-age=0"); // expired as soon as stored
        start(origin.url(), "  staleWhileError: " + staleWhileError + "\n");
        long from = SLICE - 1000; // the last bytes of slice 0 and the first of slice 1
        assertThat(get(BIG, "bytes=" + from + "-" + (from + 1999)).body())
                .isEqualTo(RangeOrigin.bytes(BIG, 1, from, from + 2000));
        await().atMost(Duration.ofSeconds(10)) // both slices committed
                .untilAsserted(() ->
                        assertThat(edge.gauge("videoedge_cache_disk_entries")).isEqualTo(2));

        origin.fault(BIG, RangeOrigin.Fault.ERROR_500);
        RawHttp.Response r = get(BIG, "bytes=" + from + "-" + (from + 1999));
        if (staleWhileError.equals("0s")) {
            assertThat(r.status()).isEqualTo(502);
            return;
        }
        assertThat(r.status()).isEqualTo(206);
        assertThat(r.header("X-Cache")).isEqualTo("stale");
        assertThat(r.body()).isEqualTo(RangeOrigin.bytes(BIG, 1, from, from + 2000));
        assertThat(origin.requests(BIG)).as("each slice asked for again").isGreaterThanOrEqualTo(4);
        assertThat(edge.metric("videoedge_cache_responses_total{result=\"stale\"}"))
                .isEqualTo(1);

        origin.fault(BIG, RangeOrigin.Fault.NONE); // back: fetched again, fresh from the origin
        RawHttp.Response back = get(BIG, "bytes=" + from + "-" + (from + 1999));
        assertThat(back.header("X-Cache")).isIn("miss", "coalesced");
        assertThat(back.body()).isEqualTo(RangeOrigin.bytes(BIG, 1, from, from + 2000));
    }

    @Test
    void concurrentMissesOfASliceAreOneOriginRequest() throws Exception {
        startWithRangeOrigin();
        origin.hold();
        ExecutorService clients = Executors.newFixedThreadPool(8);
        try {
            List<Future<RawHttp.Response>> responses = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                long from = i * 100_000L;
                responses.add(clients.submit(() -> get(BIG, "bytes=" + from + "-" + (from + 99_999))));
            }
            edge.awaitMetric("videoedge_cache_coalesced_total", 7); // the seven others joined the fill
            assertThat(origin.requests(BIG)).isEqualTo(1);
            origin.release();
            for (int i = 0; i < 8; i++) {
                long from = i * 100_000L;
                RawHttp.Response r = responses.get(i).get();
                assertThat(r.status()).isEqualTo(206);
                assertThat(r.body()).isEqualTo(RangeOrigin.bytes(BIG, 1, from, from + 100_000));
            }
        } finally {
            clients.shutdownNow();
        }
        assertThat(origin.requests(BIG)).isEqualTo(1);
        assertThat(edge.metric("videoedge_cache_coalesced_total")).isEqualTo(7);
    }

    @Test
    void anObjectThatChangesBetweenSlicesIsNeverStitched() throws Exception {
        startWithRangeOrigin();
        origin.changeFromRequest(BIG, 2); // slice 0 is version 1, every later fetch version 2
        RawHttp.Response cut = get(BIG, "bytes=0-" + (SLICE + MIB - 1));
        assertThat(cut.status()).isEqualTo(206);
        assertThat(cut.header("ETag")).isEqualTo("\"v1-40000000\"");
        assertThat(cut.body().length)
                .as("the response is cut where the other version begins")
                .isEqualTo((int) SLICE);
        assertThat(cut.body()).isEqualTo(RangeOrigin.bytes(BIG, 1, 0, SLICE));
        assertThat(edge.metric("videoedge_cache_slice_cuts_total")).isEqualTo(1);
        edge.awaitMetric("videoedge_origin_errors_total{kind=\"slice_mismatch\"}", 1);

        // the old version's first slice was dropped: the next request is all version 2
        RawHttp.Response whole = get(BIG, "bytes=0-" + (SLICE + MIB - 1));
        assertThat(whole.header("ETag")).isEqualTo("\"v2-40000000\"");
        assertThat(whole.body()).isEqualTo(RangeOrigin.bytes(BIG, 2, 0, SLICE + MIB));
        assertThat(edge.metric("videoedge_cache_slice_cuts_total")).isEqualTo(1);
    }

    @Test
    void wrongLengthsAndIgnoredRangesAreA502AndNothingIsCached() throws Exception {
        startWithRangeOrigin();
        for (RangeOrigin.Fault fault : List.of(
                RangeOrigin.Fault.WRONG_RANGE, RangeOrigin.Fault.SHIFTED_RANGE, RangeOrigin.Fault.IGNORE_RANGE)) {
            origin.fault(BIG, fault);
            RawHttp.Response r = get(BIG, "bytes=0-999");
            assertThat(r.status()).as(fault.name()).isEqualTo(502);
            assertThat(edge.gauge("videoedge_cache_disk_entries"))
                    .as(fault.name())
                    .isZero();
        }
        edge.awaitMetric("videoedge_origin_errors_total{kind=\"slice_mismatch\"}", 3);
        origin.fault(BIG, RangeOrigin.Fault.NONE);
        RawHttp.Response ok = get(BIG, "bytes=0-999");
        assertThat(ok.status()).isEqualTo(206);
        assertThat(ok.body()).isEqualTo(RangeOrigin.bytes(BIG, 1, 0, 1000));
    }

    @Test
    void aSliceCutShortAtTheOriginCutsTheResponseAndIsNotCached() throws Exception {
        startWithRangeOrigin();
        get(BIG, "bytes=0-0"); // slice 0 cached
        origin.fault(BIG, RangeOrigin.Fault.SHORT_BODY);
        RawHttp.Response cut = get(BIG, "bytes=0-" + (2 * SLICE - 1));
        assertThat(cut.status()).isEqualTo(206);
        assertThat(cut.body().length).isLessThan((int) (2 * SLICE));
        origin.fault(BIG, RangeOrigin.Fault.NONE);
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(edge.gauge("videoedge_cache_fills_in_flight"))
                        .isZero());
        RawHttp.Response whole = get(BIG, "bytes=0-" + (2 * SLICE - 1));
        assertThat(whole.body()).isEqualTo(RangeOrigin.bytes(BIG, 1, 0, 2 * SLICE));
        // and the server keeps serving everything else
        assertThat(edge.get(edge.admin("/healthz")).statusCode()).isEqualTo(200);
    }

    @Test
    void aWholeFileFromNginxInSlices() throws Exception {
        Path root = TempDirs.create("nginx-root");
        byte[] data = new byte[(int) (2 * SLICE + 12345)];
        new SplittableRandom(7).nextBytes(data);
        Files.createDirectories(root.resolve("v"));
        try (RandomAccessFile f =
                new RandomAccessFile(root.resolve("v/file.mp4").toFile(), "rw")) {
            f.write(data);
        }
        root.toFile().setReadable(true, false);
        root.resolve("v").toFile().setReadable(true, false);
        root.resolve("v").toFile().setExecutable(true, false);
        root.toFile().setExecutable(true, false);
        root.resolve("v/file.mp4").toFile().setReadable(true, false);
        nginx = Nginx.start(1, "server { listen 127.0.0.1:%1$d; root " + root + "; }");
        start("http://127.0.0.1:" + nginx.port(0));

        HttpResponse<byte[]> whole = edge.get(edge.http("/v/file.mp4"));
        assertThat(whole.statusCode()).isEqualTo(200);
        assertThat(whole.headers().firstValue("Content-Length")).hasValue(String.valueOf(data.length));
        assertThat(whole.body()).isEqualTo(data);
        HttpResponse<byte[]> again = edge.get(edge.http("/v/file.mp4"));
        assertThat(again.headers().firstValue("X-Cache").orElse("")).startsWith("hit-");
        assertThat(again.body()).isEqualTo(data);
        assertThat(edge.gauge("videoedge_cache_disk_entries")).isEqualTo(3);
        HttpResponse<byte[]> head = edge.get(edge.http("/v/file.mp4"), "Range", "bytes=8388600-8388620");
        assertThat(head.statusCode()).isEqualTo(206);
        assertThat(head.body()).isEqualTo(java.util.Arrays.copyOfRange(data, 8388600, 8388621));

        // an empty file: nginx answers the slice's Range with 200 and no body, which is cached; a Range is
        // then 416 with the complete length
        Files.write(root.resolve("v/empty.mp4"), new byte[0]);
        root.resolve("v/empty.mp4").toFile().setReadable(true, false);
        for (int i = 0; i < 2; i++) {
            RawHttp.Response empty = get("/v/empty.mp4", "bytes=0-");
            assertThat(empty.status()).isEqualTo(416);
            assertThat(empty.header("Content-Range")).isEqualTo("bytes */0");
        }
    }
}
