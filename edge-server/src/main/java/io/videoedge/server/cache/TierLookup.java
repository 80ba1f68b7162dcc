package io.videoedge.server.cache;

/**
 * What the request path does with what the two tiers hold for a key: a pure decision over the entries
 * found (the lookups themselves, with their reference counts and metrics, are {@link CacheHandler}'s).
 */
sealed interface TierLookup {
    /** A fresh copy in memory: served as {@code hit-memory}. */
    record MemoryHit(MemoryTier.Entry entry) implements TierLookup {}

    /** A fresh, verified copy on disk: served as {@code hit-disk}, then promoted to memory when small. */
    record DiskHit(DiskTier.Entry entry) implements TierLookup {}

    /** A copy on disk from before a restart, its checksum not checked yet: checked first, then looked up again. */
    record Unverified(DiskTier.Entry entry) implements TierLookup {}

    /**
     * An expired copy (in memory or on disk): revalidated with the origin and kept meanwhile, for a 304
     * ({@code revalidated}) or to be served {@code stale} while the origin fails.
     */
    record Expired(MemoryTier.Entry memory, DiskTier.Entry disk) implements TierLookup {
        ObjectMeta meta() {
            return memory != null ? memory.meta() : disk.meta();
        }

        void release() {
            if (memory != null) memory.release();
        }
    }

    /** Nothing cached: fetched from the origin ({@code miss}, or {@code coalesced} with a fill in flight). */
    record Absent() implements TierLookup {}

    /**
     * @param memory the memory tier's entry, null when it has none (then {@code disk} is looked at)
     * @param disk the disk tier's entry, null when it has none
     */
    static TierLookup of(MemoryTier.Entry memory, DiskTier.Entry disk, long now) {
        if (memory != null) {
            return memory.meta().fresh(now) ? new MemoryHit(memory) : new Expired(memory, null);
        }
        if (disk == null) return new Absent();
        if (!disk.verified()) return new Unverified(disk);
        return disk.meta().fresh(now) ? new DiskHit(disk) : new Expired(null, disk);
    }

    /**
     * Whether an expired copy answers at once while it is revalidated in the background: within
     * {@code staleWhileRevalidate} milliseconds after it expired (0: never, the request waits), unless
     * the origin forbade serving it stale.
     */
    static boolean servableWhileRevalidating(ObjectMeta meta, long now, long staleWhileRevalidate) {
        return !meta.mustRevalidate() && now < meta.expiresAt() + staleWhileRevalidate;
    }

    /**
     * Whether an expired copy answers when its revalidation failed with {@code failStatus}: within
     * {@code staleWhileError} milliseconds after it expired, for the edge's own errors (502, 503, 504)
     * and the origin's rate limit (429: it cannot answer the edge now), never for the origin's word on
     * the object (404: gone; 401, 403, 451: not to be served; RFC 5861's stale-if-error is for errors
     * only), and never when the origin forbade serving it stale.
     */
    static boolean staleServable(ObjectMeta meta, int failStatus, long now, long staleWhileError) {
        return !meta.mustRevalidate() && !Fill.theOriginsWord(failStatus) && now < meta.expiresAt() + staleWhileError;
    }
}
