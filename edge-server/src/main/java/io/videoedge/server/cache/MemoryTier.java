package io.videoedge.server.cache;

import io.videoedge.server.resources.RefCounted;
import io.videoedge.server.send.OffHeapBytes;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import one.nio.mem.Malloc;
import one.nio.mem.OutOfMemoryException;

/**
 * The memory tier: objects up to {@code maxObject} bytes in off-heap memory from one-nio's Malloc
 * (one region of {@code budget} bytes, outside the Java heap and outside direct-buffer accounting),
 * indexed by an access-ordered map: the least recently used objects are evicted until an allocation
 * fits. Entries are reference counted, so an evicted object still being sent is freed only when its
 * last response is done. Hits are sent straight from this memory (one-nio writeRaw by address).
 */
public final class MemoryTier {
    private final Malloc malloc;
    private final int maxObject;
    private final LinkedHashMap<String, Entry> lru = new LinkedHashMap<>(1024, 0.75f, true);
    private final LongAdder evictions = new LongAdder();

    public MemoryTier(long budget, int maxObject) {
        this.malloc = new Malloc(budget);
        this.maxObject = maxObject;
    }

    /** Objects up to this size enter memory while they are fetched (manifests, init segments). */
    static final int ADMIT_ON_FILL = 256 * 1024;

    public boolean accepts(long length) {
        return length > 0 && length <= maxObject;
    }

    /**
     * Admission: small objects go to memory as they arrive; larger ones only when requested again
     * (promoted from disk on their first disk hit), so segments watched once do not push hot objects
     * out of the LRU.
     */
    public boolean admitsOnFill(long length) {
        return accepts(length) && length <= ADMIT_ON_FILL;
    }

    /** A retained entry, or null. The caller releases it. */
    public synchronized Entry get(String key) {
        Entry e = lru.get(key);
        return e != null && e.retain() ? e : null;
    }

    /**
     * Allocates space for an object, evicting least recently used entries as needed; null when it
     * cannot fit. The entry is private to the caller (one reference) until {@link #publish}.
     */
    public Entry allocate(ObjectMeta meta) {
        if (!accepts(meta.length())) {
            return null;
        }
        synchronized (this) {
            Iterator<Map.Entry<String, Entry>> oldest = lru.entrySet().iterator();
            while (true) {
                try {
                    return new Entry(this, malloc.malloc((int) meta.length()), meta);
                } catch (OutOfMemoryException full) {
                    if (!oldest.hasNext()) {
                        return null;
                    }
                    Entry victim = oldest.next().getValue();
                    oldest.remove();
                    evictions.increment();
                    victim.release(); // freed now, or when its last response is done
                }
            }
        }
    }

    /** Makes a filled entry visible; the caller keeps its own reference and still releases it. */
    public synchronized void publish(Entry e) {
        if (e.retain()) {
            Entry previous = lru.put(e.meta.key(), e);
            if (previous != null && previous != e) previous.release();
        }
    }

    public synchronized boolean contains(String key) {
        return lru.containsKey(key);
    }

    /** Removes (and releases) every entry whose key matches; responses still sending one keep it until done. */
    public synchronized int removeMatching(java.util.function.Predicate<String> matches) {
        int removed = 0;
        for (Iterator<Entry> it = lru.values().iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (matches.test(e.meta.key())) {
                it.remove();
                e.release();
                removed++;
            }
        }
        return removed;
    }

    public synchronized void remove(String key) {
        Entry e = lru.remove(key);
        if (e != null) e.release();
    }

    /** Removes {@code e} if it is still the entry of its key (not one stored for it since). */
    public synchronized void remove(Entry e) {
        if (lru.remove(e.meta.key(), e)) e.release();
    }

    synchronized void free(long address) {
        malloc.free(address);
    }

    public synchronized int entries() {
        return lru.size();
    }

    public long usedBytes() {
        return malloc.getUsedMemory();
    }

    public long capacityBytes() {
        return malloc.getTotalMemory();
    }

    public long evictions() {
        return evictions.sum();
    }

    /** One object's bytes at {@link #address()}, {@code meta().length()} long. */
    public static final class Entry extends RefCounted implements OffHeapBytes {
        private final MemoryTier tier;
        private final long address;
        private volatile ObjectMeta meta;

        Entry(MemoryTier tier, long address, ObjectMeta meta) {
            this.tier = tier;
            this.address = address;
            this.meta = meta;
        }

        public long address() {
            return address;
        }

        public ObjectMeta meta() {
            return meta;
        }

        /** After a successful revalidation. */
        public void refresh(ObjectMeta newMeta) {
            meta = newMeta;
        }

        @Override
        protected void free() {
            tier.free(address);
        }
    }
}
