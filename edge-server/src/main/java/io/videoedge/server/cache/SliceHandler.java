package io.videoedge.server.cache;

import io.videoedge.server.http.ContentTypes;
import io.videoedge.server.http.Decision;
import io.videoedge.server.http.Negotiation;
import io.videoedge.server.send.Body;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.util.List;
import java.util.function.Consumer;
import one.nio.http.HttpSession;
import one.nio.http.Request;

/**
 * The request path for objects cached in slices ({@code cache.slice} bytes each, as nginx's
 * {@code slice} module does): every slice is fetched from the origin with its own Range request,
 * cached as an object of its own in both tiers, and shared by concurrent misses of that slice. A
 * request finds the slice its first byte is in (which also tells the object's length and version),
 * answers from it, and then finds the following slices one by one as the response reaches them
 * ({@link SliceParts}), starting the next one's fetch ahead. Every slice must be of the first one's
 * version (ETag, Last-Modified, length): a cached slice of another version is dropped and fetched
 * again; a slice that arrives from the origin in another version cuts the response (the connection
 * is closed) rather than stitching two versions into one body. An expired slice is fetched again, and
 * kept meanwhile: while the origin fails, it is served {@code stale} within {@code cache.staleWhileError}
 * of its expiry, as a whole object is; the origin's word on the object ({@link Fill#theOriginsWord}) drops it.
 */
final class SliceHandler {
    /** What finding one slice gave. */
    sealed interface Result permits Found, Missing {}

    /** The slice, with one reference to its data. */
    record Found(SliceSource source) implements Result {}

    /**
     * An expired copy of a slice (the version asked for) kept while the slice is fetched again: in
     * memory, with the reference the lookup took, or on disk.
     */
    record StaleCopy(MemoryTier.Entry memory, DiskTier.Entry disk) {
        ObjectMeta meta() {
            return memory != null ? memory.meta() : disk.meta();
        }

        /** The copy as a slice source (taking over the memory reference), or null if its file is gone. */
        SliceSource open(DiskTier tier) throws IOException {
            if (memory != null) return new SliceSource.Memory(memory);
            RandomAccessFile f = tier.open(disk);
            return f == null ? null : new SliceSource.Disk(disk, f);
        }

        void release() {
            if (memory != null) memory.release();
        }
    }

    /** No such slice: the status the origin's failure maps to (416 past the object's end), with the header lines relayed from its answer. */
    record Missing(int status, String reason, List<String> headers) implements Result {
        Missing(int status, String reason) {
            this(status, reason, List.of());
        }
    }

    private final EdgeCache cache;
    private final CacheHandler responses;

    SliceHandler(EdgeCache cache, CacheHandler responses) {
        this.cache = cache;
        this.responses = responses;
    }

    void handle(Request request, HttpSession session, String key) throws IOException {
        long size = cache.sliceSize();
        long start = SliceRanges.firstByte(request.getHeader("Range:")) / size * size;
        find(key, start, null, true, result -> respond(request, session, key, start, result));
    }

    private void respond(Request request, HttpSession session, String key, long start, Result result) {
        try {
            switch (result) {
                case Missing m
                when m.status() == 416 && start > 0 ->
                    // the range starts past the object's end: the first slice tells its length (a 416 with it)
                    find(key, 0, null, true, r -> respond(request, session, key, 0, r));
                case Missing m when m.status() == 416 -> respondEmpty(request, session, key);
                case Missing m -> session.sendResponse(responses.error(m.status(), m.headers()));
                case Found f -> respondFrom(request, session, key, f.source());
            }
        } catch (IOException e) {
            session.close(); // the client went away meanwhile
        }
    }

    /**
     * The first slice starts past the object's end: the object is empty (the origin has no byte 0, RFC
     * 9110 14.1.2). Answered as an empty object, not cached: a Range gets 416 with the complete length,
     * 0, in Content-Range (15.5.17), a request without one 200 and no body.
     */
    private void respondEmpty(Request request, HttpSession session, String key) throws IOException {
        long now = System.currentTimeMillis();
        ObjectMeta empty = new ObjectMeta(key, ContentTypes.of(key), null, null, 0, now, now, 0);
        Decision d = Negotiation.decide(empty.validators(), request, now);
        session.sendResponse(responses.head(d, empty, null, "miss"));
    }

