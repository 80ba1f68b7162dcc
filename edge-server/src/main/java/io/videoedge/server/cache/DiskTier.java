package io.videoedge.server.cache;

import io.videoedge.server.resources.BufferPool;
import io.videoedge.server.resources.FileSource;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The disk tier: one file per object ({@link DiskFormat}) under {@code data/xx/}, first in first out
 * within a byte budget. Objects arrive through a temporary file ({@code .part}) in the directory
 * they will have, which clients already stream from while it fills; a complete, checksummed file is
 * renamed into place and indexed. On start the directory is re-indexed in fetch order; files whose
 * size does not match their header are dropped at once, temporary files of fills that never
 * completed are deleted, and every re-indexed file has its checksum verified before it is first
 * served.
 *
 * <p>An evicted file is not deleted while a response reads it (each open pins its entry), and once
 * none does it is kept, within bounds, for a later fill to write over ({@link SpareFiles}); deleted
 * otherwise. Where the files go on disk is {@link DiskLayout}'s.
 */
public final class DiskTier {
    private static final Logger log = LoggerFactory.getLogger(DiskTier.class);

    private final DiskLayout layout;

    private final long budget;
    private final ConcurrentHashMap<String, Entry> index = new ConcurrentHashMap<>();
    private final ArrayDeque<Entry> fifo = new ArrayDeque<>();
    private final AtomicLong used = new AtomicLong();
    private final LongAdder evictions = new LongAdder();
    private final LongAdder corrupted = new LongAdder();
    private final LongAdder reused = new LongAdder();
    private final SpareFiles spares;
    /**
     * Evicted entries no response reads any more: their files become spares or are unlinked here, off
     * the fill and selector threads: unlinking a file whose pages are still being written back can
     * block, and a fill releases its last bytes to clients only after its commit (nginx's cache manager
     * deletes in its own process for the same reason). (A commit's cut of a longer spare frees only
     * that spare's tail, written long before: the oldest objects are the ones evicted.)
     */
    private final java.util.concurrent.LinkedBlockingQueue<Entry> retired =
            new java.util.concurrent.LinkedBlockingQueue<>();
    /**
     * Held, per key, while a commit renames a file into place and indexes it, while an evicted entry's
     * file is moved aside or deleted, and while an entry's file is opened: a key's path is the same for
     * every version, so neither a deletion of an old version nor an open through it may reach a newer
     * one renamed over it.
     */
    private final Object[] pathLocks = new Object[64];

    private final Thread janitor =
            Thread.ofPlatform().daemon().name("cache-janitor").unstarted(this::retireLoop);

    private DiskTier(DiskLayout layout, long budget) {
        this.layout = layout;
        this.budget = budget;
        this.spares = new SpareFiles(budget);
        for (int i = 0; i < pathLocks.length; i++) pathLocks[i] = new Object();
    }

    /** Opens (creating) the cache directory and re-indexes what a previous run left. */
    public static DiskTier open(Path dir, long budget, BufferPool buffers) throws IOException {
        DiskTier t = new DiskTier(DiskLayout.prepare(dir), budget);
        t.janitor.start();
        t.reindex(buffers);
        return t;
    }

