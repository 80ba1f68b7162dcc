package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.videoedge.server.cache.PageCacheProbe;
import io.videoedge.server.cpu.SelectorPinning;
import io.videoedge.server.http.HttpDates;
import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.RawHttp;
import io.videoedge.server.testing.TempDirs;
import io.videoedge.server.testing.TestOrigin;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The cache in front of a real origin on loopback: misses streamed and stored, hits from memory and
 * disk, N concurrent misses as one origin request, eviction by bytes (LRU in memory, FIFO on disk),
 * corrupted and truncated entries refetched, the disk tier surviving a restart, origin failures and
 * recovery, stale-while-error, Range on hits and misses.
 */
class CacheIT {
    TestOrigin origin;
    /** The disk tier's directory of the server started last. */
    Path diskDir;
    /**
     * The origin's read timeout: long enough that the tests which hold the origin (concurrent misses joining one
     * fill, a revalidation kept waiting) do not see it expire on a busy machine; the hanging-origin test sets 1s.
     */
    String originReadTimeout = "5s";

    EdgeFixture edge;

    /** When set, the size of a tmpfs mounted on the disk tier's directory before the edge starts. */
    String diskTmpfs;

    private Path mounted;

    @AfterEach
    void stop() throws Exception {
        try {
            if (edge != null) edge.close();
            if (origin != null) origin.close();
        } finally {
            if (mounted != null) run("umount", "--lazy", mounted.toString());
        }
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(String.join(" ", command) + ": " + out).isZero();
    }

    /** Origin and cache config appended to the fixture's; {@code extraCache} lines go under "cache:". */
    private void start(String memory, String memoryMaxObject, String diskSize, String extraCache, String extraTop)
            throws Exception {
        if (origin == null) origin = new TestOrigin();
        Path disk = TempDirs.create("edge-cache");
        diskDir = disk;
        if (diskTmpfs != null) {
            run("mount", "-t", "tmpfs", "-o", "size=" + diskTmpfs, "edge-cache-it", disk.toString());
            mounted = disk;
        }
        edge = EdgeFixture.start("""
                origin:
                  url: %s
                  connectTimeout: 1s
                  readTimeout: %s
                  maxConnections: 16
                cache:
                  memory: %s
                  memoryMaxObject: %s
                  disk:
                    path: %s
                    size: %s
                %sbufferPool:
                  size: 8m
                  chunkSize: 64k
                %s""".formatted(
                origin.url(), originReadTimeout, memory, memoryMaxObject, disk, diskSize, extraCache, extraTop));
    }

    private void start() throws Exception {
        start("4m", "1m", "64m", "", "");
    }

    private HttpResponse<byte[]> get(String path, String... headers) throws Exception {
        return edge.get(edge.http(path), headers);
    }

    private static String xcache(HttpResponse<byte[]> r) {
        return r.headers().firstValue("X-Cache").orElse("");
    }

