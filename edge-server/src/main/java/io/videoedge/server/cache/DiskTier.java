package io.videoedge.server.cache;

import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.resources.BufferPool;
import io.videoedge.server.resources.FileSource;
import io.videoedge.server.send.Body;
import io.videoedge.server.send.FileCopy;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
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
 * <p>Where the files go on disk is {@link DiskLayout}'s.
 */
public final class DiskTier {
    private static final Logger log = LoggerFactory.getLogger(DiskTier.class);

    private final DiskLayout layout;

    /** cache.disk.size, lowered when the file system fills up first ({@link #outOfSpace}). */
    private volatile long budget;

    private final long configuredBudget;
    /** The file system of the cache directory, looked up when it first fills (asked how much room it has left). */
    private java.nio.file.FileStore store;

    private final ConcurrentHashMap<String, Entry> index = new ConcurrentHashMap<>();
    /** How long a 304's refresh waits for a pooled buffer when all are in use. */
    private static final long REFRESH_BUFFER_WAIT_MS = 1_000;

    private final ArrayDeque<Entry> fifo = new ArrayDeque<>();
    private final AtomicLong used = new AtomicLong();
    private final LongAdder evictions = new LongAdder();
    private final LongAdder corrupted = new LongAdder();
    private final LongAdder readBacks = new LongAdder();
    /**
     * The janitor's work, off the fill and selector threads: evicted files are unlinked here, since
     * unlinking a file whose pages are still being written back can block and a fill releases its
     * last bytes to clients only after its commit (nginx's cache manager deletes in its own process
     * for the same reason); and read-backs ({@link #cachedCopyOf}) are asked for here, since
     * {@code posix_fadvise} may wait for the file's block map.
     */
    private final java.util.concurrent.LinkedBlockingQueue<Runnable> chores =
            new java.util.concurrent.LinkedBlockingQueue<>();
    /**
     * Held, per key, while a commit renames a file into place and indexes it, and while an entry's file
     * is deleted: a key's path is the same for every version, so a deletion of an old version that
     * comes after a newer one was renamed over it must not remove the newer one.
     */
    private final Object[] pathLocks = new Object[64];

    private final Thread janitor =
            Thread.ofPlatform().daemon().name("cache-janitor").unstarted(this::choresLoop);

    private DiskTier(DiskLayout layout, long budget) {
        this.layout = layout;
        this.budget = budget;
        this.configuredBudget = budget;
        for (int i = 0; i < pathLocks.length; i++) pathLocks[i] = new Object();
    }

    /** Opens (creating) the cache directory and re-indexes what a previous run left. */
    public static DiskTier open(Path dir, long budget, BufferPool buffers) throws IOException {
        DiskTier t = new DiskTier(DiskLayout.prepare(dir), budget);
        t.janitor.start();
        t.reindex(buffers);
        return t;
    }

    /** An entry found on disk, with when its file was last written (its commit, or a 304's refresh since). */
    private record Found(Entry entry, long writtenAt) {}