    private void reindex(BufferPool buffers) throws IOException {
        List<Entry> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(layout.data(), 2)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String name = p.getFileName().toString();
                if (DiskLayout.isTemporary(name)) {
                    Files.deleteIfExists(p); // a fill that never completed
                    continue;
                }
                if (!name.endsWith(".obj")) continue;
                Entry e = readEntry(p, buffers);
                if (e == null) {
                    corrupted.increment();
                    log.atWarn()
                            .addKeyValue("file", p.toString())
                            .log("disk cache: dropped an unreadable or truncated entry");
                    Files.deleteIfExists(p);
                } else {
                    found.add(e);
                }
            }
        }
        found.sort((a, b) -> Long.compare(a.meta.fetchedAt(), b.meta.fetchedAt()));
        for (Entry e : found) {
            Entry previous = index.put(e.meta.key(), e);
            if (previous != null) drop(previous, null);
            synchronized (fifo) {
                fifo.addLast(e);
            }
            used.addAndGet(e.fileSize);
        }
        evictToFit(0);
        log.atInfo()
                .addKeyValue("entries", index.size())
                .addKeyValue("bytes", used.get())
                .addKeyValue("dir", layout.data().toString())
                .log("disk cache re-indexed (checksums are verified before first use)");
    }

    private Entry readEntry(Path p, BufferPool buffers) throws IOException {
        BufferPool.Chunk c = buffers.tryAcquire();
        if (c == null) throw new IOException("no buffer for re-indexing");
        try (FileChannel ch = FileChannel.open(p)) {
            ByteBuffer b = c.buffer();
            b.clear().limit(8);
            if (ch.read(b, 0) < 8) return null;
            int headerLength = DiskFormat.headerLength(b);
            if (headerLength < 0 || headerLength > b.capacity()) return null;
            b.clear().limit(headerLength);
            while (b.hasRemaining()) {
                if (ch.read(b, b.position()) < 0) return null;
            }
            ObjectMeta meta = DiskFormat.decode(b.flip());
            long size = ch.size();
            if (meta == null || size != headerLength + meta.length() || !p.equals(pathFor(meta.key()))) {
                return null;
            }
            return new Entry(this, p, meta, headerLength, size, false, 1);
        } finally {
            buffers.release(c);
        }
    }

    public Entry get(String key) {
        return index.get(key);
    }

    /** A new temporary file for a fill of {@code key}: in the directory its object will have, so the commit is a rename within it. */
    public Path newTempFile(String key) {
        return layout.newTempFile(key);
    }

    /**
     * Opens the temporary file for writing: a spare (an evicted file, renamed to {@code temp}) when
     * there is one, else a new file ({@link DiskLayout#createTempFile}). A spare holds an old object's
     * bytes past what the fill writes: readers read only what was written, and {@link #commit} cuts
     * the file to its object's length.
     */
    public RandomAccessFile createTempFile(Path temp) throws IOException {
        SpareFiles.Spare spare = spares.poll();
        if (spare != null) {
            try {
                Files.move(spare.path(), temp, StandardCopyOption.ATOMIC_MOVE);
                RandomAccessFile f = new RandomAccessFile(temp.toFile(), "rw");
                reused.increment();
                return f;
            } catch (IOException e) {
                // e.g. its directory was removed by hand: a new file, then
                deleteQuietly(spare.path());
                deleteQuietly(temp);
            }
        }
        return layout.createTempFile(temp);
    }

    /**
     * Cuts a complete temporary file to its object's length (a spare may have been longer), moves it
     * into place and indexes it (its checksum was computed while it was written, so it is verified).
     * Older entries go first-in-first-out until it fits; an object larger than the whole budget is not
     * kept. The entry returned is pinned once for the caller, who unpins it when it no longer reads
     * the file through {@code written} ({@link Entry#unpin}).
     */
    public Entry commit(Path temp, FileChannel written, ObjectMeta meta, int headerLength) throws IOException {
        long size = headerLength + meta.length();
        if (size > budget) {
            Files.deleteIfExists(temp);
            return null;
        }
        if (written.size() > size) written.truncate(size);
        evictToFit(size);
        Path target = pathFor(meta.key()); // the temporary file's directory
        Entry e = new Entry(this, target, meta, headerLength, size, true, 2);
        Entry previous;
        synchronized (pathLock(meta.key())) {
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            previous = index.put(meta.key(), e);
        }
        if (previous != null) {
            removeFromFifo(previous); // same path, already replaced on disk
            used.addAndGet(-previous.fileSize);
            previous.unpin();
        }
        synchronized (fifo) {
            fifo.addLast(e);
        }
        used.addAndGet(size);
        return e;
    }

    private void evictToFit(long incoming) {
        while (used.get() + incoming > budget) {
            Entry oldest;
            synchronized (fifo) {
                oldest = fifo.pollFirst();
            }
            if (oldest == null) return;
            if (index.remove(oldest.meta.key(), oldest)) {
                used.addAndGet(-oldest.fileSize);
                evictions.increment();
                moveAside(oldest);
                oldest.unpin(); // the index's pin: retired now, or by the last response reading it
            }
        }
    }

    /** Removes an entry that failed a check (size or checksum) so that it is fetched again. */
    public void drop(Entry e, String reason) {
        if (index.remove(e.meta.key(), e)) {
            removeFromFifo(e);
            used.addAndGet(-e.fileSize);
            deleteFile(e);
            e.unpin();
            if (reason != null) {
                corrupted.increment();
                log.atWarn()
                        .addKeyValue("key", e.meta.key())
                        .addKeyValue("reason", reason)
                        .log("disk cache: dropped a corrupted entry, it will be fetched again");
            }
        }
    }

    /**
     * Removes every entry whose key matches and deletes its file now, on the caller's thread (not the
     * janitor's): when this returns, a restart cannot re-index them. Responses still sending one keep
     * their open descriptor.
     */
    public int purge(java.util.function.Predicate<String> matches) {
        java.util.Set<Entry> removed = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Entry e : index.values()) {
            if (matches.test(e.meta.key()) && index.remove(e.meta.key(), e)) {
                removed.add(e);
                used.addAndGet(-e.fileSize);
                deleteFile(e);
                e.unpin();
            }
        }
        if (!removed.isEmpty()) {
            synchronized (fifo) {
                fifo.removeIf(removed::contains);
            }
        }
        return removed.size();
    }

    private void removeFromFifo(Entry e) {
        synchronized (fifo) {
            fifo.remove(e);
        }
    }

    /**
     * Reads the whole body and compares its CRC32C with the header's. Used once per entry after a
     * restart; blocking, so it runs on a fill thread.
     */
    public boolean verify(Entry e, BufferPool buffers) throws IOException, InterruptedException {
        BufferPool.Chunk c = buffers.acquire(10_000);
        if (c == null) throw new IOException("no buffer to verify a cache entry");
        FileChannel ch = null;
        try {
            ch = e.openPinned(FileChannel::open);
            if (ch == null || ch.size() != e.fileSize) return false;
            CRC32C crc = new CRC32C();
            ByteBuffer b = c.buffer();
            long pos = e.headerLength;
            long end = e.fileSize;
            while (pos < end) {
                b.clear().limit((int) Math.min(b.capacity(), end - pos));
                int n = ch.read(b, pos);
                if (n < 0) return false;
                b.flip();
                crc.update(b);
                pos += n;
            }
            boolean ok = (int) crc.getValue() == e.meta.crc32c();
            if (ok) e.verified = true;
            return ok;
        } finally {
            buffers.release(c);
            if (ch != null) e.closeAndUnpin(ch);
        }
    }

    /** Verifies an entry once however many requests ask at the same time (they run on fill threads). */
    public boolean verifyOnce(Entry e, BufferPool buffers) throws IOException, InterruptedException {
        synchronized (e) {
            return e.verified || verify(e, buffers);
        }
    }

    /** Records a new expiry after the origin confirmed the object (304), in memory and in the file. */
    public void refresh(Entry e, ObjectMeta meta, BufferPool buffers) {
        e.meta = meta;
        BufferPool.Chunk c = buffers.tryAcquire();
        if (c == null) return; // the in-memory expiry is what counts until the next restart
        FileChannel ch = null;
        try {
            ch = e.openPinned(p -> FileChannel.open(p, java.nio.file.StandardOpenOption.WRITE));
            if (ch == null) return; // no longer indexed: its path may hold a newer version now
            ByteBuffer b = c.buffer();
            b.clear().putLong(meta.expiresAt()).flip();
            ch.write(b, DiskFormat.EXPIRES_OFFSET);
        } catch (IOException ignored) {
            // the in-memory expiry still counts
        } finally {
            buffers.release(c);
            if (ch != null) e.closeAndUnpin(ch);
        }
    }

    Path pathFor(String key) {
        return layout.pathFor(key);
    }

    private void retireLoop() {
        while (true) {
            try {
                retire(retired.take());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** An evicted entry's file, read by no response any more: kept as a spare while there is room, else deleted. */
    private void retire(Entry evicted) {
        Path aside = evicted.aside;
        if (aside == null) {
            deleteFile(evicted); // not moved aside (see moveAside)
        } else if (!spares.offer(aside, evicted.fileSize)) {
            deleteQuietly(aside);
        }
    }

    /**
     * Moves an evicted entry's file off its object's path at once, to a spare's name (responses reading
     * it keep their descriptors), so that a restart does not find it there and index it again (a purge
     * that comes later no longer sees the entry); it waits there, opened by nobody new, until it is
     * retired. Nothing is moved if a newer version of the key has been renamed over it since. Should
     * the rename fail, the file stays at its path until it is retired (then deleted).
     */
    private void moveAside(Entry evicted) {
        synchronized (pathLock(evicted.meta.key())) {
            Entry current = index.get(evicted.meta.key());
            if (current == null || !current.file.equals(evicted.file)) {
                Path aside = layout.newSpareFile(evicted.file);
                try {
                    Files.move(evicted.file, aside, StandardCopyOption.ATOMIC_MOVE);
                    evicted.aside = aside;
                } catch (IOException e) {
                    // gone already, or not movable: deleted when retired (best effort)
                }
            }
            evicted.evicted = true;
        }
    }

    private Object pathLock(String key) {
        return pathLocks[Math.floorMod(key.hashCode(), pathLocks.length)];
    }

    /** Deletes a removed entry's file unless a newer version of its key has been renamed over it since. */
    private void deleteFile(Entry removed) {
        synchronized (pathLock(removed.meta.key())) {
            Entry current = index.get(removed.meta.key());
            if (current != null && current.file.equals(removed.file)) return;
            deleteQuietly(removed.file);
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort: re-indexing would find it again
        }
    }

    public int entries() {
        return index.size();
    }

    public long usedBytes() {
        return used.get();
    }

    public long budgetBytes() {
        return budget;
    }

    public long evictions() {
        return evictions.sum();
    }

    public long corrupted() {
        return corrupted.sum();
    }

    /** Fills that wrote over an evicted file instead of creating one. */
    public long reusedFiles() {
        return reused.sum();
    }

    /** Evicted files waiting to be written over (outside the budget: {@link SpareFiles}). */
    public int spareFiles() {
        return spares.count();
    }

    /**
     * One object on disk; its body starts at {@code headerLength}. Pinned by the index while it is
     * indexed, by the fill that wrote it until the fill's descriptor closes, and by each open of its
     * file ({@link #open}, verification, refresh), which succeeds only while it is indexed (its path
     * may hold a newer version afterwards). The last unpin of an evicted entry retires its file (a
     * spare or deleted): a file is written over only once nothing that opened it reads it.
     */
    public static final class Entry {
        private final DiskTier tier;
        final Path file;
        volatile ObjectMeta meta;
        final int headerLength;
        final long fileSize;
        volatile boolean verified;
        volatile boolean evicted;
        volatile Path aside; // where an evicted entry's file was moved (a spare's name), if it was
        private final java.util.concurrent.atomic.AtomicInteger pins;

        Entry(DiskTier tier, Path file, ObjectMeta meta, int headerLength, long fileSize, boolean verified, int pins) {
            this.tier = tier;
            this.file = file;
            this.meta = meta;
            this.headerLength = headerLength;
            this.fileSize = fileSize;
            this.verified = verified;
            this.pins = new java.util.concurrent.atomic.AtomicInteger(pins);
        }

        /** Takes a pin; false once the entry is retired (evicted and read by nobody). */
        boolean pin() {
            for (int p = pins.get(); p > 0; p = pins.get()) {
                if (pins.compareAndSet(p, p + 1)) return true;
            }
            return false;
        }

        /** Gives a pin back; the last one of an evicted entry hands its file to the janitor. Never blocks. */
        public void unpin() {
            if (pins.decrementAndGet() == 0 && evicted) tier.retired.add(this);
        }

        public ObjectMeta meta() {
            return meta;
        }

        public int headerLength() {
            return headerLength;
        }

        public boolean verified() {
            return verified;
        }

        /**
         * Opens the file for one response, pinned until the response releases it, and checks it still
         * has its full size (a truncated file is never served). Null when the entry is no longer
         * indexed (evicted, replaced, dropped or purged), or its file is gone or not its size.
         */
        public FileSource open() throws IOException {
            RandomAccessFile f = openPinned(p -> new RandomAccessFile(p.toFile(), "r"));
            if (f == null) return null;
            if (f.length() == fileSize) return new PinnedFile(this, f);
            closeAndUnpin(f);
            return null;
        }

        /**
         * This entry's own file, opened and pinned (the caller gives both back: {@link #closeAndUnpin}),
         * or null when the entry is no longer indexed or the file is gone. Checked and opened under the
         * key's path lock, so that what opens is this version's file, not a newer one renamed over it.
         */
        <T extends java.io.Closeable> T openPinned(Opener<T> opener) {
            synchronized (tier.pathLock(meta.key())) {
                if (tier.index.get(meta.key()) != this || !pin()) return null;
                try {
                    return opener.open(file);
                } catch (IOException gone) {
                    unpin();
                    return null;
                }
            }
        }

        void closeAndUnpin(java.io.Closeable opened) {
            io.videoedge.server.resources.Files.closeQuietly(opened);
            unpin();
        }
    }

    /** How {@link Entry#openPinned} opens a file. */
    interface Opener<T> {
        T open(Path file) throws IOException;
    }

    /** A file opened for one response: released (once), it closes and unpins its entry. */
    private static final class PinnedFile implements FileSource {
        private final Entry entry;
        private final RandomAccessFile file;
        private final java.util.concurrent.atomic.AtomicBoolean released =
                new java.util.concurrent.atomic.AtomicBoolean();

        PinnedFile(Entry entry, RandomAccessFile file) {
            this.entry = entry;
            this.file = file;
        }

        @Override
        public RandomAccessFile file() {
            return file;
        }

        @Override
        public void release() {
            if (released.compareAndSet(false, true)) entry.closeAndUnpin(file);
        }
    }
}
