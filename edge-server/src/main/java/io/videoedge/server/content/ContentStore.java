package io.videoedge.server.content;

import io.videoedge.server.http.ContentTypes;
import io.videoedge.server.http.Validators;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Files under the content root. A path resolves to a regular file whose real path (all symlinks
 * followed) is still inside the root's real path; anything else is absent, so a symlink pointing
 * outside serves nothing.
 *
 * <p>Like nginx's open_file_cache, a resolved file stays open and its metadata cached for
 * {@code validMillis}; after that the next request resolves and stats it again (a replaced or
 * changed file gets a new entry, the old descriptor closes when its last response is done). This
 * takes realpath(3), stat and open/close off the request path, which dominated small responses.
 * Absent paths are remembered for the same period (requests for cached origin objects check the
 * content root first).
 *
 * <p>A small file (up to {@link #HELD_MAX_FILE} bytes: manifests, subtitles) is also read once when it
 * is opened, and its responses copy those bytes instead of reading the file: one system call fewer
 * per request. The bytes are the ones the cached metadata describe (the file is stat'ed again after
 * the read and not held if it changed meanwhile), so a file rewritten in place is served as it was for
 * at most {@code validMillis}, like its length and validators. At most {@link #HELD_BUDGET} bytes are
 * held by the cache at once; beyond that, small files are read per request as before.
 *
 * <p>What the file system refuses to look up is absent too, as nginx answers 404 for ENAMETOOLONG and
 * ENOTDIR: a path segment longer than {@link #NAME_MAX} bytes is refused before any system call, and
 * a path that continues through a file ({@code /a.m3u8/x}) is recognised when the lookup fails. Any
 * other failure is thrown to the caller.
 */
public final class ContentStore {
    static final int MAX_ENTRIES = 16_384;
    /** Linux's NAME_MAX: the longest name, in bytes, a directory entry can have (ext4, xfs, btrfs, tmpfs, overlayfs). */
    static final int NAME_MAX = 255;
    /** The largest file whose bytes are held: with its head it still goes out as one TLS record. */
    static final int HELD_MAX_FILE = 15 * 1024;
    /** The bytes all held files may take together (on the heap). */
    static final long HELD_BUDGET = 16L << 20;

    private final Path root;
    private final long validMillis;
    private final ConcurrentHashMap<String, OpenFile> open = new ConcurrentHashMap<>();
    /** Paths found absent, with when: a cache in front of an origin asks for them on every request. */
    private final ConcurrentHashMap<String, Long> absent = new ConcurrentHashMap<>();
    /** Bytes held by the entries in {@link #open} (reserved before a file is read). */
    private final AtomicLong held = new AtomicLong();

    public ContentStore(Path root, long validMillis) throws IOException {
        this.root = root.toRealPath();
        this.validMillis = validMillis;
    }

    public Path root() {
        return root;
    }

    /**
     * The open file for a normalised relative path ({@link ContentPath}), with a reference the caller
     * must {@link OpenFile#release() release}; null when there is no such regular file.
     */
    public OpenFile open(String relativePath) throws IOException {
        if (relativePath.isEmpty() || !namesFit(relativePath)) {
            return null;
        }
        long now = System.currentTimeMillis();
        OpenFile cached = open.get(relativePath);
        if (cached != null && now - cached.checkedAt < validMillis && cached.retain()) {
            return cached;
        }
        Long absentSince = absent.get(relativePath);
        if (absentSince != null && now - absentSince < validMillis) {
            return null;
        }
        OpenFile fresh = resolve(relativePath, now);
        if (fresh == null) {
            if (cached != null && open.remove(relativePath, cached)) {
                drop(cached);
            }
            if (absent.size() >= MAX_ENTRIES) {
                absent.clear();
            }
            absent.put(relativePath, now);
            return null;
        }
        absent.remove(relativePath);
        fresh.retain(); // the caller's reference; the initial one belongs to the cache
        OpenFile previous = open.put(relativePath, fresh);
        if (previous != null) {
            drop(previous);
        }
        if (open.size() > MAX_ENTRIES) {
            trim(now);
        }
        return fresh;
    }

    /** True when no segment of the path is longer than NAME_MAX bytes in UTF-8 (the file system's encoding). */
    static boolean namesFit(String relativePath) {
        if (relativePath.length() <= NAME_MAX / 3) {
            return true; // a char is at most 3 UTF-8 bytes (a surrogate pair: 4 for 2)
        }
        int bytes = 0;
        for (int i = 0; i < relativePath.length(); i++) {
            char c = relativePath.charAt(i);
            if (c == '/') {
                bytes = 0;
                continue;
            }
            bytes += c < 0x80 ? 1 : c < 0x800 || Character.isSurrogate(c) ? 2 : 3;
            if (bytes > NAME_MAX) {
                return false;
            }
        }
        return true;
    }

    private OpenFile resolve(String relativePath, long now) throws IOException {
        Path candidate = root.resolve(relativePath);
        if (missing(candidate)) {
            return null;
        }
        Path real;
        try {
            real = candidate.toRealPath();
        } catch (NoSuchFileException e) {
            return null;
        } catch (FileSystemException e) {
            if (throughAFile(relativePath)) {
                return null; // ENOTDIR (Java has no exception of its own for it here)
            }
            throw e;
        }
        if (!real.startsWith(root)) {
            return null;
        }
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
        if (!attrs.isRegularFile()) {
            return null;
        }
        RandomAccessFile file = new RandomAccessFile(real.toFile(), "r");
        byte[] bytes;
        try {
            bytes = readSmall(real, file, attrs);
        } catch (IOException e) {
            file.close();
            throw e;
        }
        return new OpenFile(
                real,
                file,
                Validators.of(attrs.size(), attrs.lastModifiedTime().toMillis()),
                ContentTypes.of(relativePath),
                now,
                bytes);
    }

    /**
     * The bytes of a small file as {@code attrs} describe it, with their share of the budget taken;
     * null for a larger file, when the budget is spent, or when the file changed while being read.
     */
    private byte[] readSmall(Path real, RandomAccessFile file, BasicFileAttributes attrs) throws IOException {
        long size = attrs.size();
        if (size == 0 || size > HELD_MAX_FILE) {
            return null;
        }
        if (held.addAndGet(size) > HELD_BUDGET) {
            held.addAndGet(-size);
            return null;
        }
        byte[] bytes = new byte[(int) size];
        ByteBuffer into = ByteBuffer.wrap(bytes);
        boolean complete = true;
        while (into.hasRemaining() && complete) {
            complete = file.getChannel().read(into, into.position()) >= 0;
        }
        BasicFileAttributes after = complete && file.length() == size
                ? Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                : null;
        if (after == null || after.size() != size || !after.lastModifiedTime().equals(attrs.lastModifiedTime())) {
            held.addAndGet(-size);
            return null; // changed meanwhile: read per request, revalidated after validMillis
        }
        return bytes;
    }

    /** Takes an entry's reference back from the cache, with its share of the held bytes. */
    private void drop(OpenFile f) {
        byte[] bytes = f.heldBytes();
        if (bytes != null) held.addAndGet(-bytes.length);
        f.release();
    }

    /**
     * True when nothing is at the path (stat(2) says ENOENT, a dangling symlink included), which is
     * what realpath(3) would find too, with one system call instead of a readlink per segment: most
     * paths a cache in front of an origin is asked for are not in the content root. Any other
     * answer goes on to the real-path check.
     */
    private static boolean missing(Path candidate) {
        try {
            // null for ENOENT without an exception: a miss in the content root (every new path of a
            // caching edge) no longer pays for NoSuchFileException's stack trace
            return candidate.getFileSystem().provider().readAttributesIfExists(candidate, BasicFileAttributes.class)
                    == null;
        } catch (IOException e) {
            return false; // ENOTDIR, EACCES, ...: resolved (and answered) as before
        }
    }

    /** True when a leading part of the path exists and is not a directory. */
    private boolean throughAFile(String relativePath) {
        Path p = root;
        String[] segments = relativePath.split("/");
        for (int i = 0; i < segments.length - 1; i++) {
            p = p.resolve(segments[i]);
            if (!Files.isDirectory(p)) {
                return Files.exists(p);
            }
        }
        return false;
    }

    /** Drops expired entries; if that is not enough, everything (the next requests reopen). */
    private void trim(long now) {
        open.forEach((k, v) -> {
            if (now - v.checkedAt >= validMillis && open.remove(k, v)) drop(v);
        });
        if (open.size() > MAX_ENTRIES) {
            open.forEach((k, v) -> {
                if (open.remove(k, v)) drop(v);
            });
        }
    }

    /** Closes every cached descriptor (responses still sending keep theirs until done). */
    public void close() {
        open.forEach((k, v) -> {
            if (open.remove(k, v)) drop(v);
        });
    }

    public int openFiles() {
        return open.size();
    }

    /** Bytes of small files held in memory by the cache. */
    public long heldBytes() {
        return held.get();
    }
}
