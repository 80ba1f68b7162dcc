package io.videoedge.server.cache;

import io.videoedge.server.http.Decision;
import io.videoedge.server.http.HttpDates;
import io.videoedge.server.http.Negotiation;
import io.videoedge.server.http.Statuses;
import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.resources.FileSource;
import io.videoedge.server.send.Body;
import io.videoedge.server.send.BodyResponse;
import io.videoedge.server.send.FileCopy;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import one.nio.http.HttpSession;
import one.nio.http.Request;
import one.nio.http.Response;
import one.nio.mem.DirectMemory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request path for objects behind the origin ({@link TierLookup} decides from what the tiers hold):
 * memory tier, then disk tier, then the origin
 * through a (shared) fill; expired objects are revalidated, and served stale while the origin fails
 * within {@code cache.staleWhileError}. Every response says where it came from in X-Cache, carries the
 * origin's Cache-Control and Expires as they came ({@link Directives}) and its Age (RFC 9111 5.1).
 * Range on a miss: the whole object is fetched (one fill, which fills the cache for the next
 * viewer and serves every concurrent range), and the requested bytes are streamed as soon as the
 * fill has them; with {@code cache.slice} set, objects are fetched and cached in slices instead
 * ({@link SliceHandler}).
 */
public final class CacheHandler {
    private static final Logger log = LoggerFactory.getLogger(CacheHandler.class);

    /** "X-Cache: " and each value, made once (the concatenation per response showed in profiles). */
    private static final Map<String, String> X_CACHE =
            CacheMetrics.RESPONSE_RESULTS.stream().collect(Collectors.toUnmodifiableMap(r -> r, r -> "X-Cache: " + r));

    /**
     * Memory hits at least this long go out from the disk tier's copy with sendfile when the connection
     * takes it and the page cache holds the bytes, instead of being copied into the socket (PERFORMANCE.md,
     * "Memory-cache hits sent from the page cache"). Measured for 2 MiB; smaller bodies keep the copy.
     */
    static final long SENDFILE_FROM_DISK_COPY = 256 * 1024;

    private final EdgeCache cache;
    private final Set<String> promoting = ConcurrentHashMap.newKeySet();
    private final SliceHandler slices;

    public CacheHandler(EdgeCache cache) {
        this.cache = cache;
        this.slices = new SliceHandler(cache, this);
    }

    public void handle(Request request, HttpSession session, String key) throws IOException {
        if (cache.sliceSize() > 0) {
            slices.handle(request, session, key);
        } else {
            handle(request, session, key, true);
        }
    }

    private void handle(Request request, HttpSession session, String key, boolean mayRetry) throws IOException {
        switch (lookup(key)) {
            case TierLookup.MemoryHit hit -> respondFromMemory(request, session, hit.entry(), "hit-memory");
            case TierLookup.DiskHit hit -> {
                if (respondFromDisk(request, session, hit.entry(), "hit-disk")) {
                    promote(hit.entry());
                } else {
                    fetch(request, session, key, null, mayRetry); // its file went: dropped, fetched again
                }
            }
            case TierLookup.Unverified unverified -> verifyThenHandle(request, session, key, unverified.entry());
            case TierLookup.Expired expired -> {
                if (TierLookup.servableWhileRevalidating(
                        expired.meta(), System.currentTimeMillis(), cache.staleWhileRevalidate())) {
                    revalidateInBackground(key, expired.meta());
                    respondStale(request, session, key, expired, mayRetry);
                } else {
                    fetch(request, session, key, expired, mayRetry);
                }
            }
            case TierLookup.Absent absent -> fetch(request, session, key, null, mayRetry);
        }
    }

    /** Memory first, the disk only after a memory miss; each lookup counted. */
    private TierLookup lookup(String key) {
        long now = System.currentTimeMillis();
        MemoryTier memory = cache.memory();
        MemoryTier.Entry m = memory == null ? null : memory.get(key);
        if (memory != null) cache.metrics().memory(m != null);
        if (m != null) return TierLookup.of(m, null, now);
        DiskTier.Entry d = cache.disk().get(key);
        cache.metrics().disk(d != null);
        return TierLookup.of(null, d, now);
    }

    /** One revalidation of an expired copy with nobody waiting for it (or joins the one in flight). */
    private void revalidateInBackground(String key, ObjectMeta stale) {
        cache.revalidate(key, originPath(key), stale);
    }

