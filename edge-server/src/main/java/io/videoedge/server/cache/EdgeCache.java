package io.videoedge.server.cache;

import io.videoedge.server.config.CacheConfig;
import io.videoedge.server.config.OriginConfig;
import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.origin.Origins;
import io.videoedge.server.resources.BufferPool;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cache in front of the origin: memory tier, disk tier, the fills in flight (one per missing
 * object: concurrent misses coalesce), the origin client and the fill threads. The request path
 * that uses it is {@link CacheHandler}.
 */
public final class EdgeCache implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EdgeCache.class);
    static final long BREAKER_COOLDOWN_MILLIS = 1_000;

    private final MemoryTier memory;
    private final DiskTier disk;
    private final Origins origin;
    private final BufferPool buffers;
    private final CacheMetrics metrics;
    private final OriginBreaker breaker = new OriginBreaker(BREAKER_COOLDOWN_MILLIS);
    private final ConcurrentHashMap<String, Fill> fills = new ConcurrentHashMap<>();
    /**
     * Purges take it for writing; what puts an object into a tier (a fill's commit, a promotion to
     * memory) takes it for reading and checks it was not purged meanwhile. A purge therefore either
     * removes an object committed before it, or the commit sees the purge and stores nothing.
     */
    private final java.util.concurrent.locks.ReentrantReadWriteLock purgeLock =
            new java.util.concurrent.locks.ReentrantReadWriteLock();

    private final ExecutorService workers;
    private final long defaultTtl;
    private final long staleWhileError;
    private final long staleWhileRevalidate;
    private final long sliceSize;

    private EdgeCache(
            MemoryTier memory,
            DiskTier disk,
            Origins origin,
            BufferPool buffers,
            CacheMetrics metrics,
            ExecutorService workers,
            long defaultTtl,
            long staleWhileError,
            long staleWhileRevalidate,
            long sliceSize) {
        this.memory = memory;
        this.disk = disk;
        this.origin = origin;
        this.buffers = buffers;
        this.metrics = metrics;
        this.workers = workers;
        this.defaultTtl = defaultTtl;
        this.staleWhileError = staleWhileError;
        this.staleWhileRevalidate = staleWhileRevalidate;
        this.sliceSize = sliceSize;
    }

    public static EdgeCache create(
            CacheConfig cache, OriginConfig originConfig, BufferPool buffers, EdgeMetrics edgeMetrics)
            throws IOException {
        MemoryTier memory = cache.memory > 0 && cache.memoryMaxObject > 0
                ? new MemoryTier(cache.memory, cache.memoryMaxObject)
                : null;
        DiskTier disk = DiskTier.open(Path.of(cache.disk.path), cache.disk.size, buffers);
        Origins origin = Origins.create(originConfig, buffers, edgeMetrics);
        // one thread per origin connection (a fill blocks on its socket), plus checksum verifications
        ThreadPoolExecutor workers = new ThreadPoolExecutor(
                originConfig.maxConnections,
                originConfig.maxConnections,
                60,
                TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(),
                Thread.ofPlatform().name("fill-", 0).daemon().factory());
        workers.allowCoreThreadTimeOut(true);
        EdgeCache c = new EdgeCache(
                memory,
                disk,
                origin,
                buffers,
                new CacheMetrics(edgeMetrics),
                workers,
                cache.ttl,
                cache.staleWhileError,
                cache.staleWhileRevalidate,
                cache.slice);
        c.registerGauges(edgeMetrics);
        log.atInfo()
                .addKeyValue("origins", originConfig.urls())
                .addKeyValue("memoryBytes", memory == null ? 0 : memory.capacityBytes())
                .addKeyValue("diskBytes", cache.disk.size)
                .addKeyValue("diskEntries", disk.entries())
                .addKeyValue("sliceBytes", cache.slice)
                .log("cache ready");
        return c;
    }

    /**
     * The fill for a missing (or expired) object: the one in flight, or a new one started on a fill
     * thread. Null when the object was committed to the cache between the caller's lookup and now
     * (the caller looks it up again); that check inside the map update is what makes N concurrent
     * misses one origin request.
     */
    record Joined(Fill fill, boolean started) {}

    Joined join(String key, String originPath, ObjectMeta revalidating) {
        boolean[] created = {false};
        Fill f = fills.computeIfAbsent(key, k -> {
            if (revalidating == null && (disk.get(k) != null || (memory != null && memory.contains(k)))) {
                return null;
            }
            created[0] = true;
            return new Fill(k, originPath, revalidating, this);
        });
        if (f == null) return null;
        if (created[0]) {
            workers.execute(f);
        } else {
            metrics.coalesced();
        }
        return new Joined(f, created[0]);
    }

    /**
     * The fill of one slice: the one in flight for that slice (coalesced), or a new one. Unlike
     * {@link #join} it does not look at the tiers: the caller found no fresh slice of the version it needs.
     */
    Joined joinSlice(String sliceKey, String originPath, Fill.Slice slice) {
        boolean[] created = {false};
        Fill f = fills.computeIfAbsent(sliceKey, k -> {
            created[0] = true;
            return new Fill(k, originPath, null, slice, this);
        });
        if (created[0]) {
            workers.execute(f);
        } else {
            metrics.coalesced();
        }
        return new Joined(f, created[0]);
    }

    /**
     * Revalidates an expired object with nobody waiting for the outcome (stale-while-revalidate): a new
     * fill unless one for the key is in flight already.
     */
    void revalidate(String key, String originPath, ObjectMeta stale) {
        boolean[] created = {false};
        Fill f = fills.computeIfAbsent(key, k -> {
            created[0] = true;
            return new Fill(k, originPath, stale, this);
        });
        if (created[0]) workers.execute(f);
    }

    void finishedFill(Fill f) {
        fills.remove(f.key(), f);
    }

    /**
     * A completed fill: into the disk tier (and the memory tier when it has an entry, else out of it);
     * nothing when a purge matched it while it ran (false: the caller deletes the temporary file).
     */
    boolean store(Fill fill, Path temp, MemoryTier.Entry memoryEntry) throws IOException {
        purgeLock.readLock().lock();
        try {
            if (fill.purged()) return false;
            ObjectMeta meta = fill.meta();
            DiskTier.Entry committed = disk.commit(temp, meta, fill.headerLength());
            if (memoryEntry != null) {
                memoryEntry.refresh(meta);
                memory.publish(memoryEntry);
            } else if (memory != null) {
                // a copy memory holds is an older version (a revalidation the origin answered 200):
                // lookups look no further than memory, so it would hide the new one on disk
                memory.remove(meta.key());
            }
            return committed != null;
        } finally {
            purgeLock.readLock().unlock();
        }
    }

    /** A disk object read into memory: published unless a purge removed it from disk meanwhile. */
    void publishPromoted(DiskTier.Entry from, MemoryTier.Entry entry) {
        purgeLock.readLock().lock();
        try {
            // under the memory tier's lock, as its remove is: a fill storing a newer version between the
            // check and the publish would otherwise find nothing to remove, then see the old copy published
            synchronized (memory) {
                if (disk.get(from.meta().key()) == from) memory.publish(entry);
            }
        } finally {
            purgeLock.readLock().unlock();
        }
    }

    /**
     * Removes what matches from both tiers (disk files deleted before this returns) and marks the
     * matching fills in flight so that they store nothing; later requests miss and fetch afresh.
     */
    public PurgeResult purge(Purge purge) {
        PurgeResult r;
        purgeLock.writeLock().lock();
        try {
            int stopped = 0;
            for (Fill f : fills.values()) {
                if (purge.matches(f.key())) {
                    f.purge();
                    if (fills.remove(f.key(), f)) stopped++;
                }
            }
            int fromMemory = memory == null ? 0 : memory.removeMatching(purge::matches);
            int fromDisk = disk.purge(purge::matches);
            r = new PurgeResult(fromMemory, fromDisk, stopped);
        } finally {
            purgeLock.writeLock().unlock();
        }
        metrics.purged(r);
        log.atInfo()
                .addKeyValue("purge", purge.toString())
                .addKeyValue("memory", r.memory())
                .addKeyValue("disk", r.disk())
                .addKeyValue("fills", r.fills())
                .log("purged");
        return r;
    }

    /**
     * The copy {@code stale} describes leaves both tiers, and its fill, if still running, does not store
     * it: the origin has another version of it (a slice: other slices of that version are dropped when a
     * request finds them, {@link SliceHandler}), or its word on the object is that it is not to be served
     * (a revalidation answered 404, 401, 403 or 451, {@link Fill#theOriginsWord}).
     */
    void dropVersion(ObjectMeta stale) {
        Fill inFlight = fills.get(stale.key());
        if (inFlight != null && inFlight.meta() != null && inFlight.meta().sameVersion(stale)) {
            inFlight.supersede();
        }
        if (memory != null) {
            MemoryTier.Entry m = memory.get(stale.key());
            if (m != null) {
                if (m.meta().sameVersion(stale)) memory.remove(m);
                m.release();
            }
        }
        DiskTier.Entry d = disk.get(stale.key());
        if (d != null && d.meta().sameVersion(stale)) disk.drop(d, null);
    }

    /**
     * The origin confirmed a cached object (304): when, the new expiry and the stale rule, in both tiers,
     * for the copies of that version only (a newer one stored meanwhile, after a purge, is not this 304's).
     */
    void refreshed(ObjectMeta meta) {
        DiskTier.Entry d = disk.get(meta.key());
        if (d != null && d.meta().sameVersion(meta)) {
            disk.refresh(
                    d,
                    d.meta().revalidated(meta.fetchedAt(), meta.expiresAt(), meta.mustRevalidate(), meta.directives()),
                    buffers);
        }
        if (memory != null) {
            MemoryTier.Entry m = memory.get(meta.key());
            if (m != null) {
                if (m.meta().sameVersion(meta)) {
                    m.refresh(m.meta()
                            .revalidated(meta.fetchedAt(), meta.expiresAt(), meta.mustRevalidate(), meta.directives()));
                }
                m.release();
            }
        }
    }

    void submit(Runnable task) {
        workers.execute(task);
    }

    MemoryTier memory() {
        return memory;
    }

    DiskTier disk() {
        return disk;
    }

    Origins origin() {
        return origin;
    }

    BufferPool buffers() {
        return buffers;
    }

    CacheMetrics metrics() {
        return metrics;
    }

    OriginBreaker breaker() {
        return breaker;
    }

    long defaultTtl() {
        return defaultTtl;
    }

    long staleWhileRevalidate() {
        return staleWhileRevalidate;
    }

    /** {@code cache.slice}: the slice size in bytes, 0 when objects are fetched whole. */
    long sliceSize() {
        return sliceSize;
    }

    long staleWhileError() {
        return staleWhileError;
    }

    private void registerGauges(EdgeMetrics m) {
        if (memory != null) {
            m.gauge(
                    "videoedge_cache_memory_used_bytes",
                    "Memory tier: bytes allocated (one-nio Malloc, off-heap)",
                    memory::usedBytes);
            m.gauge(
                    "videoedge_cache_memory_capacity_bytes",
                    "Memory tier budget (cache.memory)",
                    memory::capacityBytes);
            m.gauge("videoedge_cache_memory_entries", "Memory tier: objects", memory::entries);
            m.counter(
                    "videoedge_cache_memory_evictions_total",
                    "Memory tier: least recently used objects evicted for space",
                    memory::evictions);
        }
        m.gauge("videoedge_cache_disk_used_bytes", "Disk tier: bytes in committed files", disk::usedBytes);
        m.gauge(
                "videoedge_cache_disk_capacity_bytes",
                "Disk tier budget (cache.disk.size, lowered when the file system fills up first)",
                disk::budgetBytes);
        m.gauge("videoedge_cache_disk_entries", "Disk tier: objects", disk::entries);
        m.counter(
                "videoedge_cache_disk_evictions_total",
                "Disk tier: oldest objects evicted for space (FIFO)",
                disk::evictions);
        m.counter(
                "videoedge_cache_corrupted_total",
                "Disk entries dropped because of a size or checksum mismatch (fetched again)",
                disk::corrupted);
        m.counter(
                "videoedge_cache_page_cache_read_backs_total",
                "Large memory hits whose disk copy the page cache had partly lost (they were copied from memory):"
                        + " ranges the kernel was asked to read back, so that later hits go out with sendfile",
                disk::readBacks);
        m.gauge("videoedge_cache_fills_in_flight", "Origin fetches in progress", fills::size);
        m.gauge("videoedge_origin_connections_busy", "Origin connections in use", origin::busyConnections);
        m.gauge(
                "videoedge_origin_failing",
                "1 while misses fail fast after an origin connection failure or timeout",
                () -> breaker.open() ? 1 : 0);
    }

    public void close() {
        workers.shutdownNow();
        origin.close();
    }
}