    private void reindex(BufferPool buffers) throws IOException {
        List<Found> found = new ArrayList<>();
        Files.walkFileTree(layout.data(), Set.of(), 2, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path p, BasicFileAttributes attrs) throws IOException {
                String name = p.getFileName().toString();
                if (DiskLayout.isTemporary(name)) {
                    Files.deleteIfExists(p); // a fill that never completed
                } else if (name.endsWith(".obj")) {
                    Entry e = readEntry(p, buffers);
                    if (e == null) {
                        corrupted.increment();
                        log.atWarn()
                                .addKeyValue("file", p.toString())
                                .log("disk cache: dropped an unreadable or truncated entry");
                        Files.deleteIfExists(p);
                    } else {
                        found.add(new Found(e, attrs.lastModifiedTime().to(TimeUnit.NANOSECONDS)));
                    }
                }
                return FileVisitResult.CONTINUE;
            }
        });
        // the FIFO goes on in the order the files were last written (a commit, or a 304's refresh, which moves a
        // revalidated object back where the running FIFO kept it in place): not by fetchedAt, which for an object
        // that came with a large Age (held that long by a shield) lies far back
        found.sort(Comparator.comparingLong(Found::writtenAt)
                .thenComparingLong(f -> f.entry().meta.fetchedAt()));
        for (Found f : found) {
            Entry e = f.entry();
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
        String noPageCache = PageCache.probe(layout.data());
        PageCache.Method check = PageCache.method();
        log.atInfo()
                .addKeyValue("pageCacheCheck", check != null ? check.name().toLowerCase() : noPageCache)
                .log(
                        check != null
                                ? "large memory hits on connections that take sendfile go out from this tier's files when the page cache holds them"
                                : "large memory hits are copied into the socket: the page cache cannot be asked");
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
            return new Entry(p, meta, headerLength, size, false);
        } finally {
            buffers.release(c);
        }
    }

    public Entry get(String key) {
        return index.get(key);
    }

    /**
     * Opens an entry's file for reading while the entry is still the indexed version of its key: under
     * the key's path lock, which a commit of a newer version (renamed over the same path) and the
     * deletion of a removed entry's file also take, so the file opened is this entry's. Null when the
     * entry is no longer indexed (evicted, purged, dropped, replaced) or its file is missing or not its
     * recorded size. The descriptor keeps the data readable whatever happens to the path afterwards.
     */
    public RandomAccessFile open(Entry e) throws IOException {
        synchronized (pathLock(e.meta.key())) {
            return index.get(e.meta.key()) == e ? e.openChecked() : null;
        }
    }

    /**
     * This tier's copy of an object the memory tier holds, for a memory hit to be sent from the page
     * cache ({@link FileCopy}): null when the kernel cannot say what the page cache holds
     * ({@link PageCache}); the copy opens nothing when this tier has no verified copy of the same bytes.
     * When the page cache lacks part of the range the hit is copied from memory, and the janitor asks
     * the kernel to read the range back, paced per entry ({@link ReadBackPacing}), so that later hits
     * go out with sendfile again.
     */
    public FileCopy cachedCopyOf(ObjectMeta inMemory) {
        if (PageCache.unavailable() != null) return null;
        return (offset, length) -> { // looked up only when the body is queued on a connection that takes sendfile
            Entry e = index.get(inMemory.key());
            if (e == null || !e.verified || !e.meta.sameBytes(inMemory)) return null;
            try {
                RandomAccessFile f = open(e);
                if (f == null) return null;
                long at = e.headerLength + offset;
                if (PageCache.holds(f, at, length, e.fileSize)) {
                    return new Body.FileRegion(FileSource.owned(f), at, length, EdgeMetrics.Source.MEMORY);
                }
                if (e.readBackDue(System.nanoTime())) {
                    chores.add(() -> readBack(f, at, length)); // the janitor closes it
                } else {
                    f.close();
                }
                return null;
            } catch (IOException gone) {
                return null;
            }
        };
    }

    /** A new temporary file for a fill of {@code key}: in the directory its object will have, so the commit is a rename within it. */
    public Path newTempFile(String key) {
        return layout.newTempFile(key);
    }

    /** Creates the temporary file and opens it for writing ({@link DiskLayout#createTempFile}). */
    public RandomAccessFile createTempFile(Path temp) throws IOException {
        return layout.createTempFile(temp);
    }

    /**
     * Moves a complete temporary file into place and indexes it (its checksum was computed while it
     * was written, so it is verified). Older entries go first-in-first-out until it fits; an object
     * larger than the whole budget is not kept.
     */
    public Entry commit(Path temp, ObjectMeta meta, int headerLength) throws IOException {
        long size = headerLength + meta.length();
        if (budget < configuredBudget) {
            regainRoom();
        }
        if (size > budget) {
            Files.deleteIfExists(temp);
            return null;
        }
        evictToFit(size);
        Path target = pathFor(meta.key()); // the temporary file's directory
        Entry e = new Entry(target, meta, headerLength, size, true);
        Entry previous;
        synchronized (pathLock(meta.key())) {
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            previous = index.put(meta.key(), e);
        }
        if (previous != null) {
            removeFromFifo(previous); // same path, already replaced on disk
            used.addAndGet(-previous.fileSize);
        }
        synchronized (fifo) {
            fifo.addLast(e);
        }
        used.addAndGet(size);
        return e;
    }

    /**
     * Evicts the oldest entries until {@code incoming} more bytes fit the budget; returns how many. Their files are
     * deleted by the janitor, or at once while the budget is lowered (the next fill needs the room). Responses still
     * sending one keep their open descriptor.
     */
    private int evictToFit(long incoming) {
        boolean diskFull = budget < configuredBudget;
        int evicted = 0;
        while (used.get() + incoming > budget) {
            Entry oldest;
            synchronized (fifo) {
                oldest = fifo.pollFirst();
            }
            if (oldest == null) break;
            if (index.remove(oldest.meta.key(), oldest)) {
                used.addAndGet(-oldest.fileSize);
                evictions.increment();
                evicted++;
                if (diskFull) {
                    deleteFile(oldest);
                } else {
                    chores.add(() -> deleteFile(oldest));
                }
            }
        }
        return evicted;
    }

    /**
     * The file system ran out of room before the budget did (cache.disk.size larger than what the disk holds
     * for the cache, or the disk shared and filled by something else): without this the budget would never
     * evict anything and every miss would fail to write from then on. Lowers the budget to what the disk holds
     * now with room for one more object of {@code needed} bytes (what the cache holds and the file system's free
     * room, less that), and deletes the oldest entries to it at once, on the calling fill thread, so that the next
     * miss finds the room. Concurrent fills that fail alike compute the same budget from the same disk: it does
     * not shrink once per failure. While it is lowered, each commit asks the file system again and raises it as
     * room comes back ({@link #regainRoom}), up to cache.disk.size; {@code videoedge_cache_disk_capacity_bytes}
     * shows it.
     */
    public void outOfSpace(long needed) {
        long before;
        long after;
        synchronized (this) {
            before = budget;
            after = Math.min(before, Math.max(0, used.get() + usableSpace() - needed));
            budget = after;
        }
        int evicted = evictToFit(0);
        log.atWarn()
                .addKeyValue("configuredBytes", configuredBudget)
                .addKeyValue("budgetBytes", after)
                .addKeyValue("previousBudgetBytes", before)
                .addKeyValue("evicted", evicted)
                .log("disk cache: the file system is full before cache.disk.size is; the budget is lowered to what"
                        + " it holds, and raised again as room comes back");
    }

    /** While the budget is lowered: raised to what the cache holds and the file system's free room, at most cache.disk.size. */
    private void regainRoom() {
        long fits = used.get() + usableSpace();
        synchronized (this) {
            if (fits > budget) {
                budget = Math.min(configuredBudget, fits);
            }
        }
    }

    private long usableSpace() {
        try {
            if (store == null) store = Files.getFileStore(layout.data()); // a benign race: the same store
            return store.getUsableSpace();
        } catch (IOException e) {
            return 0;
        }
    }

    /** The failure is the file system's "No space left on device" (ENOSPC) or the user's disk quota (EDQUOT). */
    static boolean isOutOfSpace(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String m = c.getMessage();
            if (m != null && (m.contains("No space left on device") || m.contains("Disk quota exceeded"))) {
                return true;
            }
        }
        return false;
    }

    /** Removes an entry that failed a check (size or checksum) so that it is fetched again. */
    public void drop(Entry e, String reason) {
        if (index.remove(e.meta.key(), e)) {
            removeFromFifo(e);
            used.addAndGet(-e.fileSize);
            deleteFile(e);
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
        try (FileChannel ch = FileChannel.open(e.file)) {
            if (ch.size() != e.fileSize) return false;
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
        } catch (NoSuchFileException gone) {
            return false;
        } finally {
            buffers.release(c);
        }
    }

    /** Verifies an entry once however many requests ask at the same time (they run on fill threads). */
    public boolean verifyOnce(Entry e, BufferPool buffers) throws IOException, InterruptedException {
        synchronized (e) {
            return e.verified || verify(e, buffers);
        }
    }

    /**
     * Records when the origin confirmed the object (304), its new expiry and stale rule, in memory and in
     * the file; new directives too when they fit where the old ones are ({@link DiskFormat#textInPlace}).
     */
    public void refresh(Entry e, ObjectMeta meta, BufferPool buffers) { // on a fill thread
        boolean newDirectives = !meta.directives().equals(e.meta.directives());
        e.meta = meta;
        BufferPool.Chunk c;
        try {
            // with the pool spent (rare) the fill thread waits for a chunk, so that the file still learns of the 304
            // and a restart does not take the object for expired
            c = buffers.acquire(REFRESH_BUFFER_WAIT_MS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return;
        }
        if (c == null) return; // the in-memory expiry is what counts until the next restart
        // the file written is this entry's, not a newer version's renamed over the same path
        try (FileChannel ch = openIndexed(e)) {
            if (ch != null) writeRefresh(ch, meta, newDirectives, c.buffer());
        } catch (IOException ignored) {
            // evicted meanwhile
        } finally {
            buffers.release(c);
        }
    }

    /**
     * The entry's file for writing while it is the indexed version of its key (see {@link #open}): opened
     * under the key's path lock, written after it (the descriptor stays this entry's file); null if not.
     */
    private FileChannel openIndexed(Entry e) throws IOException {
        synchronized (pathLock(e.meta.key())) {
            return index.get(e.meta.key()) == e
                    ? FileChannel.open(
                            e.file, java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)
                    : null;
        }
    }

    /**
     * The flags, both times and, when they changed and fit, the directives' text, in one write from the flags on:
     * they lie next to each other in the header ({@link DiskFormat}), so that no reader has a new expiry with the
     * old confirmation time (their difference is taken for the object's lifetime) or the old stale rule, nor new
     * directives with the old times. The flags and times are in the file's first page, so a crash cannot part them
     * either; a text that runs past that page may be torn by one, and a torn text decodes as corrupted (a miss).
     */
    private static void writeRefresh(FileChannel ch, ObjectMeta meta, boolean newDirectives, ByteBuffer b)
            throws IOException {
        byte[] text = newDirectives ? directivesInPlace(ch, b, meta) : null;
        b.clear().putInt(DiskFormat.flags(true, meta)).putLong(meta.fetchedAt()).putLong(meta.expiresAt());
        if (text != null) b.put(text);
        b.flip();
        long at = DiskFormat.FLAGS_OFFSET;
        while (b.hasRemaining()) {
            at += ch.write(b, at);
        }
    }

    /** The directives' text to write over the file's ({@link DiskFormat#textInPlace}); null when it does not fit. */
    private static byte[] directivesInPlace(FileChannel ch, ByteBuffer b, ObjectMeta meta) throws IOException {
        b.clear().limit(8);
        if (ch.read(b, 0) != 8) return null;
        int headerLength = DiskFormat.headerLength(b.flip());
        byte[] text = headerLength < 0 ? null : DiskFormat.textInPlace(meta, headerLength);
        return text == null || DiskFormat.FIXED - DiskFormat.FLAGS_OFFSET + text.length > b.capacity() ? null : text;
    }

    Path pathFor(String key) {
        return layout.pathFor(key);
    }

    private void choresLoop() {
        while (true) {
            try {
                chores.take().run();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) { // the janitor goes on: evicted files must still be deleted
                log.atWarn().setCause(e).log("disk cache: a janitor chore failed");
            }
        }
    }

    /** Asks the kernel to read a range of a file the hit had open into the page cache, and closes the file. */
    private void readBack(RandomAccessFile f, long offset, long length) {
        try (f) {
            if (PageCache.readBack(f, offset, length)) {
                readBacks.increment();
            }
        } catch (IOException ignored) {
            // closing a read-only descriptor
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

    /** Read-backs of memory hits' ranges the page cache had lost ({@link #cachedCopyOf}). */
    public long readBacks() {
        return readBacks.sum();
    }

    /** One object on disk; its body starts at {@code headerLength}. */
    public static final class Entry {
        final Path file;
        volatile ObjectMeta meta;
        final int headerLength;
        final long fileSize;
        volatile boolean verified;
        private ReadBackPacing readBack = ReadBackPacing.NEVER_ASKED; // under the entry's lock

        Entry(Path file, ObjectMeta meta, int headerLength, long fileSize, boolean verified) {
            this.file = file;
            this.meta = meta;
            this.headerLength = headerLength;
            this.fileSize = fileSize;
            this.verified = verified;
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

        /** Whether a read-back of this entry may be asked for now; if so, it counts as asked. */
        synchronized boolean readBackDue(long now) {
            if (!readBack.due(now)) return false;
            readBack = readBack.asked(now);
            return true;
        }

        /** Opens the file and checks it still has its full size (a truncated file is never served); see {@link DiskTier#open}. */
        private RandomAccessFile openChecked() throws IOException {
            RandomAccessFile f;
            try {
                f = new RandomAccessFile(file.toFile(), "r");
            } catch (java.io.FileNotFoundException e) {
                // the JDK's one exception for every failed open: only a file that is not there is gone; one that
                // could not be opened (out of descriptors, EACCES, EIO) stays cached and this read fails
                if (Files.exists(file)) throw e;
                return null;
            }
            if (f.length() != fileSize) {
                f.close();
                return null;
            }
            return f;
        }
    }
}