    /** The expired copy as it is ({@code updating}); the lookup's reference is handed to the response. */
    private void respondStale(
            Request request, HttpSession session, String key, TierLookup.Expired stale, boolean mayRetry)
            throws IOException {
        if (stale.memory() != null) {
            respondFromMemory(request, session, stale.memory(), "updating");
        } else if (!respondFromDisk(request, session, stale.disk(), "updating")) {
            fetch(request, session, key, null, mayRetry); // its file went meanwhile
        }
    }

    private void fetch(Request request, HttpSession session, String key, TierLookup.Expired stale, boolean mayRetry)
            throws IOException {
        EdgeCache.Joined joined = cache.join(key, originPath(key), stale == null ? null : stale.meta());
        if (joined == null) {
            if (mayRetry) {
                handle(request, session, key, false); // committed a moment ago: a hit now
            } else {
                session.sendResponse(error(Response.BAD_GATEWAY, "error"));
            }
            return;
        }
        String xcache = joined.started() ? "miss" : "coalesced";
        joined.fill().onHead(outcome -> {
            try {
                respondToOutcome(request, session, key, outcome, stale, mayRetry, xcache);
            } catch (IOException e) {
                session.close(); // the client went away meanwhile
            } finally {
                if (stale != null) stale.release();
            }
        });
    }

    private void respondToOutcome(
            Request request,
            HttpSession session,
            String key,
            Fill.Outcome outcome,
            TierLookup.Expired stale,
            boolean mayRetry,
            String xcache)
            throws IOException {
        switch (outcome) {
            case Fill.Streaming s -> respondFromFill(request, session, key, s.fill(), mayRetry, xcache);
            case Fill.NotModified nm -> {
                if (respondFromCopy(request, session, stale, "revalidated")) return;
                if (respondFromTiers(request, session, key, "revalidated")) return;
                // no copy of its own (it joined another request's revalidation without one, or its file
                // went meanwhile: evicted, purged): the object afresh
                if (mayRetry) fetch(request, session, key, null, false);
                else session.sendResponse(error(Response.BAD_GATEWAY, "error"));
            }
            case Fill.Failed f -> {
                long now = System.currentTimeMillis();
                if (stale != null
                        && TierLookup.staleServable(stale.meta(), f.status(), now, cache.staleWhileError())
                        && respondFromCopy(request, session, stale, "stale")) {
                    return;
                }
                session.sendResponse(error(f.status(), f.headers()));
            }
        }
    }

    /** The request's own expired copy (held by its lookup), from memory or disk; false without one. */
    private boolean respondFromCopy(Request request, HttpSession session, TierLookup.Expired copy, String xcache)
            throws IOException {
        if (copy == null) return false;
        if (copy.memory() != null && copy.memory().retain()) {
            respondFromMemory(request, session, copy.memory(), xcache);
            return true;
        }
        return copy.disk() != null && respondFromDisk(request, session, copy.disk(), xcache);
    }

    private void respondFromFill(
            Request request, HttpSession session, String key, Fill fill, boolean mayRetry, String xcache)
            throws IOException {
        ObjectMeta meta = fill.meta();
        Decision d = Negotiation.decide(meta.validators(), request, System.currentTimeMillis());
        Body body = null;
        if (wantsBody(request, d)) {
            if (!fill.file().retain()) {
                // the fill finished and let go of its file in between: the object is in the cache
                // now, served under this request's own label (it started or joined that fill)
                if (respondFromTiers(request, session, key, xcache)) return;
                if (mayRetry) fetch(request, session, key, null, false); // not stored (no-store): fetch again
                else session.sendResponse(error(Response.BAD_GATEWAY, "error"));
                return;
            }
            body = new Body.FillRegion(fill, d.offset(), d.length());
        }
        session.sendResponse(head(d, meta, body, xcache));
    }

    /** The object from memory or disk under the given label; false when neither tier has it. */
    private boolean respondFromTiers(Request request, HttpSession session, String key, String xcache)
            throws IOException {
        MemoryTier.Entry m = cache.memory() == null ? null : cache.memory().get(key);
        if (m != null) {
            respondFromMemory(request, session, m, xcache);
            return true;
        }
        DiskTier.Entry d = cache.disk().get(key);
        return d != null && d.verified() && respondFromDisk(request, session, d, xcache);
    }