    private void respondFrom(Request request, HttpSession session, String key, SliceSource first) throws IOException {
        ObjectMeta meta = first.meta();
        Decision d = Negotiation.decide(meta.validators(), request, System.currentTimeMillis());
        Body body = null;
        if (CacheHandler.wantsBody(request, d)) {
            long firstStart = slicesStart(meta);
            SliceParts parts = new SliceParts(
                    this, key, meta, cache.sliceSize(), firstStart, first, d.offset(), d.offset() + d.length());
            body = new Body.Parts(parts, d.length());
        } else {
            first.release();
        }
        session.sendResponse(responses.head(d, meta, body, first.label()));
    }

    /** Where the slice of this meta starts (its key ends with {@code start/size}). */
    private static long slicesStart(ObjectMeta slice) {
        String k = slice.key();
        int sep = k.lastIndexOf('\u0001');
        return Long.parseLong(k.substring(sep + 1, k.indexOf('/', sep)));
    }

    /**
     * Finds the slice of {@code key} starting at {@code start}: memory, disk, else a (shared) fill,
     * and calls {@code done} with it, now or on a fill thread. A cached slice of a version other than
     * {@code expected} (null: any) is dropped from its tier and fetched again. Never blocks.
     */
    void find(String key, long start, ObjectMeta expected, boolean mayRetry, Consumer<Result> done) {
        try {
            findInTiersOrFetch(key, start, expected, mayRetry, done);
        } catch (IOException e) {
            done.accept(new Missing(502, "cache read failed: " + e.getMessage()));
        }
    }

    private void findInTiersOrFetch(
            String key, long start, ObjectMeta expected, boolean mayRetry, Consumer<Result> done) throws IOException {
        long size = cache.sliceSize();
        String sliceKey = SliceRanges.key(key, start, size);
        long now = System.currentTimeMillis();
        MemoryTier memory = cache.memory();
        MemoryTier.Entry m = memory == null ? null : memory.get(sliceKey);
        if (memory != null) cache.metrics().memory(m != null);
        MemoryTier.Entry staleInMemory = null;
        if (m != null) {
            if (!sameVersion(m.meta(), expected)) {
                memory.remove(sliceKey); // another version: never stitched
                m.release();
            } else if (m.meta().fresh(now)) {
                done.accept(new Found(new SliceSource.Memory(m)));
                return;
            } else {
                staleInMemory = m; // kept, with its reference, in case the origin fails
            }
        }
        DiskTier.Entry d = cache.disk().get(sliceKey);
        if (m == null) cache.metrics().disk(d != null);
        DiskTier.Entry staleOnDisk = null;
        if (d != null) {
            if (!d.verified()) {
                if (staleInMemory != null) staleInMemory.release();
                verifyThenFind(d, key, start, expected, mayRetry, done);
                return;
            }
            if (!sameVersion(d.meta(), expected)) {
                cache.disk().drop(d, null);
            } else if (d.meta().fresh(now)) {
                RandomAccessFile f;
                try {
                    f = cache.disk().open(d);
                } catch (IOException | RuntimeException e) {
                    if (staleInMemory != null) staleInMemory.release();
                    throw e;
                }
                if (f != null) {
                    if (staleInMemory != null) staleInMemory.release();
                    responses.promote(d);
                    done.accept(new Found(new SliceSource.Disk(d, f)));
                    return;
                }
                cache.disk().drop(d, "file missing or not its recorded size");
            } else {
                staleOnDisk = d;
            }
        }
        StaleCopy stale =
                staleInMemory != null || staleOnDisk != null ? new StaleCopy(staleInMemory, staleOnDisk) : null;
        EdgeCache.Joined joined =
                cache.joinSlice(sliceKey, CacheHandler.originPath(key), new Fill.Slice(start, size, expected));
        awaitFill(joined, key, start, expected, mayRetry, stale, done);
    }