    @Test
    void aMissIsFetchedOnceThenServedFromMemoryOrDisk() throws Exception {
        start();
        byte[] small = origin.object("/o/small.m4s", 200_000);
        byte[] large = origin.object("/o/large.m4s", 3_000_000); // larger than memoryMaxObject: disk only

        HttpResponse<byte[]> miss = get("/o/small.m4s");
        assertThat(miss.statusCode()).isEqualTo(200);
        assertThat(xcache(miss)).isEqualTo("miss");
        assertThat(miss.body()).isEqualTo(small);
        assertThat(miss.headers().firstValue("ETag")).isPresent();
        HttpResponse<byte[]> hit = get("/o/small.m4s");
        assertThat(xcache(hit)).isEqualTo("hit-memory");
        assertThat(hit.body()).isEqualTo(small);

        assertThat(xcache(get("/o/large.m4s"))).isEqualTo("miss");
        HttpResponse<byte[]> diskHit = get("/o/large.m4s");
        assertThat(xcache(diskHit)).isEqualTo("hit-disk");
        assertThat(diskHit.body()).isEqualTo(large);

        assertThat(origin.requests("/o/small.m4s")).isEqualTo(1);
        assertThat(origin.requests("/o/large.m4s")).isEqualTo(1);
        assertThat(edge.metric("videoedge_cache_lookups_total{result=\"hit\",tier=\"memory\"}"))
                .isEqualTo(1);
        assertThat(edge.metric("videoedge_cache_lookups_total{result=\"hit\",tier=\"disk\"}"))
                .isGreaterThanOrEqualTo(1);
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> { // counted after each write call
                            assertThat(edge.metric(
                                            "videoedge_http_response_body_source_bytes_total{source=\"memory\"}"))
                                    .isEqualTo(small.length);
                            assertThat(edge.metric(
                                            "videoedge_http_response_body_source_bytes_total{source=\"origin\"}"))
                                    .isEqualTo(small.length + large.length);
                        });
        assertThat(edge.gauge("videoedge_cache_memory_entries")).isGreaterThanOrEqualTo(1);
        assertThat(edge.gauge("videoedge_cache_disk_entries")).isEqualTo(2);
    }

    @Test
    void concurrentMissesForOneObjectMakeExactlyOneOriginRequest() throws Exception {
        start();
        byte[] object = origin.object("/o/popular.m4s", 2_000_000);
        origin.hold();
        int clients = 20;
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        List<Future<HttpResponse<byte[]>>> responses = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            responses.add(pool.submit(() -> get("/o/popular.m4s")));
        }
        await("all but the first request joined the fill")
                .atMost(Duration.ofSeconds(30))
                .until(() -> edge.metric("videoedge_cache_coalesced_total") == clients - 1);
        assertThat(origin.requests("/o/popular.m4s")).isEqualTo(1);
        origin.release();
        int misses = 0;
        for (Future<HttpResponse<byte[]>> f : responses) {
            HttpResponse<byte[]> r = f.get();
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(object);
            assertThat(xcache(r)).isIn("miss", "coalesced");
            if (xcache(r).equals("miss")) misses++;
        }
        assertThat(misses)
                .as("exactly one request fetched, the others joined it")
                .isEqualTo(1);
        pool.shutdown();
        assertThat(origin.requests("/o/popular.m4s")).isEqualTo(1);
    }

    @Test
    void rangesAreServedOnAMissWhileFillingAndOnHitsFromBothTiers() throws Exception {
        start();
        byte[] small = origin.object("/o/r-small.m4s", 200_000);
        byte[] large = origin.object("/o/r-large.m4s", 2_500_000);
        origin.hold();
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        Future<HttpResponse<byte[]>> onMiss =
                pool.submit(() -> get("/o/r-large.m4s", "Range", "bytes=2000000-2000999"));
        Future<HttpResponse<byte[]>> suffixOnMiss = pool.submit(() -> get("/o/r-large.m4s", "Range", "bytes=-10"));
        await().atMost(Duration.ofSeconds(30)).until(() -> edge.metric("videoedge_cache_coalesced_total") == 1);
        origin.release();
        HttpResponse<byte[]> r = onMiss.get();
        assertThat(r.statusCode()).isEqualTo(206);
        assertThat(xcache(r)).isIn("miss", "coalesced");
        assertThat(r.headers().firstValue("Content-Range")).hasValue("bytes 2000000-2000999/2500000");
        assertThat(r.body()).isEqualTo(Arrays.copyOfRange(large, 2_000_000, 2_001_000));
        assertThat(suffixOnMiss.get().body()).isEqualTo(Arrays.copyOfRange(large, large.length - 10, large.length));
        pool.shutdown();

        HttpResponse<byte[]> diskRange = get("/o/r-large.m4s", "Range", "bytes=100-199");
        assertThat(xcache(diskRange)).isEqualTo("hit-disk");
        assertThat(diskRange.statusCode()).isEqualTo(206);
        assertThat(diskRange.body()).isEqualTo(Arrays.copyOfRange(large, 100, 200));

        get("/o/r-small.m4s");
        HttpResponse<byte[]> memRange = get("/o/r-small.m4s", "Range", "bytes=199990-");
        assertThat(xcache(memRange)).isEqualTo("hit-memory");
        assertThat(memRange.body()).isEqualTo(Arrays.copyOfRange(small, 199_990, 200_000));
        HttpResponse<byte[]> unsatisfiable = get("/o/r-small.m4s", "Range", "bytes=200000-");
        assertThat(unsatisfiable.statusCode()).isEqualTo(416);
        assertThat(unsatisfiable.headers().firstValue("Content-Range")).hasValue("bytes */200000");
        String etag = memRange.headers().firstValue("ETag").orElseThrow();
        assertThat(get("/o/r-small.m4s", "If-None-Match", etag).statusCode()).isEqualTo(304);
        assertThat(origin.requests("/o/r-large.m4s")).isEqualTo(1);
    }

    /** An empty object: a Range is 416 with the complete length, 0, on the miss and on hits (RFC 9110 15.5.17). */
    @Test
    void aRangeOfAnEmptyObjectIs416WithItsLengthOnAMissAndOnHits() throws Exception {
        start();
        origin.object("/o/empty.m4s", 0);
        for (int i = 0; i < 3; i++) {
            HttpResponse<byte[]> r = get("/o/empty.m4s", "Range", "bytes=0-");
            assertThat(r.statusCode()).as("request %d (%s)", i, xcache(r)).isEqualTo(416);
            assertThat(r.headers().firstValue("Content-Range"))
                    .as("request %d (%s)", i, xcache(r))
                    .hasValue("bytes */0");
        }
        HttpResponse<byte[]> whole = get("/o/empty.m4s");
        assertThat(whole.statusCode()).isEqualTo(200);
        assertThat(xcache(whole)).startsWith("hit-");
        assertThat(origin.requests("/o/empty.m4s")).isEqualTo(1);
    }

    @Test
    void theMemoryTierEvictsTheLeastRecentlyUsedObjectsByBytes() throws Exception {
        start("1m", "512k", "64m", "", "");
        for (String name : List.of("a", "b", "c", "d", "e"))
            origin.object("/lru/" + name, 200_000); // enter memory on fill
        get("/lru/a");
        get("/lru/b");
        get("/lru/c");
        get("/lru/d");
        assertThat(xcache(get("/lru/a"))).isEqualTo("hit-memory"); // a is now more recent than b
        get("/lru/e"); // 5 x 200k do not fit in 1m: the least recently used goes
        assertThat(edge.metric("videoedge_cache_memory_evictions_total")).isEqualTo(1);
        for (String kept : List.of("a", "c", "d", "e")) {
            assertThat(xcache(get("/lru/" + kept))).as(kept).isEqualTo("hit-memory");
        }
        assertThat(xcache(get("/lru/b")))
                .as("evicted from memory, still on disk")
                .isEqualTo("hit-disk");
        assertThat(edge.gauge("videoedge_cache_memory_used_bytes")).isLessThanOrEqualTo(1 << 20);
    }

    @Test
    void largerObjectsEnterMemoryOnlyWhenRequestedAgain() throws Exception {
        start("4m", "1m", "64m", "", "");
        byte[] segment = origin.object("/adm/seg.m4s", 600_000);
        assertThat(xcache(get("/adm/seg.m4s"))).isEqualTo("miss");
        assertThat(edge.gauge("videoedge_cache_memory_entries"))
                .as("watched once: disk only")
                .isZero();
        assertThat(xcache(get("/adm/seg.m4s"))).isEqualTo("hit-disk");
        await("promoted after the second request")
                .atMost(Duration.ofSeconds(30))
                .until(() -> edge.gauge("videoedge_cache_memory_entries") == 1);
        HttpResponse<byte[]> hit = get("/adm/seg.m4s");
        assertThat(xcache(hit)).isEqualTo("hit-memory");
        assertThat(hit.body()).isEqualTo(segment);
    }

    @Test
    void theDiskTierEvictsTheOldestObjectsByBytes() throws Exception {
        start("1m", "16k", "1m", "", ""); // objects stay out of memory; the disk holds two of them
        byte[] a = origin.object("/fifo/a", 400_000);
        origin.object("/fifo/b", 400_000);
        origin.object("/fifo/c", 400_000);
        get("/fifo/a");
        get("/fifo/b");
        assertThat(xcache(get("/fifo/a"))).isEqualTo("hit-disk"); // used, but FIFO does not care
        get("/fifo/c");
        assertThat(edge.metric("videoedge_cache_disk_evictions_total")).isEqualTo(1);
        assertThat(xcache(get("/fifo/b"))).isEqualTo("hit-disk");
        assertThat(xcache(get("/fifo/c"))).isEqualTo("hit-disk");
        HttpResponse<byte[]> refetched = get("/fifo/a");
        assertThat(xcache(refetched)).as("the oldest was evicted").isEqualTo("miss");
        assertThat(refetched.body()).isEqualTo(a);
        assertThat(origin.requests("/fifo/a")).isEqualTo(2);
        assertThat(edge.gauge("videoedge_cache_disk_used_bytes")).isLessThanOrEqualTo(1 << 20);
    }

    /**
     * sendfile queues references to the file's cached pages, not copies: they sit in the server's send
     * queue until acknowledged (and, on loopback, in the client's receive queue until it reads them), so
     * writing over a file changes what its earlier responses still have to deliver. Here a client stops
     * reading after the head, the server has queued the whole body, then the object is evicted and
     * more fills follow: the body it reads afterwards must still be its own object's. (It failed when
     * evicted files were kept and written over by later fills, edge-server/PERFORMANCE.md, "Misses: writing
     * over evicted files, tried and withdrawn".)
     */
    @Test
    void aBodyStillInTheSocketQueuesKeepsItsBytesWhenItsFileIsEvictedAndFilledAgain() throws Exception {
        start("1m", "16k", "4m", "", ""); // about 130 objects of 30 kB on disk
        byte[] slow = origin.object("/queued/slow.m4s", 30_000);
        get("/queued/slow.m4s"); // stored on disk
        try (RawHttp client = new RawHttp(edge.httpPort)) {
            String sent = "videoedge_http_response_body_bytes_total{via=\"sendfile\"}";
            double sentBefore = edge.metric(sent);
            client.send("GET /queued/slow.m4s HTTP/1.1\r\nHost: edge\r\n\r\n");
            // the body fits the two queues: the response ends (its file released) with nothing read
            await().atMost(Duration.ofSeconds(10)).until(() -> edge.metric(sent) - sentBefore >= slow.length);
            double evictedBefore = edge.metric("videoedge_cache_disk_evictions_total");
            for (int i = 0; i < 200; i++) { // 6 MB through a 4 MiB tier: the slow object's file goes
                byte[] other = origin.object("/queued/other-" + i + ".m4s", 30_000);
                assertThat(get("/queued/other-" + i + ".m4s").body()).isEqualTo(other);
            }
            assertThat(edge.metric("videoedge_cache_disk_evictions_total") - evictedBefore)
                    .as("objects evicted, the slow one first")
                    .isGreaterThan(50);
            RawHttp.Response r = client.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(Arrays.equals(r.body(), slow))
                    .as("the queued body is the slow object's own bytes")
                    .isTrue();
        }
    }

    /**
     * A large memory hit on a plain connection goes out from the disk tier's copy with sendfile while
     * the page cache holds that file (no copy into the socket), and is copied from memory when it does
     * not (sendfile would wait for the disk on the event loop) and on TLS connections. A hit copied for
     * want of pages has the kernel read them back: later hits go out from the file again. With each way
     * the edge has to ask the page cache: cachestat(2) (Linux 6.5), and mincore(2), which it falls back
     * to on older kernels and under seccomp profiles that refuse cachestat. Skipped only where the edge's
     * own probe finds that way unavailable (as it would log at start).
     */
    @ParameterizedTest
    @ValueSource(strings = {"cachestat", "mincore"})
    void largeMemoryHitsGoOutFromThePageCacheWhenItHoldsTheirFileElseFromMemoryUntilItIsReadBack(String way)
            throws Exception {
        start();
        org.junit.jupiter.api.Assumptions.assumeFalse(
                "tmpfs".equals(Files.getFileStore(diskDir).type()), "tmpfs pages cannot be dropped");
        Path data = diskDir.resolve("data");
        if (way.equals("mincore")) PageCacheProbe.mincoreOnly(data);
        try {
            org.junit.jupiter.api.Assumptions.assumeTrue(
                    way.equals(PageCacheProbe.method()),
                    "the edge's probe found " + PageCacheProbe.method() + " (" + PageCacheProbe.unavailable() + ")");
            memoryHitsFollowThePageCache();
        } finally {
            PageCacheProbe.restore(data);
        }
    }

    private void memoryHitsFollowThePageCache() throws Exception {
        byte[] object = origin.object("/pc/seg.m4s", 600_000);
        assertThat(xcache(get("/pc/seg.m4s"))).isEqualTo("miss");
        assertThat(xcache(get("/pc/seg.m4s"))).isEqualTo("hit-disk"); // the second request promotes it
        await().atMost(Duration.ofSeconds(5))
                .until(() -> xcache(get("/pc/seg.m4s")).equals("hit-memory"));
        String sendfile = "videoedge_http_response_body_bytes_total{via=\"sendfile\"}";
        String copied = "videoedge_http_response_body_bytes_total{via=\"memory\"}";
        String tlsCopied = "videoedge_http_response_body_bytes_total{via=\"tls_copy\"}";

        hitMemoryVia(object, sendfile, "bytes sent from the file", copied, "bytes copied from memory");

        double[] before = settled(sendfile);
        HttpResponse<byte[]> range = get("/pc/seg.m4s", "Range", "bytes=300000-599999");
        assertThat(range.statusCode()).isEqualTo(206);
        assertThat(range.body()).isEqualTo(Arrays.copyOfRange(object, 300_000, 600_000));
        awaitDelta(sendfile, before[0], 300_000, "a range sent from the file");

        String readBacks = "videoedge_cache_page_cache_read_backs_total";
        double readBacksBefore = edge.metric(readBacks);
        io.videoedge.server.testing.PageCacheDrop.drop(cacheFile("pc/seg.m4s"));
        hitMemoryVia(object, copied, "bytes copied from memory", sendfile, "bytes sent from the file");
        // nothing here reads the file: the copied hit had the edge ask the kernel to read it back
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(edge.metric(readBacks) - readBacksBefore)
                        .as("read-backs asked for")
                        .isEqualTo(1));
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            double[] b = settled(sendfile, copied);
            HttpResponse<byte[]> r = get("/pc/seg.m4s");
            assertThat(xcache(r)).isEqualTo("hit-memory");
            assertThat(r.body()).isEqualTo(object);
            double[] a = settled(sendfile, copied);
            return a[0] - b[0] == object.length && a[1] == b[1]; // all of it from the file again
        });

        before = settled(sendfile, tlsCopied);
        HttpResponse<byte[]> overTls = edge.get(edge.https("/pc/seg.m4s"));
        assertThat(xcache(overTls)).isEqualTo("hit-memory");
        assertThat(overTls.body()).isEqualTo(object);
        if (!Files.exists(Path.of("/sys/module/tls"))) { // TLS in user space: encrypted from memory
            awaitDelta(tlsCopied, before[1], object.length, "bytes encrypted from memory");
            assertThat(edge.metric(sendfile) - before[0])
                    .as("bytes sent from the file")
                    .isZero();
        } else { // kernel TLS may have taken the session: then the file, encrypted by the kernel
            double[] b = before;
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(edge.metric(tlsCopied) - b[1] + edge.metric(sendfile) - b[0])
                            .isEqualTo(object.length));
        }
    }

    /** A plain GET of /pc/seg.m4s: a memory hit with the object's bytes, all counted under {@code via}, none under {@code notVia}. */
    private void hitMemoryVia(byte[] object, String via, String viaWhat, String notVia, String notViaWhat)
            throws Exception {
        double[] before = settled(via, notVia);
        HttpResponse<byte[]> r = get("/pc/seg.m4s");
        assertThat(xcache(r)).isEqualTo("hit-memory");
        assertThat(r.body()).isEqualTo(object);
        awaitDelta(via, before[0], object.length, viaWhat);
        assertThat(edge.metric(notVia) - before[1]).as(notViaWhat).isZero();
    }

    /** The counters once they stop moving (a response's last bytes are counted after the client may have them). */
    private double[] settled(String... series) {
        double[][] last = {new double[series.length]};
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    double[] now = new double[series.length];
                    for (int i = 0; i < series.length; i++) now[i] = edge.metric(series[i]);
                    boolean same = Arrays.equals(now, last[0]);
                    last[0] = now;
                    return same;
                });
        return last[0];
    }

    private void awaitDelta(String series, double before, double expected, String what) {
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(
                        () -> assertThat(edge.metric(series) - before).as(what).isEqualTo(expected));
    }

    private Path cacheFile(String key) throws Exception {
        Path data = diskDir.resolve("data");
        String hex = java.util.HexFormat.of()
                .formatHex(java.security.MessageDigest.getInstance("SHA-256")
                        .digest(key.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        Path p = data.resolve(hex.substring(0, 2)).resolve(hex.substring(2) + ".obj");
        assertThat(p).exists();
        return p;
    }

    @Test
    void aTruncatedEntryIsDetectedDroppedAndRefetchedNeverServed() throws Exception {
        start("1m", "16k", "64m", "", "");
        byte[] object = origin.object("/t/seg.m4s", 500_000);
        get("/t/seg.m4s");
        Path file = cacheFile("t/seg.m4s");
        try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(Files.size(file) - 1000);
        }
        HttpResponse<byte[]> r = get("/t/seg.m4s");
        assertThat(xcache(r)).isEqualTo("miss");
        assertThat(r.body()).isEqualTo(object);
        assertThat(origin.requests("/t/seg.m4s")).isEqualTo(2);
        assertThat(edge.metric("videoedge_cache_corrupted_total")).isEqualTo(1);
        assertThat(xcache(get("/t/seg.m4s"))).isEqualTo("hit-disk");
    }

    @Test
    void theDiskTierSurvivesARestartAndCorruptedEntriesAreCaughtByTheirChecksum() throws Exception {
        start("1m", "16k", "64m", "", "");
        byte[] kept = origin.object("/k/kept.m4s", 600_000);
        byte[] flipped = origin.object("/k/flipped.m4s", 600_000);
        get("/k/kept.m4s");
        get("/k/flipped.m4s");
        edge.restart();
        // a bit flip in the body while the server was down: same size, wrong checksum
        Path file = cacheFile("k/flipped.m4s");
        try (var raf = new java.io.RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(raf.length() - 12345);
            int b = raf.read();
            raf.seek(raf.length() - 12345);
            raf.write(b ^ 0x40);
        }
        edge.restart();
        assertThat(edge.gauge("videoedge_cache_disk_entries")).isEqualTo(2);

        HttpResponse<byte[]> k = get("/k/kept.m4s");
        assertThat(xcache(k)).isEqualTo("hit-disk");
        assertThat(k.body()).isEqualTo(kept);
        HttpResponse<byte[]> f = get("/k/flipped.m4s");
        // first what matters most: the corrupted bytes are never served
        assertThat(Arrays.equals(f.body(), flipped))
                .as("the original bytes, refetched; response headers "
                        + f.headers().map())
                .isTrue();
        assertThat(xcache(f)).as("response headers " + f.headers().map()).isEqualTo("miss");
        assertThat(origin.requests("/k/kept.m4s")).isEqualTo(1);
        assertThat(origin.requests("/k/flipped.m4s")).isEqualTo(2);
        assertThat(edge.metric("videoedge_cache_corrupted_total")).isEqualTo(1);
        assertThat(edge.metric("videoedge_cache_verified_total")).isEqualTo(1);
    }

    @Test
    void whileTheOriginIsDownCachedObjectsServeAndMissesGet502ThenItRecoversWithoutRestart() throws Exception {
        start();
        byte[] cached = origin.object("/d/cached.m4s", 100_000);
        byte[] later = origin.object("/d/later.m4s", 100_000);
        get("/d/cached.m4s");
        origin.stop();

        assertThat(get("/d/later.m4s").statusCode()).isEqualTo(502);
        assertThat(get("/d/later.m4s").statusCode())
                .as("fails fast while the origin is failing")
                .isEqualTo(502);
        HttpResponse<byte[]> hit = get("/d/cached.m4s");
        assertThat(hit.statusCode()).isEqualTo(200);
        assertThat(hit.body()).isEqualTo(cached);

        origin.restart();
        await("misses succeed again")
                .atMost(Duration.ofSeconds(30))
                .until(() -> get("/d/later.m4s").statusCode() == 200);
        assertThat(get("/d/later.m4s").body()).isEqualTo(later);
        assertThat(edge.metric("videoedge_origin_errors_total{kind=\"connect\"}"))
                .isGreaterThanOrEqualTo(1);
    }

    @Test
    void aHangingOriginGives504AndNothingHangs() throws Exception {
        originReadTimeout = "1s";
        start();
        origin.object("/h/seg.m4s", 1000);
        origin.mode(TestOrigin.Mode.HANG);
        assertThat(get("/h/seg.m4s").statusCode()).isEqualTo(504);
        edge.awaitMetric("videoedge_origin_errors_total{kind=\"timeout\"}", 1); // counted just after the 504
        try (RawHttp c = new RawHttp(edge.httpPort)) {
            assertThat(c.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                            .read()
                            .status())
                    .isEqualTo(200);
        }
    }

    @Test
    void aMissTheOriginAnswers404LeavesNoFileInTheCacheDirectory() throws Exception {
        start();
        List<Path> before = filesUnder(diskDir);
        assertThat(get("/gone/a.m4s").statusCode()).isEqualTo(404);
        assertThat(get("/gone/b.m4s").statusCode()).isEqualTo(404);
        // a fill creates its file while the origin answers: a 404 removes it again
        assertThat(filesUnder(diskDir)).isEqualTo(before);
        origin.object("/kept/c.m4s", 5000);
        assertThat(get("/kept/c.m4s").statusCode()).isEqualTo(200);
        assertThat(filesUnder(diskDir)).hasSize(before.size() + 1);
    }

    /**
     * A miss's response head is written on the fill thread while its body is still on its way: the
     * session parks on the fill there and then, and the selector is not woken for it (one-nio's write
     * would first listen for writability, which wakes the selector, only for it to find the session
     * busy and the body not there). The selectors' voluntary context switches do not move from before
     * the origin's head until after the edge has answered with its own.
     */
    @Test
    void aMissWaitingForItsBodyDoesNotWakeTheSelector() throws Exception {
        start();
        byte[] body = origin.object("/w/held.m4s", 300_000);
        origin.hold();
        origin.holdBodies();
        ExecutorService client = Executors.newSingleThreadExecutor();
        try {
            Future<HttpResponse<byte[]>> miss = client.submit(() -> get("/w/held.m4s"));
            await().atMost(Duration.ofSeconds(10)).until(() -> origin.requests("/w/held.m4s") == 1);
            // the selector that handed the request to a fill is back in epoll_wait: its switches stand still
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                long now = selectorSwitches();
                Thread.sleep(150);
                return selectorSwitches() == now;
            });
            long before = selectorSwitches();
            origin.release(); // the head now, the body later
            await().atMost(Duration.ofSeconds(10)).until(() -> origin.headsSent() == 1);
            Thread.sleep(300); // the fill reads the head and writes the response head
            long after = selectorSwitches();
            origin.releaseBodies();
            HttpResponse<byte[]> r = miss.get(10, TimeUnit.SECONDS);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(body);
            assertThat(after - before)
                    .as("the selectors' context switches while the fill wrote the head and the body waited")
                    .isZero();
        } finally {
            origin.releaseBodies();
            client.shutdownNow();
        }
    }

    /**
     * A cached file that is there but cannot be opened (as when the process is out of descriptors; here a directory
     * in its place) fails that request with a 500 and is not dropped as gone: the connection and other objects go
     * on, and once the file opens as it should no more the object is fetched again.
     */
    @Test
    void aCachedFileThatCannotBeOpenedFailsTheRequestAndIsNotTakenForGone() throws Exception {
        start("1m", "16k", "64m", "", ""); // objects stay out of memory
        origin.object("/u/seg.m4s", 50_000);
        origin.object("/u/other.m4s", 50_000);
        assertThat(xcache(get("/u/seg.m4s"))).isEqualTo("miss");
        List<Path> files = filesUnder(diskDir);
        assertThat(files).hasSize(1);
        Path file = files.get(0);
        Files.delete(file);
        Files.createDirectory(file);
        HttpResponse<byte[]> failed = get("/u/seg.m4s");
        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(origin.requests("/u/seg.m4s")).as("not fetched again").isEqualTo(1);
        assertThat(get("/u/other.m4s").statusCode()).isEqualTo(200);
        Files.delete(file);
        HttpResponse<byte[]> again = get("/u/seg.m4s");
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(xcache(again)).as("its file gone: fetched again").isEqualTo("miss");
    }

    /**
     * An origin answer the edge cannot write to its cache (here its data directory is a file, as when a disk fails;
     * also a full disk, no descriptor, no buffer) is the edge's failure: a 500, counted apart, and the origin's
     * breaker does not open, so the next miss asks the origin again instead of failing fast with a 502.
     */
    @Test
    void aMissTheCacheCannotStoreIs500AndLeavesTheOriginBreakerClosed() throws Exception {
        start();
        origin.object("/wf/a.m4s", 50_000);
        origin.object("/wf/b.m4s", 50_000);
        byte[] c = origin.object("/wf/c.m4s", 50_000);
        Path data = diskDir.resolve("data");
        Path away = diskDir.resolve("data-away");
        Files.move(data, away);
        Files.writeString(data, "not a directory");
        try {
            assertThat(get("/wf/a.m4s").statusCode()).isEqualTo(500);
            assertThat(get("/wf/b.m4s").statusCode())
                    .as("the origin asked again")
                    .isEqualTo(500);
            assertThat(origin.requests("/wf/b.m4s")).isEqualTo(1);
        } finally {
            Files.delete(data);
            Files.move(away, data);
        }
        edge.awaitMetric("videoedge_cache_write_errors_total", 2);
        assertThat(edge.metric("videoedge_origin_errors_total{kind=\"connect\"}"))
                .isZero();
        HttpResponse<byte[]> r = get("/wf/c.m4s");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo(c);
    }

    /**
     * A disk that holds less than cache.disk.size (a 2 MiB tmpfs under a 64m budget): once it is full, the miss whose
     * write fails is lost (a 500, or a 200 cut short), the budget comes down to what the disk holds, and the misses
     * after it are served and cached, the oldest objects making room, instead of every miss failing from then on;
     * once the disk has room again, the budget goes back up.
     */
    @Test
    void aDiskFullBeforeItsBudgetLowersTheBudgetAndTheMissesAfterAreCached() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                "root".equals(System.getProperty("user.name")), "needs root, to mount a small tmpfs");
        diskTmpfs = "2m";
        start("1m", "16k", "64m", "", ""); // objects stay out of memory
        int n = 14;
        List<byte[]> bodies = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            bodies.add(origin.object("/full/" + i + ".m4s", 300_000)); // six fit in 2 MiB, a seventh does not
        }
        List<Integer> lost = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            try {
                HttpResponse<byte[]> r = get("/full/" + i + ".m4s");
                if (r.statusCode() != 200 || !Arrays.equals(r.body(), bodies.get(i))) lost.add(i);
            } catch (IOException cutShort) {
                lost.add(i);
            }
        }
        assertThat(lost).as("the misses lost to the full disk").isNotEmpty().hasSizeLessThanOrEqualTo(2);
        assertThat(lost.getLast()).as("the last miss lost").isLessThan(9);
        assertThat(edge.metric("videoedge_cache_disk_capacity_bytes"))
                .as("the budget, lowered to what the disk holds")
                .isLessThan(2 * 1024 * 1024);
        edge.awaitMetric("videoedge_cache_write_errors_total", lost.size());
        HttpResponse<byte[]> last = get("/full/" + (n - 1) + ".m4s");
        assertThat(xcache(last)).as("the last object cached").isEqualTo("hit-disk");
        assertThat(last.body()).isEqualTo(bodies.get(n - 1));
        HttpResponse<byte[]> first = get("/full/0.m4s");
        assertThat(xcache(first)).as("the first object made room").isEqualTo("miss");
        assertThat(first.body()).isEqualTo(bodies.get(0));

        // room comes back (the file system grows): the next commit raises the budget again
        run("mount", "-o", "remount,size=8m", mounted.toString());
        byte[] more = origin.object("/full/more.m4s", 300_000);
        assertThat(get("/full/more.m4s").body()).isEqualTo(more);
        assertThat(edge.metric("videoedge_cache_disk_capacity_bytes"))
                .as("the budget raised with the room")
                .isGreaterThan(6 * 1024 * 1024)
                .isLessThanOrEqualTo(8 * 1024 * 1024);
    }

    /** Voluntary context switches of this JVM's selector threads ({@code edge-sel-N}), from /proc. */
    private static long selectorSwitches() throws IOException {
        List<SelectorPinning.Observed> selectors = SelectorPinning.observe();
        assertThat(selectors).as("selector threads found").isNotEmpty();
        long sum = 0;
        for (SelectorPinning.Observed sel : selectors) {
            Path status = Path.of("/proc/self/task", String.valueOf(sel.tid()), "status");
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("voluntary_ctxt_switches:")) {
                    sum += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                }
            }
        }
        return sum;
    }

    private static List<Path> filesUnder(Path dir) throws IOException {
        try (var files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).sorted().toList();
        }
    }

    @Test
    void originErrorsAreRelayedAs404TheOriginsRefusalsAsTheyAreTheRestAs502() throws Exception {
        start();
        assertThat(get("/e/absent.m4s").statusCode()).isEqualTo(404);
        for (int refusal : new int[] {401, 403, 429, 451}) {
            origin.status("/e/refused-" + refusal, refusal);
            HttpResponse<byte[]> r = get("/e/refused-" + refusal);
            assertThat(r.statusCode()).isEqualTo(refusal);
            assertThat(xcache(r)).as("the origin's answer").isEqualTo("miss");
        }
        // the origin's answer goes with its headers: how long a cache behind the edge may keep it, when to ask
        // again, how to authenticate
        origin.status("/e/limited", 429);
        origin.header("/e/limited", "Retry-After", "7");
        origin.cacheControl("/e/limited", "no-store");
        HttpResponse<byte[]> limited = get("/e/limited");
        assertThat(limited.statusCode()).isEqualTo(429);
        assertThat(limited.headers().firstValue("retry-after")).hasValue("7");
        assertThat(limited.headers().firstValue("cache-control")).hasValue("no-store");
        origin.status("/e/login", 401);
        origin.header("/e/login", "WWW-Authenticate", "Bearer realm=\"video\"");
        assertThat(get("/e/login").headers().firstValue("www-authenticate")).hasValue("Bearer realm=\"video\"");
        origin.status("/e/gone", 410);
        origin.cacheControl("/e/gone", "max-age=30");
        origin.header("/e/gone", "Age", "12");
        origin.header("/e/gone", "Expires", "Thu, 01 Jan 2037 00:00:00 GMT");
        long asked = System.currentTimeMillis();
        HttpResponse<byte[]> gone = get("/e/gone");
        assertThat(gone.statusCode()).isEqualTo(404);
        assertThat(gone.headers().firstValue("cache-control")).hasValue("max-age=30");
        assertThat(gone.headers().firstValue("expires")).hasValue("Thu, 01 Jan 2037 00:00:00 GMT");
        assertThat(gone.headers().firstValue("age")).hasValue("12");
        assertThat(gone.headers().allValues("date")).hasSize(1);
        assertThat(HttpDates.parseSeconds(header(gone, "Date")))
                .as("the answer's Date: as old as its Age, not the edge's now")
                .isBetween(asked / 1000 - 13, (asked + 1000) / 1000 - 12);
        for (int refusal : new int[] {403, 451}) {
            origin.cacheControl("/e/refused-" + refusal, "private, max-age=5");
            assertThat(get("/e/refused-" + refusal).headers().firstValue("cache-control"))
                    .hasValue("private, max-age=5");
        }
        origin.header("/e/refused-403", "Retry-After", "7");
        assertThat(get("/e/refused-403").headers().map())
                .as("Retry-After only with a 429")
                .doesNotContainKey("retry-after");
        for (int other : new int[] {301, 400, 503}) {
            origin.status("/e/other-" + other, other);
            origin.cacheControl("/e/other-" + other, "max-age=60");
            origin.header("/e/other-" + other, "Retry-After", "7");
            HttpResponse<byte[]> r = get("/e/other-" + other);
            assertThat(r.statusCode()).as("origin %d", other).isEqualTo(502);
            assertThat(xcache(r)).isEqualTo("error");
            assertThat(r.headers().map())
                    .as("the edge's own 502 carries none of the origin's headers")
                    .doesNotContainKeys("cache-control", "retry-after");
        }
        origin.object("/e/five.m4s", 1000);
        origin.mode(TestOrigin.Mode.ERROR_500);
        assertThat(get("/e/five.m4s").statusCode()).isEqualTo(502);
        origin.mode(TestOrigin.Mode.NORMAL);
        assertThat(get("/e/five.m4s").statusCode())
                .as("a 500 does not trip the fail-fast")
                .isEqualTo(200);
    }

    @Test
    void aRequestRightAfterAFailedFetchTriesTheOriginAgain() throws Exception {
        start();
        origin.object("/retry/seg.m4s", 1000);
        origin.mode(TestOrigin.Mode.ERROR_500);
        for (int i = 0; i < 20; i++) {
            assertThat(get("/retry/seg.m4s").statusCode()).isEqualTo(502);
        }
        assertThat(origin.requests("/retry/seg.m4s"))
                .as("every sequential miss asked the origin")
                .isEqualTo(20);
    }

    @Test
    void expiredObjectsAreRevalidatedAndServedStaleWhileTheOriginFails() throws Exception {
        start();
        byte[] object = origin.object("/s/seg.m4s", 50_000);
        origin.cacheControl("/s/seg.m4s", "max-age=0"); // expired as soon as stored
        assertThat(xcache(get("/s/seg.m4s"))).isEqualTo("miss");
        HttpResponse<byte[]> revalidated = get("/s/seg.m4s");
        assertThat(xcache(revalidated)).isEqualTo("revalidated");
        assertThat(revalidated.body()).isEqualTo(object);
        assertThat(origin.requests("/s/seg.m4s")).isEqualTo(2);

        origin.stop();
        HttpResponse<byte[]> stale = get("/s/seg.m4s");
        assertThat(stale.statusCode()).isEqualTo(200);
        assertThat(xcache(stale)).isEqualTo("stale");
        assertThat(stale.body()).isEqualTo(object);
    }

    /**
     * An expired copy is served over the origin's rate limit (429), as over its errors, but not over its word
     * on the object (a 451 takedown, a 403, a 401: RFC 5861's stale-if-error is for errors), which drops it.
     */
    @Test
    void anExpiredObjectIsNotServedStaleOverTheOriginsRefusalButIsOverItsRateLimit() throws Exception {
        start();
        byte[] object = origin.object("/s/taken.m4s", 50_000);
        origin.cacheControl("/s/taken.m4s", "max-age=0"); // expired as soon as stored
        assertThat(xcache(get("/s/taken.m4s"))).isEqualTo("miss");
        origin.status("/s/taken.m4s", 429);
        HttpResponse<byte[]> limited = get("/s/taken.m4s");
        assertThat(limited.statusCode()).isEqualTo(200);
        assertThat(xcache(limited)).isEqualTo("stale");
        assertThat(limited.body()).isEqualTo(object);
        for (int refusal : new int[] {401, 403, 451}) {
            origin.status("/s/taken.m4s", refusal);
            HttpResponse<byte[]> r = get("/s/taken.m4s");
            assertThat(r.statusCode()).as("origin %d", refusal).isEqualTo(refusal);
            assertThat(xcache(r)).isEqualTo("miss");
        }
        origin.status("/s/taken.m4s", 429);
        assertThat(get("/s/taken.m4s").statusCode())
                .as("the copy went with the refusal")
                .isEqualTo(429);
    }

    /**
     * A background revalidation the origin answers with its word on the object (a 451 takedown) drops the
     * copy: the next request gets the 451, not the copy as "updating" for the rest of the window.
     */
    @Test
    void aTakedownFoundByABackgroundRevalidationEndsServingTheCopy() throws Exception {
        start("4m", "1m", "64m", "  staleWhileRevalidate: 1h\n", "");
        String path = "/swr/taken.m4s";
        origin.object(path, 50_000);
        origin.cacheControl(path, "max-age=0"); // expired as soon as stored
        assertThat(xcache(get(path))).isEqualTo("miss");
        origin.status(path, 451);
        assertThat(xcache(get(path))).as("the copy while it is revalidated").isEqualTo("updating");
        await().atMost(Duration.ofSeconds(10)).until(() -> origin.requests(path) == 2);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            HttpResponse<byte[]> r = get(path);
            assertThat(r.statusCode()).isEqualTo(451);
            assertThat(xcache(r)).isEqualTo("miss");
        });
        assertThat(origin.requests(path))
                .as("each request after the drop asks the origin")
                .isLessThanOrEqualTo(4);
    }

    @Test
    void withStaleWhileRevalidateAnExpiredObjectIsServedAtOnceAndRevalidatedOnceInTheBackground() throws Exception {
        start("4m", "1m", "64m", "  staleWhileRevalidate: 1h\n", "");
        String path = "/swr/seg.m4s";
        byte[] v1 = origin.object(path, 50_000);
        origin.cacheControl(path, "max-age=0"); // expired as soon as stored
        assertThat(xcache(get(path))).isEqualTo("miss");
        origin.hold(); // the origin answers nothing until released: the revalidation hangs
        try {
            for (int i = 0; i < 3; i++) {
                HttpResponse<byte[]> r = get(path);
                assertThat(xcache(r))
                        .as("request %d while the origin is held", i)
                        .isEqualTo("updating");
                assertThat(r.body()).isEqualTo(v1);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> origin.requests(path) == 2);
            Thread.sleep(300);
            assertThat(origin.requests(path))
                    .as("one revalidation in flight for all three")
                    .isEqualTo(2);
        } finally {
            origin.release();
        }
        // the held revalidation reads the object only once released: let it answer before the object changes
        await().atMost(Duration.ofSeconds(10)).until(() -> origin.answered(path) == 2);
        // the origin's object changes: a request still gets the copy it has, the revalidation it starts fetches
        // the new one, and a later request gets that
        byte[] v2 = origin.object(path, 60_000);
        assertThat(get(path).body()).isEqualTo(v1);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> java.util.Arrays.equals(get(path).body(), v2));
        assertThat(edge.metric("videoedge_cache_responses_total{result=\"updating\"}"))
                .isGreaterThanOrEqualTo(4);
    }

    /**
     * An object promoted to memory that expires and is then answered 200 (another version) by the
     * origin: it is too large to enter memory while it is filled, so the new version goes to disk only
     * and the old one must leave memory. Lookups look no further than memory: the old copy, kept, hid
     * the new one, and every request revalidated and fetched the whole object again.
     */
    @Test
    void aNewVersionOfAnObjectInMemoryReplacesItThere() throws Exception {
        start("4m", "1m", "64m", "", "");
        String path = "/v/seg.m4s";
        origin.object(path, 600_000);
        origin.cacheControl(path, "max-age=3");
        long fetched = System.currentTimeMillis();
        assertThat(xcache(get(path))).isEqualTo("miss");
        assertThat(xcache(get(path))).isEqualTo("hit-disk");
        await("promoted after the second request")
                .atMost(Duration.ofSeconds(30))
                .until(() -> edge.gauge("videoedge_cache_memory_entries") == 1);
        byte[] second = origin.object(path, 600_001); // another version, another ETag
        origin.cacheControl(path, "max-age=3600");
        Thread.sleep(Math.max(0, fetched + 3_500 - System.currentTimeMillis())); // the first version expired

        HttpResponse<byte[]> changed = get(path);
        assertThat(xcache(changed)).isEqualTo("miss");
        assertThat(changed.body()).isEqualTo(second);
        HttpResponse<byte[]> after = get(path);
        assertThat(xcache(after)).as("the new version, from the cache").startsWith("hit-");
        assertThat(after.body()).isEqualTo(second);
        assertThat(origin.requests(path)).isEqualTo(2);
    }

    /**
     * With stale-while-revalidate, a request whose expired copy's file went (deleted under the edge)
     * joins the background revalidation without a copy of its own; the origin answers 304. It gets
     * the object afresh, not a response that never comes (the 304 path read the missing copy).
     */
    @Test
    void aRequestWithoutACopyJoiningARevalidationTheOriginConfirmsIsAnswered() throws Exception {
        start("4m", "1m", "64m", "  staleWhileRevalidate: 1h\n", "");
        String path = "/swr/gone.m4s";
        byte[] object = origin.object(path, 600_000); // disk only: too large to enter memory on its fill
        origin.cacheControl(path, "max-age=1");
        assertThat(xcache(get(path))).isEqualTo("miss");
        Thread.sleep(1_500); // expired
        for (Path f : filesUnder(diskDir)) {
            if (f.toString().endsWith(".obj")) Files.delete(f);
        }
        // the background revalidation waits at the origin while the request joins it
        HttpResponse<byte[]> answered = getWhileTheRevalidationWaits(path, () -> Thread.sleep(200));
        assertThat(answered.statusCode()).isEqualTo(200);
        assertThat(answered.body()).isEqualTo(object);
    }

    /** A client's request made while the origin holds the revalidation it causes, released after {@code meanwhile}. */
    private HttpResponse<byte[]> getWhileTheRevalidationWaits(String path, Meanwhile meanwhile) throws Exception {
        int before = origin.requests(path);
        origin.hold();
        ExecutorService client = Executors.newSingleThreadExecutor();
        try {
            Future<HttpResponse<byte[]>> r = client.submit(() -> get(path));
            await().atMost(Duration.ofSeconds(10)).until(() -> origin.requests(path) == before + 1);
            meanwhile.run();
            origin.release();
            return r.get(30, TimeUnit.SECONDS);
        } finally {
            origin.release();
            client.shutdownNow();
        }
    }

    @FunctionalInterface
    private interface Meanwhile {
        void run() throws Exception;
    }

    /**
     * The origin forbids serving an object stale (must-revalidate, no-cache): expired, it is not served
     * while the origin fails (staleWhileError is 1h by default), nor at once while it is revalidated
     * (staleWhileRevalidate): the request waits for the origin's answer.
     */
    @Test
    void anObjectTheOriginForbidsToServeStaleIsNeitherServedStaleNorWhileRevalidating() throws Exception {
        start("4m", "1m", "64m", "  staleWhileRevalidate: 1h\n", "");
        origin.object("/mr/seg.m4s", 50_000);
        origin.cacheControl("/mr/seg.m4s", "max-age=0, must-revalidate");
        byte[] playlist = origin.object("/mr/live.m3u8", 2_000);
        origin.cacheControl("/mr/live.m3u8", "no-cache");
        assertThat(xcache(get("/mr/seg.m4s"))).isEqualTo("miss");
        assertThat(xcache(get("/mr/live.m3u8"))).isEqualTo("miss");
        HttpResponse<byte[]> again = get("/mr/live.m3u8");
        assertThat(xcache(again)).as("revalidated before it answered").isEqualTo("revalidated");
        assertThat(again.body()).isEqualTo(playlist);

        assertNotServedStaleOnceTheOriginStops("/mr/seg.m4s");
    }

    private void assertNotServedStaleOnceTheOriginStops(String path) throws Exception {
        origin.stop();
        HttpResponse<byte[]> failing = get(path);
        assertThat(failing.statusCode()).isEqualTo(502);
        assertThat(xcache(failing)).isNotEqualTo("stale");
    }

    /**
     * The rule comes with the origin's answers: an object stored as servable stale (an older edge's
     * disk file, or an origin that changed its header) learns from a 304 that it no longer is, and the
     * disk file keeps that across a restart.
     */
    @Test
    void aRevalidationTheOriginAnswersWithMustRevalidateStopsStaleServingAlsoAfterARestart() throws Exception {
        start();
        origin.object("/mr/later.m4s", 50_000);
        origin.cacheControl("/mr/later.m4s", "max-age=1");
        assertThat(xcache(get("/mr/later.m4s"))).isEqualTo("miss");
        Thread.sleep(1_500); // expired
        origin.cacheControl("/mr/later.m4s", "max-age=1, must-revalidate");
        assertThat(xcache(get("/mr/later.m4s"))).isEqualTo("revalidated");
        edge.restart();
        Thread.sleep(1_500); // expired again
        assertNotServedStaleOnceTheOriginStops("/mr/later.m4s");
    }

    /**
     * A 304 with neither Cache-Control nor Expires leaves the stored response's own lifetime in force
     * (RFC 9111 4.3.4), not cache.ttl: a no-cache object is revalidated again on its next use, and a
     * max-age=1 object is fresh for one second again after each revalidation, not longer each time, also
     * after a restart (the disk file keeps when it was last confirmed).
     */
    @Test
    void aRevalidationWhose304HasNoCacheHeadersKeepsTheStoredLifetime() throws Exception {
        start();
        origin.object("/rv/live.m3u8", 2_000);
        origin.cacheControl("/rv/live.m3u8", "no-cache");
        origin.bareNotModified("/rv/live.m3u8");
        assertThat(xcache(get("/rv/live.m3u8"))).isEqualTo("miss");
        assertThat(xcache(get("/rv/live.m3u8"))).isEqualTo("revalidated");
        assertThat(xcache(get("/rv/live.m3u8")))
                .as("still revalidated on every use after a 304 without Cache-Control")
                .isEqualTo("revalidated");

        String path = "/rv/seg.m4s";
        origin.object(path, 50_000);
        origin.cacheControl(path, "max-age=1");
        origin.bareNotModified(path);
        assertThat(xcache(get(path))).isEqualTo("miss");
        for (int i = 0; i < 4; i++) {
            if (i == 2) edge.restart();
            Thread.sleep(1_300); // expired
            assertThat(xcache(get(path))).as("revalidation %d", i).isEqualTo("revalidated");
            assertThat(xcache(get(path))).as("fresh after revalidation %d", i).startsWith("hit-");
        }
        assertThat(origin.requests(path)).isEqualTo(5);
    }

    private static String header(HttpResponse<byte[]> r, String name) {
        return r.headers().firstValue(name).orElse(null);
    }

    private static long age(HttpResponse<byte[]> r) {
        return Long.parseLong(r.headers().firstValue("Age").orElseThrow());
    }

    /**
     * An answer got just now about an object fetched between {@code from} and {@code to} (epoch ms): its Age
     * is the whole seconds since, at least 2 here (the time it grew by), and its Date is that of the fetch.
     */
    private static void assertAge(HttpResponse<byte[]> r, long from, long to) {
        long now = System.currentTimeMillis();
        assertThat(age(r))
                .as("Age grows while the object is kept")
                .isBetween(Math.max(2, (now - 200 - to) / 1000 - 1), (now - from) / 1000);
        long date = io.videoedge.server.http.HttpDates.parseSeconds(header(r, "Date"));
        assertThat(date).as("Date: the stored answer's").isBetween(from / 1000, to / 1000 + 1);
    }

    /**
     * The answer aged while the origin took to give it (RFC 9111 4.2.3's response delay): it is as old as
     * the request to the origin, so its Date is that second, not the second its head arrived in. The
     * request goes out near the end of a second and the origin holds its head 0.3 s (within the edge's read
     * timeout), so the two seconds differ; an attempt that cannot tell (the edge asked the origin
     * only in the next second, or the answer did not come) is made again.
     */
    @Test
    void anAnswerIsAsOldAsTheRequestForIt() throws Exception {
        start();
        ExecutorService client = Executors.newSingleThreadExecutor();
        try {
            for (int attempt = 0; attempt < 5; attempt++) {
                String path = "/d/slow-" + attempt + ".m4s";
                origin.object(path, 1000);
                while (System.currentTimeMillis() % 1000 < 800 || System.currentTimeMillis() % 1000 >= 840) {
                    Thread.sleep(2);
                }
                long asked = System.currentTimeMillis();
                origin.hold();
                Future<HttpResponse<byte[]>> miss = client.submit(() -> get(path));
                long sent = asked;
                while (origin.requests(path) == 0 && sent - asked < 3000) {
                    Thread.sleep(1);
                    sent = System.currentTimeMillis();
                }
                Thread.sleep(Math.max(0, asked + 300 - System.currentTimeMillis()));
                origin.release();
                HttpResponse<byte[]> r = miss.get(10, TimeUnit.SECONDS);
                if (sent / 1000 == asked / 1000 && xcache(r).equals("miss")) {
                    assertThat(header(r, "Date")).isEqualTo(HttpDates.format(asked / 1000 * 1000));
                    return;
                }
            }
            throw new AssertionError("no attempt could tell: the edge asked the origin too late each time");
        } finally {
            client.shutdownNow();
        }
    }

    /**
     * What players and caches behind the edge are told: the origin's Cache-Control and Expires as they
     * came, from every tier and after a restart, and the response's Age (RFC 9111 5.1), which goes on from
     * the Age the origin's answer came with; that Age is also taken off the object's lifetime.
     */
    @Test
    void theOriginsCacheControlAndExpiresAreRelayedWithTheAgeFromEveryTier() throws Exception {
        start();
        String expires = "Thu, 01 Jan 2037 00:00:00 GMT";
        String small = "/d/seg.m4s";
        origin.object(small, 200_000);
        origin.cacheControl(small, "public, max-age=600");
        origin.header(small, "Expires", expires);
        String large = "/d/big.m4s"; // larger than memoryMaxObject: disk only
        origin.object(large, 3_000_000);
        origin.cacheControl(large, "max-age=600");

        long fetchedFrom = System.currentTimeMillis();
        for (String path : List.of(small, large)) {
            HttpResponse<byte[]> miss = get(path);
            assertThat(xcache(miss)).isEqualTo("miss");
            assertThat(header(miss, "Cache-Control"))
                    .isEqualTo(path.equals(small) ? "public, max-age=600" : "max-age=600");
            assertThat(age(miss)).isLessThanOrEqualTo(1);
        }
        HttpResponse<byte[]> memoryHit = get(small);
        assertThat(xcache(memoryHit)).isEqualTo("hit-memory");
        assertThat(header(memoryHit, "Cache-Control")).isEqualTo("public, max-age=600");
        assertThat(header(memoryHit, "Expires")).isEqualTo(expires);
        long fetchedTo = System.currentTimeMillis();
        Thread.sleep(2_100);
        assertAge(get(small), fetchedFrom, fetchedTo);
        edge.restart();
        HttpResponse<byte[]> diskHit = get(large);
        assertThat(xcache(diskHit)).isEqualTo("hit-disk");
        assertThat(header(diskHit, "Cache-Control")).as("kept on disk").isEqualTo("max-age=600");
        assertThat(header(diskHit, "Expires")).isNull();
        assertAge(diskHit, fetchedFrom, fetchedTo);
        HttpResponse<byte[]> afterRestart = get(small);
        assertThat(header(afterRestart, "Cache-Control")).isEqualTo("public, max-age=600");
        assertThat(header(afterRestart, "Expires")).isEqualTo(expires);

        // an answer that a cache between the edge and the origin had held for 2 of its 3 seconds
        String aged = "/d/aged.m3u8";
        origin.object(aged, 1_000);
        origin.cacheControl(aged, "max-age=3");
        origin.header(aged, "Age", "2");
        HttpResponse<byte[]> agedMiss = get(aged);
        assertThat(age(agedMiss)).isBetween(2L, 3L);
        Thread.sleep(1_300);
        assertThat(xcache(get(aged))).as("expired after the 1 s it had left").isEqualTo("revalidated");

        // a 304's Cache-Control replaces the stored one
        String live = "/d/live.m3u8";
        origin.object(live, 1_000);
        origin.cacheControl(live, "max-age=1");
        assertThat(xcache(get(live))).isEqualTo("miss");
        origin.cacheControl(live, "max-age=9");
        Thread.sleep(1_300);
        HttpResponse<byte[]> revalidated = get(live);
        assertThat(xcache(revalidated)).isEqualTo("revalidated");
        assertThat(header(revalidated, "Cache-Control")).isEqualTo("max-age=9");
        assertThat(xcache(get(live))).isEqualTo("hit-memory");
        edge.restart(); // and in the disk file (the new value fits where the old one was)
        HttpResponse<byte[]> fromDisk = get(live);
        assertThat(xcache(fromDisk)).isEqualTo("hit-disk");
        assertThat(header(fromDisk, "Cache-Control")).isEqualTo("max-age=9");

        // what the edge does not keep is not to be kept behind it either
        String personal = "/d/private.m4s";
        origin.object(personal, 10_000);
        origin.cacheControl(personal, "private, max-age=60");
        HttpResponse<byte[]> relayed = get(personal);
        assertThat(header(relayed, "Cache-Control")).isEqualTo("private, max-age=60");
        assertThat(xcache(get(personal))).isEqualTo("miss");
    }

    /**
     * A request waiting for its expired copy's revalidation, whose file went meanwhile (evicted, purged,
     * here deleted under the edge): the origin's 304 confirms a copy nobody has any more, and the
     * request gets the object afresh, not a 502.
     */
    @Test
    void aRevalidationConfirmingACopyWhoseFileWentMeanwhileFetchesTheObjectAfresh() throws Exception {
        start();
        String path = "/rv/gone.m4s";
        byte[] object = origin.object(path, 600_000); // disk only: too large to enter memory on its fill
        origin.cacheControl(path, "max-age=1");
        assertThat(xcache(get(path))).isEqualTo("miss");
        Thread.sleep(1_500); // expired
        HttpResponse<byte[]> answered = getWhileTheRevalidationWaits(path, () -> {
            for (Path f : filesUnder(diskDir)) {
                if (f.toString().endsWith(".obj")) Files.delete(f);
            }
        });
        assertThat(answered.statusCode()).isEqualTo(200);
        assertThat(answered.body()).isEqualTo(object);
    }

    @Test
    void withoutStaleWhileErrorAnExpiredObjectFailsWithTheOrigin() throws Exception {
        start("4m", "1m", "64m", "  staleWhileError: 0s\n", "");
        origin.object("/s0/seg.m4s", 50_000);
        origin.cacheControl("/s0/seg.m4s", "max-age=0");
        get("/s0/seg.m4s");
        origin.stop();
        assertThat(get("/s0/seg.m4s").statusCode()).isEqualTo(502);
    }

    @Test
    void chunkedOriginResponsesAreDecodedAndCached() throws Exception {
        start();
        byte[] object = origin.object("/c/chunked.m4s", 700_000);
        origin.chunked("/c/chunked.m4s");
        HttpResponse<byte[]> r = get("/c/chunked.m4s");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValueAsLong("Content-Length")).hasValue(object.length);
        assertThat(r.body()).isEqualTo(object);
        // the length was unknown while it arrived, so it went to disk; a disk hit promotes it to memory
        assertThat(xcache(get("/c/chunked.m4s"))).isEqualTo("hit-disk");
        await("promoted to memory")
                .atMost(Duration.ofSeconds(30))
                .until(() -> xcache(get("/c/chunked.m4s")).equals("hit-memory"));
        assertThat(get("/c/chunked.m4s").body()).isEqualTo(object);
    }

    @Test
    void noStoreObjectsAreRelayedButNotKept() throws Exception {
        start();
        byte[] object = origin.object("/n/private.m4s", 10_000);
        origin.cacheControl("/n/private.m4s", "no-store");
        assertThat(get("/n/private.m4s").body()).isEqualTo(object);
        assertThat(get("/n/private.m4s").body()).isEqualTo(object);
        assertThat(origin.requests("/n/private.m4s")).isEqualTo(2);
        await("no temporary files left behind (deleted right after the last bytes went out)")
                .atMost(Duration.ofSeconds(30))
                .ignoreExceptionsInstanceOf(java.io.UncheckedIOException.class) // a file gone while walked
                .until(() -> {
                    try (Stream<Path> files = Files.walk(diskDir)) {
                        return files.noneMatch(p -> p.getFileName().toString().endsWith(".part"));
                    }
                });
        assertThat(edge.gauge("videoedge_cache_disk_entries")).isZero();
    }

    /**
     * A miss whose origin sends slower than the client reads is written on the fill's thread while
     * the session is parked, with no selector event: that progress still counts for
     * {@code limits.idleTimeout}, so a body that keeps coming is not cut however long it takes (here an
     * idleTimeout of 1s, one-nio's cleanup every second, the body over about 3 s).
     */
    @Test
    void aMissStreamingLongerThanIdleTimeoutIsNotCutWhileItMakesProgress() throws Exception {
        start("4m", "1m", "64m", "", "keepAlive: 1s\nlimits:\n  idleTimeout: 1s\n");
        byte[] object = origin.object("/t/slow.m4s", 640 * 1024);
        origin.trickle("/t/slow.m4s", 32 * 1024, 150);
        HttpResponse<byte[]> r = get("/t/slow.m4s");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body())
                .as("the whole body, about 3 s after the first bytes")
                .isEqualTo(object);
    }

    @Test
    void responsesThatSetACookieAreRelayedButNotKept() throws Exception {
        start();
        byte[] object = origin.object("/n/cookie.m3u8", 10_000);
        origin.setCookie("/n/cookie.m3u8", "session=abc");
        HttpResponse<byte[]> first = get("/n/cookie.m3u8");
        assertThat(first.body()).isEqualTo(object);
        assertThat(first.headers().firstValue("Set-Cookie")).as("never relayed").isEmpty();
        assertThat(xcache(get("/n/cookie.m3u8"))).isEqualTo("miss");
        assertThat(origin.requests("/n/cookie.m3u8")).isEqualTo(2);
        assertThat(edge.gauge("videoedge_cache_memory_entries")).isZero();
    }

    /**
     * {@code Vary: *}: no later request can match the stored response (RFC 9111 4.1), so it is relayed and
     * not kept, like no-store. Other Vary values are stored as before.
     */
    @Test
    void responsesThatVaryOnEverythingAreRelayedButNotKept() throws Exception {
        start();
        byte[] object = origin.object("/n/vary.m4s", 10_000);
        origin.vary("/n/vary.m4s", "*");
        origin.cacheControl("/n/vary.m4s", "max-age=3600");
        for (int i = 0; i < 2; i++) {
            HttpResponse<byte[]> r = get("/n/vary.m4s");
            assertThat(r.body()).isEqualTo(object);
            assertThat(xcache(r)).as("request %d", i).isEqualTo("miss");
        }
        assertThat(origin.requests("/n/vary.m4s")).isEqualTo(2);
        assertThat(edge.gauge("videoedge_cache_memory_entries")).isZero();
        assertThat(edge.gauge("videoedge_cache_disk_entries")).isZero();

        origin.object("/n/encoded.m4s", 10_000);
        origin.vary("/n/encoded.m4s", "Accept-Encoding");
        assertThat(xcache(get("/n/encoded.m4s"))).isEqualTo("miss");
        assertThat(xcache(get("/n/encoded.m4s"))).isEqualTo("hit-memory");
    }

    @Test
    void headOnAMissGivesTheHeadAndFillsTheCache() throws Exception {
        start();
        origin.object("/hd/seg.m4s", 80_000);
        RawHttp.Response head = RawHttp.exchange(edge.httpPort, "HEAD /hd/seg.m4s HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(head.status()).isEqualTo(200);
        assertThat(head.header("Content-Length")).isEqualTo("80000");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> xcache(get("/hd/seg.m4s")).startsWith("hit"));
    }
}