    /** Takes over the caller's reference to the entry. */
    private void respondFromMemory(Request request, HttpSession session, MemoryTier.Entry m, String xcache)
            throws IOException {
        ObjectMeta meta = m.meta();
        Decision d = Negotiation.decide(meta.validators(), request, System.currentTimeMillis());
        Body body = null;
        if (wantsBody(request, d)) {
            FileCopy file = d.length() >= SENDFILE_FROM_DISK_COPY ? cache.disk().cachedCopyOf(meta) : null;
            body = new Body.MemoryRegion(m, d.offset(), d.length(), file);
        } else {
            m.release();
        }
        session.sendResponse(head(d, meta, body, xcache));
    }

    /**
     * False when the file is gone or no longer has its full size (it is dropped), or the entry was replaced or removed
     * meanwhile: fetched again. A file that is there but cannot be opened now (out of descriptors, EIO) fails this
     * request with a 500 and stays cached.
     */
    private boolean respondFromDisk(Request request, HttpSession session, DiskTier.Entry e, String xcache)
            throws IOException {
        RandomAccessFile f;
        try {
            f = cache.disk().open(e);
        } catch (IOException ex) {
            log.atWarn()
                    .addKeyValue("key", e.meta().key())
                    .addKeyValue("error", ex.toString())
                    .log("cannot open a cached file");
            session.sendResponse(error(Response.INTERNAL_ERROR, "error"));
            return true;
        }
        if (f == null) {
            cache.disk().drop(e, "file missing or not its recorded size");
            return false;
        }
        ObjectMeta meta = e.meta();
        Decision d = Negotiation.decide(meta.validators(), request, System.currentTimeMillis());
        Body body = null;
        if (wantsBody(request, d)) {
            body = new Body.FileRegion(
                    FileSource.owned(f), e.headerLength() + d.offset(), d.length(), EdgeMetrics.Source.DISK);
        } else {
            f.close();
        }
        session.sendResponse(head(d, meta, body, xcache));
        return true;
    }

    /** After a restart: the checksum is checked on a fill thread before the entry is first served. */
    private void verifyThenHandle(Request request, HttpSession session, String key, DiskTier.Entry d) {
        cache.submit(() -> {
            try {
                if (cache.disk().verifyOnce(d, cache.buffers())) {
                    cache.metrics().verified();
                } else {
                    cache.disk().drop(d, "checksum or size mismatch");
                }
                handle(request, session, key, true);
            } catch (IOException e) {
                session.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                session.close();
            }
        });
    }

    /** A small object served from disk moves into the memory tier (read on a fill thread, off the request path). */
    void promote(DiskTier.Entry d) {
        MemoryTier memory = cache.memory();
        ObjectMeta meta = d.meta();
        if (memory == null || !memory.accepts(meta.length()) || !promoting.add(meta.key())) {
            return;
        }
        cache.submit(() -> {
            MemoryTier.Entry m = null;
            try (RandomAccessFile f = cache.disk().open(d)) {
                if (f == null || memory.contains(meta.key())) return;
                m = memory.allocate(meta);
                if (m == null) return;
                ByteBuffer view = DirectMemory.wrap(m.address(), (int) meta.length());
                FileChannel ch = f.getChannel();
                while (view.hasRemaining()) {
                    if (ch.read(view, d.headerLength() + view.position()) < 0) return;
                }
                cache.publishPromoted(d, m); // not if a purge removed it meanwhile
            } catch (IOException e) {
                log.atDebug()
                        .addKeyValue("key", meta.key())
                        .addKeyValue("error", e.toString())
                        .log("promotion to memory failed");
            } finally {
                if (m != null) m.release();
                promoting.remove(meta.key());
            }
        });
    }

    static boolean wantsBody(Request request, Decision d) {
        return request.getMethod() == Request.METHOD_GET && d.hasBody() && d.length() > 0;
    }