    /** Calls {@code done} with the slice a fill brings (or its failure) once the origin's head is there. */
    void awaitFill(
            EdgeCache.Joined joined,
            String key,
            long start,
            ObjectMeta expected,
            boolean mayRetry,
            Consumer<Result> done) {
        awaitFill(joined, key, start, expected, mayRetry, null, done);
    }

    /** As above; {@code stale} (null: none) answers instead when the origin fails and it may. */
    private void awaitFill(
            EdgeCache.Joined joined,
            String key,
            long start,
            ObjectMeta expected,
            boolean mayRetry,
            StaleCopy stale,
            Consumer<Result> done) {
        joined.fill().onHead(outcome -> {
            if (stale != null) {
                if (outcome instanceof Fill.Failed f
                        && TierLookup.staleServable(
                                stale.meta(), f.status(), System.currentTimeMillis(), cache.staleWhileError())) {
                    SliceSource copy = openQuietly(stale);
                    if (copy != null) {
                        done.accept(new Found(new SliceSource.Stale(copy)));
                        return;
                    }
                } else {
                    ObjectMeta copy = stale.meta();
                    stale.release();
                    if (outcome instanceof Fill.Failed f && Fill.theOriginsWord(f.status())) {
                        cache.dropVersion(copy); // the origin's word on it: no copy of it answers any more
                    }
                }
            }
            switch (outcome) {
                case Fill.Streaming s
                when !sameVersion(s.fill().meta(), expected) ->
                    done.accept(new Missing(502, "the object changed at the origin between slices"));
                case Fill.Streaming s
                when s.fill().file().retain() ->
                    done.accept(new Found(new SliceSource.Filling(s.fill(), joined.started())));
                case Fill.Streaming s -> {
                    // the fill finished and let go of its file in between: the slice is in the tiers now
                    if (mayRetry) find(key, start, expected, false, done);
                    else done.accept(new Missing(502, "slice not kept"));
                }
                case Fill.Failed f -> done.accept(new Missing(f.status(), f.reason(), f.headers()));
                case Fill.NotModified nm -> done.accept(new Missing(502, "unexpected 304 for a slice"));
            }
        });
    }

    private SliceSource openQuietly(StaleCopy stale) {
        try {
            return stale.open(cache.disk());
        } catch (IOException e) {
            return null;
        }
    }

    /** After a restart: the slice's checksum is checked on a fill thread before it is first served. */
    private void verifyThenFind(
            DiskTier.Entry d, String key, long start, ObjectMeta expected, boolean mayRetry, Consumer<Result> done) {
        cache.submit(() -> {
            try {
                if (cache.disk().verifyOnce(d, cache.buffers())) {
                    cache.metrics().verified();
                } else {
                    cache.disk().drop(d, "checksum or size mismatch");
                }
            } catch (IOException e) {
                cache.disk().drop(d, "unreadable: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                done.accept(new Missing(503, "shutting down"));
                return;
            }
            find(key, start, expected, mayRetry, done);
        });
    }

    /**
     * Starts fetching a slice a response will need next unless it is cached or on its way; returns the
     * fill (the response awaits it when it gets there, {@link #awaitFill}), or null when none was needed.
     */
    EdgeCache.Joined prefetch(String key, long start, ObjectMeta expected) {
        long size = cache.sliceSize();
        if (start >= expected.objectLength()) return null;
        String sliceKey = SliceRanges.key(key, start, size);
        if ((cache.memory() != null && cache.memory().contains(sliceKey))
                || cache.disk().get(sliceKey) != null) {
            return null; // if it turns out stale or of another version, finding it fetches it then
        }
        return cache.joinSlice(sliceKey, CacheHandler.originPath(key), new Fill.Slice(start, size, expected));
    }

    void responseCut() {
        cache.metrics().sliceCut();
    }

    private static boolean sameVersion(ObjectMeta found, ObjectMeta expected) {
        return expected == null || found.sameVersion(expected);
    }
}
