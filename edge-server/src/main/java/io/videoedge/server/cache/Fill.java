package io.videoedge.server.cache;

import io.videoedge.server.http.ContentTypes;
import io.videoedge.server.http.HttpDates;
import io.videoedge.server.origin.Freshness;
import io.videoedge.server.origin.OriginClient;
import io.videoedge.server.origin.OriginHead;
import io.videoedge.server.resources.BufferPool;
import io.videoedge.server.resources.SharedFile;
import io.videoedge.server.send.GrowingFile;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.ProtocolException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import one.nio.mem.DirectMemory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One origin fetch of one object, shared by every request that misses it while it runs (coalescing).
 * It writes the body into a disk-tier file that requests stream from as it grows (and, for small
 * objects, into a memory-tier entry), checksums it on the way, and commits it to the tiers when it
 * is complete. Requests learn the outcome of the response head through {@link #onHead}; a request
 * that has caught up with the origin parks ({@link #parkUnlessReady}) and is woken by new data.
 * Runs on a fill thread; everything a selector thread calls here is non-blocking.
 */
public final class Fill implements Runnable, GrowingFile {
    private static final Logger log = LoggerFactory.getLogger(Fill.class);
    /** When a failed cache write was last logged (System.nanoTime): a full disk fails every miss. */
    private static final AtomicLong lastCacheWriteWarning = new AtomicLong(System.nanoTime() - 2_000_000_000L);

    /** What the origin said, as far as waiting requests are concerned. */
    public sealed interface Outcome permits Streaming, NotModified, Failed {}

    /** 200: the body is (being) written; respond from {@link Fill#meta()} and stream. */
    public record Streaming(Fill fill) implements Outcome {}

    /** 304 to a revalidation: the cached copy is good again until {@code meta.expiresAt()}. */
    public record NotModified(ObjectMeta meta) implements Outcome {}

    /**
     * No object from the origin: the status to answer (404 relayed, 502 error, 504 timeout), and the header
     * lines of the origin's own answer that go with a status relayed from it ({@link #relayedHeaders}).
     */
    public record Failed(int status, String reason, List<String> headers) implements Outcome {
        public Failed(int status, String reason) {
            this(status, reason, List.of());
        }
    }

    /**
     * A fill of one slice of a large object: bytes {@code start} to {@code start + size - 1} asked for
     * with a Range request. {@code expected}, when known (from another slice), is the version the
     * slice must belong to (see {@link ObjectMeta#sameVersion}).
     */
    record Slice(long start, long size, ObjectMeta expected) {}

    /** The origin's answer does not fit the slice asked for (length, range, version): nothing is cached. */
    static final class SliceMismatch extends ProtocolException {
        SliceMismatch(String message) {
            super(message);
        }
    }

    private final String key;
    private final String originPath;
    private final ObjectMeta revalidating;
    private final Slice slice; // null for a whole object
    private final EdgeCache cache;

    private Outcome outcome;
    private final List<Consumer<Outcome>> headWaiters = new ArrayList<>();
    private List<Runnable> dataWaiters = new ArrayList<>();
    private volatile long filled;
    private volatile boolean complete;
    private volatile boolean broken;
    private volatile ObjectMeta meta;
    private volatile boolean superseded; // the origin has another version now: not stored
    private int headerLength;
    private SharedFile file; // the fill's and every streaming request's reference
    private Path preparedTemp; // the cache file, created while the origin answered (prepareTempFile)
    private RandomAccessFile prepared;
    private volatile boolean purged; // a purge matched it: it stores nothing (EdgeCache#store)

    Fill(String key, String originPath, ObjectMeta revalidating, EdgeCache cache) {
        this(key, originPath, revalidating, null, cache);
    }

    Fill(String key, String originPath, ObjectMeta revalidating, Slice slice, EdgeCache cache) {
        this.key = key;
        this.originPath = originPath;
        this.revalidating = revalidating;
        this.slice = slice;
        this.cache = cache;
    }

    public String key() {
        return key;
    }

    public ObjectMeta meta() {
        return meta;
    }

    public long filled() {
        return filled;
    }

    public boolean complete() {
        return complete;
    }

    public boolean broken() {
        return broken;
    }

    /** Set by a purge (under EdgeCache's purge lock): the fill stores nothing. */
    void purge() {
        purged = true;
    }

    boolean purged() {
        return purged;
    }

    public int headerLength() {
        return headerLength;
    }

    public SharedFile file() {
        return file;
    }

    /** The origin has changed the object since this fill's response: whatever it gets is not stored. */
    void supersede() {
        superseded = true;
    }

    /** Runs the callback with the outcome: now if it is known, else on the fill thread when it is. */
    public void onHead(Consumer<Outcome> callback) {
        Outcome known;
        synchronized (this) {
            known = outcome;
            if (known == null) {
                headWaiters.add(callback);
                return;
            }
        }
        callback.accept(known);
    }

    /** See {@link io.videoedge.server.send.Parkable#parkUnlessReady}. */
    public boolean parkUnlessReady(long position, Runnable waker) {
        synchronized (this) {
            if (filled > position || complete || broken) {
                return false;
            }
            if (!dataWaiters.contains(waker)) {
                dataWaiters.add(waker); // once: a session parks again when a selector wake-up crosses a fill's
            }
            return true;
        }
    }

    private void wakeReaders() {
        List<Runnable> waiters;
        synchronized (this) {
            if (dataWaiters.isEmpty()) return;
            waiters = dataWaiters;
            dataWaiters = new ArrayList<>();
        }
        for (Runnable w : waiters) {
            w.run();
        }
    }

    /**
     * Every terminal state leaves the in-flight map before it becomes visible: a request arriving
     * afterwards finds the object in the cache, or starts a fresh attempt, instead of joining a fill
     * that is over (and inheriting, say, its failure).
     */
    private void publish(Outcome o) {
        if (!(o instanceof Streaming)) {
            discardPreparedTempFile(); // before anyone hears of it: no file outlives an answer without a body
        }
        if (o instanceof Failed) {
            cache.finishedFill(this);
        }
        List<Consumer<Outcome>> waiters;
        synchronized (this) {
            outcome = o;
            waiters = new ArrayList<>(headWaiters);
            headWaiters.clear();
        }
        for (Consumer<Outcome> w : waiters) {
            try {
                w.accept(o);
            } catch (RuntimeException e) {
                log.atWarn().setCause(e).log("responding to a waiting request failed");
            }
        }
    }

    @Override
    public void run() {
        long started = System.nanoTime();
        String result = "error";
        try {
            Outcome failFast = cache.breaker().check();
            if (failFast != null) {
                result = "fail_fast";
                publish(failFast);
                return;
            }
            result = fetch(started);
            cache.breaker().success();
        } catch (CacheWriteFailed e) {
            // the edge's own storage: the origin answered, so its breaker neither trips nor resets
            result = CacheMetrics.CACHE_WRITE;
            if (DiskTier.isOutOfSpace(e)) {
                ObjectMeta m = meta;
                cache.disk().outOfSpace(headerLength + (m == null ? 0 : m.length()));
            }
            if (cacheWriteWarningDue()) {
                log.atWarn()
                        .addKeyValue("key", key)
                        .addKeyValue("error", e.getMessage())
                        .log("cache write failed (logged at most once a second; videoedge_cache_write_errors_total"
                                + " counts every one)");
            }
            fail(500, e.getMessage(), e);
        } catch (SocketTimeoutException e) {
            result = "timeout";
            fail(504, "origin timeout: " + e.getMessage(), e);
            cache.breaker().failure(504);
        } catch (SliceMismatch e) {
            result = "slice_mismatch";
            log.atWarn()
                    .addKeyValue("key", key)
                    .addKeyValue("error", e.getMessage())
                    .log("origin slice refused");
            fail(502, "origin slice refused: " + e.getMessage(), e);
        } catch (ProtocolException e) {
            result = "protocol";
            fail(502, "origin protocol error: " + e.getMessage(), e);
        } catch (javax.net.ssl.SSLException e) {
            // handshake failed or the certificate was refused (chain, host name): not retried sooner
            result = "tls";
            // a refused certificate is a setup problem, not noise: logged (at most once a second, the
            // breaker makes the misses in between fail fast)
            log.atWarn()
                    .addKeyValue("key", key)
                    .addKeyValue("error", e.getMessage())
                    .log("origin TLS failed");
            fail(502, "origin TLS failed: " + e.getMessage(), e);
            cache.breaker().failure(502);
        } catch (IOException e) {
            result = "connect";
            fail(502, "origin unreachable: " + e.getMessage(), e);
            cache.breaker().failure(502);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(503, "shutting down", e);
        } catch (RuntimeException e) {
            fail(502, "fill failed: " + e, e);
            log.atError().setCause(e).addKeyValue("key", key).log("fill failed");
        } finally {
            cache.metrics().originRequest(result, (System.nanoTime() - started) / 1e9);
            cache.finishedFill(this);
            if (file != null) file.release(); // the fill's own reference
            discardPreparedTempFile(); // a safety net: every outcome above streams into it or discards it as it is
            // published
        }
    }

    /**
     * Creates the cache file while the origin prepares its answer, so that creating it (tens of
     * microseconds of file system work) is not between the origin's head and the client's first byte.
     * Not for revalidations, which expect a 304. A failure here is met again, and answered, in
     * {@link #stream}.
     */
    private void prepareTempFile() {
        if (prepared != null) return; // an earlier attempt's (a stale connection, another origin)
        Path temp = cache.disk().newTempFile(key);
        try {
            prepared = cache.disk().createTempFile(temp);
            preparedTemp = temp;
        } catch (IOException | RuntimeException e) {
            log.atDebug().setCause(e).addKeyValue("key", key).log("cache file not created ahead");
        }
    }

    private void discardPreparedTempFile() {
        if (prepared == null) return;
        try {
            prepared.close();
            Files.deleteIfExists(preparedTemp);
        } catch (IOException e) {
            log.atWarn()
                    .setCause(e)
                    .addKeyValue("file", preparedTemp.toString())
                    .log("unused cache file not removed");
        }
        prepared = null;
        preparedTemp = null;
    }

    /** Returns the outcome label for the latency metric. */
    private String fetch(long started) throws IOException, InterruptedException {
        List<String> conditional = new ArrayList<>(2);
        if (revalidating != null) {
            if (revalidating.etag() != null) conditional.add("If-None-Match: " + revalidating.etag());
            if (revalidating.lastModified() != null)
                conditional.add("If-Modified-Since: " + revalidating.lastModified());
        }
        if (slice != null) {
            conditional.add("Range: bytes=" + slice.start() + "-" + (slice.start() + slice.size() - 1));
        }
        Runnable whileWaiting = revalidating == null ? this::prepareTempFile : null;
        try (OriginClient.Exchange x = cache.origin().get(originPath, conditional, whileWaiting)) {
            OriginHead head = x.head();
            // "now" for the answer: when it was current at its source (its Age taken off the time it was
            // asked for), so that the lifetime counts from there and the Age sent downstream goes on from
            // the one it came with, the origin's time to answer included
            long now = head.currentAt(x.requestedAt());
            if (head.status() == 304 && revalidating != null) {
                x.abandon();
                Directives directives = revalidating.directives().updatedBy(Directives.of(head));
                Freshness f = Freshness.ofNotModified(
                        head,
                        now,
                        cache.defaultTtl(),
                        revalidating.lifetime(),
                        revalidating.mustRevalidate(),
                        directives.cacheControl(),
                        directives.expires());
                ObjectMeta refreshed = revalidating.revalidated(now, f.expiresAt(), f.mustRevalidate(), directives);
                cache.refreshed(refreshed);
                cache.finishedFill(this);
                publish(new NotModified(refreshed));
                return "not_modified";
            }
            if (slice != null && (head.status() == 206 || head.status() == 200)) {
                return fetchSlice(x, head, now);
            }
            if (slice != null && head.status() == 416) {
                x.abandon();
                publish(new Failed(416, "the slice starts past the object's end"));
                return "range_not_satisfiable";
            }
            if (head.status() != 200) {
                x.abandon();
                int status = relayedStatus(head.status());
                if (revalidating != null && theOriginsWord(status) && !purged) {
                    cache.dropVersion(revalidating); // no copy of it answers any more, stale or updating
                }
                publish(new Failed(
                        status,
                        "origin answered " + head.status(),
                        status == 502 ? List.of() : relayedHeaders(head, now)));
                return head.status() == 404 || head.status() == 410 ? "not_found" : "status";
            }
            Freshness freshness = Freshness.ofBody(head, now, cache.defaultTtl());
            long length = head.contentLength();
            String type = head.header("content-type");
            meta = new ObjectMeta(
                            key,
                            type != null ? type : ContentTypes.of(key),
                            head.header("etag"),
                            head.header("last-modified"),
                            Math.max(length, 0),
                            now,
                            freshness.expiresAt(),
                            0,
                            Math.max(length, 0),
                            freshness.mustRevalidate())
                    .withDirectives(Directives.of(head));
            stream(x, freshness.storable(), length);
            return "ok";
        }
    }

    /**
     * A slice's response: a 206 whose Content-Range is exactly the slice asked for (shorter only at the
     * object's end), or a 200 for the first slice of an object no larger than one slice. Its version
     * must be the expected one. Anything else is a {@link SliceMismatch}, and nothing is cached.
     */
    private String fetchSlice(OriginClient.Exchange x, OriginHead head, long now)
            throws IOException, InterruptedException {
        long contentLength = head.contentLength();
        long objectLength;
        if (head.status() == 206) {
            long[] range = SliceRanges.contentRange(head.header("content-range"));
            if (range == null) {
                x.abandon();
                throw new SliceMismatch("206 without a valid Content-Range: " + head.header("content-range"));
            }
            objectLength = range[2];
            long expectedEnd = Math.min(slice.start() + slice.size(), objectLength) - 1;
            if (range[0] != slice.start() || range[1] != expectedEnd) {
                x.abandon();
                throw new SliceMismatch("asked for bytes " + slice.start() + "-" + expectedEnd + ", got "
                        + head.header("content-range"));
            }
        } else if (slice.start() == 0 && contentLength >= 0 && contentLength <= slice.size()) {
            objectLength = contentLength; // the whole object fits one slice
        } else {
            x.abandon();
            throw new SliceMismatch("the origin answered a Range request with 200 for an object larger than a slice");
        }
        long sliceLength = Math.min(slice.size(), objectLength - slice.start());
        if (contentLength >= 0 && contentLength != sliceLength) {
            x.abandon();
            throw new SliceMismatch("Content-Length " + contentLength + " for a slice of " + sliceLength + " bytes");
        }
        Freshness freshness = Freshness.ofBody(head, now, cache.defaultTtl());
        String type = head.header("content-type");
        meta = new ObjectMeta(
                        key,
                        type != null ? type : ContentTypes.of(originPath),
                        head.header("etag"),
                        head.header("last-modified"),
                        sliceLength,
                        now,
                        freshness.expiresAt(),
                        0,
                        objectLength,
                        freshness.mustRevalidate())
                .withDirectives(Directives.of(head));
        if (slice.expected() != null && !meta.sameVersion(slice.expected())) {
            x.abandon();
            cache.dropVersion(slice.expected()); // the slice the version came from is out of date
            throw new SliceMismatch("the object changed at the origin between slices (ETag, Last-Modified or length)");
        }
        stream(x, freshness.storable(), sliceLength);
        return "ok";
    }

    private void stream(OriginClient.Exchange x, boolean storable, long length)
            throws IOException, InterruptedException {
        BufferPool.Chunk scratch = cache.buffers().acquire(10_000);
        if (scratch == null) throw new CacheWriteFailed("no buffer free for a cache write", null);
        Path temp = preparedTemp;
        RandomAccessFile raf = prepared;
        prepared = null; // stream owns it now
        preparedTemp = null;
        if (raf == null) {
            temp = cache.disk().newTempFile(key);
            try {
                raf = cache.disk().createTempFile(temp);
            } catch (IOException e) {
                cache.buffers().release(scratch);
                throw new CacheWriteFailed("cache file not created", e);
            } catch (RuntimeException e) {
                cache.buffers().release(scratch);
                throw e;
            }
        }
        file = new SharedFile(raf);
        FileChannel ch = raf.getChannel();
        byte[] header = DiskFormat.encode(meta, false);
        headerLength = header.length;
        MemoryTier.Entry memory =
                storable && cache.memory() != null && cache.memory().admitsOnFill(length)
                        ? cache.memory().allocate(meta)
                        : null;
        ByteBuffer memoryView = memory == null ? null : DirectMemory.wrap(memory.address(), (int) length);
        boolean committed = false;
        try {
            onDisk("cache file header not written", () -> writeFully(ch, scratch.buffer(), header, 0));
            if (length >= 0) {
                publish(new Streaming(this)); // with a known length, requests can start right away
            }
            CRC32C crc = new CRC32C();
            long[] written = {0};
            long total = x.readBody((b, pos, len) -> {
                long at = written[0];
                if (length >= 0 && at + len > length)
                    throw new ProtocolException("origin sent more than Content-Length");
                ByteBuffer slice = b.duplicate().limit(pos + len).position(pos);
                crc.update(slice.duplicate());
                onDisk("cache file not written", () -> {
                    while (slice.hasRemaining()) {
                        ch.write(slice, headerLength + at + (slice.position() - pos));
                    }
                });
                if (memoryView != null) memoryView.put((int) at, b, pos, len);
                written[0] = at + len;
                if (written[0] < length) {
                    // the last bytes are released only after the commit below: a client that has
                    // the whole object can count on finding it in the cache
                    filled = written[0];
                    wakeReaders();
                }
            });
            if (length >= 0 && total != length) {
                throw new ProtocolException("origin body ended at " + total + " of " + length + " bytes");
            }
            meta = meta.withBody(total, (int) crc.getValue(), slice != null ? meta.objectLength() : total);
            byte[] finalHeader = DiskFormat.encode(meta, true); // same length: only numbers changed
            onDisk("cache file header not written", () -> writeFully(ch, scratch.buffer(), finalHeader, 0));
            if (storable && !superseded) {
                Path committing = temp;
                committed = onDisk("cache file not committed", () -> cache.store(this, committing, memory));
            }
            cache.finishedFill(this); // in the cache now (or not storable): later requests look it up afresh
            filled = total;
            complete = true;
            if (length < 0) {
                publish(new Streaming(this)); // chunked: requests were waiting for the length
            }
            wakeReaders();
        } catch (IOException | RuntimeException e) {
            broken = true;
            wakeReaders();
            throw e;
        } finally {
            cache.buffers().release(scratch);
            if (memory != null) memory.release(); // published entries hold their own reference
            if (!committed) Files.deleteIfExists(temp); // open descriptors keep the data for readers
        }
    }

    private static boolean cacheWriteWarningDue() {
        long now = System.nanoTime();
        long last = lastCacheWriteWarning.get();
        return now - last >= 1_000_000_000L && lastCacheWriteWarning.compareAndSet(last, now);
    }

    /** A write of the cache's own storage. */
    private interface DiskWrite {
        void run() throws IOException;
    }

    /** A call on the cache's own storage that answers. */
    private interface DiskCall<T> {
        T call() throws IOException;
    }

    /** Runs a cache write; its failure is the edge's ({@link CacheWriteFailed}), not the origin's. */
    private static void onDisk(String what, DiskWrite write) throws CacheWriteFailed {
        onDisk(what, () -> {
            write.run();
            return null;
        });
    }

    private static <T> T onDisk(String what, DiskCall<T> call) throws CacheWriteFailed {
        try {
            return call.call();
        } catch (CacheWriteFailed e) {
            throw e;
        } catch (IOException e) {
            throw new CacheWriteFailed(what, e);
        }
    }

    private static void writeFully(FileChannel ch, ByteBuffer scratch, byte[] bytes, long position) throws IOException {
        scratch.clear().put(bytes).flip(); // from a pooled direct buffer: no JDK temporary buffer
        while (scratch.hasRemaining()) {
            ch.write(scratch, position + scratch.position());
        }
    }

    /**
     * What a client gets for an origin answer the cache cannot use: 404 for 404 and 410 (gone); the
     * origin's own status for an access refusal or a rate limit (401, 403, 429, 451: a player must not
     * take them for an edge failure and retry); 502 for the rest (3xx, other 4xx, 5xx).
     */
    static int relayedStatus(int originStatus) {
        if (originStatus == 410) return 404;
        return relayedAsItIs(originStatus) ? originStatus : 502;
    }

    /**
     * The header lines of an origin answer relayed with its status (a refusal, a rate limit, a 404), which
     * the edge never keeps, for an answer current at {@code currentAt} ({@link OriginHead#currentAt}): its
     * Date then, as a cache behind the edge would have it from the origin (with the edge's own Date beside
     * the origin's Age, an Expires lifetime would count the age twice); how long it may be kept and by whom
     * ({@code Cache-Control}, {@code Expires}, {@code Age}); when to ask again ({@code Retry-After} of a
     * 429); how to authenticate ({@code WWW-Authenticate} of a 401, which RFC 9110 requires).
     */
    static List<String> relayedHeaders(OriginHead head, long currentAt) {
        List<String> lines = new ArrayList<>(3);
        lines.add("Date: " + HttpDates.format(currentAt));
        relay(lines, "Cache-Control", head.header("cache-control"));
        relay(lines, "Expires", head.header("expires"));
        long age = head.ageSeconds();
        if (age > 0) lines.add("Age: " + age);
        if (head.status() == 429) relay(lines, "Retry-After", head.header("retry-after"));
        if (head.status() == 401) relay(lines, "WWW-Authenticate", head.header("www-authenticate"));
        return List.copyOf(lines);
    }

    private static void relay(List<String> lines, String name, String value) {
        if (value != null && !value.isEmpty()) lines.add(name + ": " + value);
    }

    /**
     * The statuses that are the origin's word on the object, not a failure (404 gone; 401, 403, 451 not to
     * be served): no cached copy of it answers in their place, neither stale nor while revalidating (RFC
     * 5861's stale-if-error is for errors). A 429, the origin's rate limit, is not: it cannot answer now.
     */
    static boolean theOriginsWord(int relayedStatus) {
        return relayedAsItIs(relayedStatus) && relayedStatus != 429;
    }

    /** The origin statuses a client gets as they are: the origin's own answer, not an edge failure. */
    static boolean relayedAsItIs(int status) {
        return switch (status) {
            case 401, 403, 404, 429, 451 -> true;
            default -> false;
        };
    }

    private void fail(int status, String reason, Throwable e) {
        broken = true;
        log.atDebug()
                .addKeyValue("key", key)
                .addKeyValue("status", status)
                .addKeyValue("reason", reason)
                .log("origin fetch failed");
        boolean headKnown;
        synchronized (this) {
            headKnown = outcome != null;
        }
        if (!headKnown) {
            publish(new Failed(status, reason));
        } // else requests already streaming see `broken` and close their connections
        wakeReaders();
    }
}