    /** The response head for an object (its whole length in Content-Range when it is a slice). */
    Response head(Decision d, ObjectMeta meta, Body body, String xcache) {
        cache.metrics().result(xcache);
        Response r;
        switch (d.status()) {
            case 304 -> r = new Response(Response.NOT_MODIFIED);
            case 416 -> {
                r = new Response(Response.REQUESTED_RANGE_NOT_SATISFIABLE, Response.EMPTY);
                r.addHeader("Content-Range: bytes */" + meta.objectLength());
            }
            default -> {
                String status = d.status() == 206 ? Response.PARTIAL_CONTENT : Response.OK;
                r = body != null ? new BodyResponse(status, body) : new Response(status);
                r.addHeader("Content-Length: " + d.length());
                if (d.status() == 206) {
                    r.addHeader("Content-Range: bytes " + d.offset() + "-" + (d.offset() + d.length() - 1) + "/"
                            + meta.objectLength());
                }
                r.addHeader("Content-Type: " + meta.contentType());
                r.addHeader("Accept-Ranges: bytes");
            }
        }
        if (meta.etag() != null) r.addHeader("ETag: " + meta.etag());
        if (meta.lastModified() != null) r.addHeader("Last-Modified: " + meta.lastModified());
        if (d.status() != 416) {
            // the object's, not for an answer about a range it does not have, which no one should keep
            Directives directives = meta.directives();
            if (directives.cacheControl() != null) r.addHeader("Cache-Control: " + directives.cacheControl());
            if (directives.expires() != null) r.addHeader("Expires: " + directives.expires());
        }
        r.addHeader(ageHeader(meta.ageSeconds(System.currentTimeMillis())));
        r.addHeader(xCacheHeader(xcache));
        // the stored answer's Date, as caches keep it: with Age beside it, a cache behind the edge counts an
        // Expires lifetime (Expires - Date) and the age once each, not the time since the fetch twice
        r.addHeader(meta.dateHeader());
        return r;
    }

    /** "Age: n" for the first minutes, made once (a live playlist's whole life: most answers take one). */
    private static final String[] AGE =
            IntStream.range(0, 600).mapToObj(n -> "Age: " + n).toArray(String[]::new);

    static String ageHeader(long seconds) {
        return seconds < AGE.length ? AGE[(int) seconds] : "Age: " + seconds;
    }

    private static String xCacheHeader(String xcache) {
        String h = X_CACHE.get(xcache);
        return h != null ? h : "X-Cache: " + xcache;
    }

    /**
     * The answer to an origin failure with {@code status} (404 relayed, 502, 503, 504; 500 for a cache write), with the header
     * lines relayed from the origin's answer when it is the origin's own ({@link Fill#relayedHeaders}, its
     * Date among them). Never a 416: that needs the object's length in Content-Range ({@link #head}).
     */
    Response error(int status, List<String> relayed) {
        String line = switch (status) {
            case 404 -> Response.NOT_FOUND;
            case 401 -> Response.UNAUTHORIZED;
            case 403 -> Response.FORBIDDEN;
            case 429 -> Statuses.TOO_MANY_REQUESTS;
            case 451 -> Statuses.UNAVAILABLE_FOR_LEGAL_REASONS;
            case 504 -> Response.GATEWAY_TIMEOUT;
            case 503 -> Response.SERVICE_UNAVAILABLE;
            case 500 -> Response.INTERNAL_ERROR; // the edge's own cache storage failed
            default -> Response.BAD_GATEWAY;
        };
        // the origin's own answer (the object is not there, or not for this client): a miss it answered
        String xcache = Fill.relayedAsItIs(status) ? "miss" : "error";
        cache.metrics().result(xcache);
        Response r = new Response(line, Response.EMPTY);
        r.addHeader(xCacheHeader(xcache));
        if (relayed.isEmpty()) r.addHeader(HttpDates.dateHeader());
        relayed.forEach(r::addHeader);
        return r;
    }

    private Response error(String status, String xcache) {
        cache.metrics().result(xcache);
        Response r = new Response(status, Response.EMPTY);
        r.addHeader(xCacheHeader(xcache));
        r.addHeader(HttpDates.dateHeader());
        return r;
    }

    /** The origin path for a cache key: each segment percent-encoded again. */
    static String originPath(String key) {
        StringBuilder sb = new StringBuilder(key.length() + 8);
        for (String segment : key.split("/", -1)) {
            sb.append('/');
            for (byte b : segment.getBytes(StandardCharsets.UTF_8)) {
                int c = b & 0xff;
                if ((c >= 'a' && c <= 'z')
                        || (c >= 'A' && c <= 'Z')
                        || (c >= '0' && c <= '9')
                        || "-._~!$&'()*+,;=:@".indexOf(c) >= 0) {
                    sb.append((char) c);
                } else {
                    sb.append('%')
                            .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                            .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
                }
            }
        }
        return sb.toString();
    }
}
