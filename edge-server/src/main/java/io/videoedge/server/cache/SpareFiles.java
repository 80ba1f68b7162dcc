package io.videoedge.server.cache;

import java.nio.file.Path;
import java.util.ArrayDeque;

/**
 * Evicted files kept for the next fills to write over, instead of deleting each one and creating a new
 * one. A file written over keeps its inode, its blocks and (while they are cached) its pages: no inode
 * allocation and no unlink, and no block allocation or page-cache insertion for the part of the new
 * object the old one covered. Held outside the byte budget, so bounded: at most {@link #MAX_FILES}
 * files and a 32nd of the budget (files evicted while responses still read them wait outside the
 * pool, as unlinked open files did). Their names end in {@code .spare}; a restart deletes them.
 */
final class SpareFiles {
    static final int MAX_FILES = 32;

    record Spare(Path path, long size) {}

    private final ArrayDeque<Spare> spares = new ArrayDeque<>();
    private final long maxBytes;
    private long bytes;

    SpareFiles(long budget) {
        this.maxBytes = budget / 32;
    }

    /** Keeps the file if the pool has room for it; false when it has not (the caller deletes it). */
    synchronized boolean offer(Path path, long size) {
        if (spares.size() >= MAX_FILES || bytes + size > maxBytes) return false;
        spares.addLast(new Spare(path, size));
        bytes += size;
        return true;
    }

    /** The spare retired last (its pages the likeliest to be cached still), or null when there is none. */
    synchronized Spare poll() {
        Spare s = spares.pollLast();
        if (s != null) bytes -= s.size();
        return s;
    }

    synchronized int count() {
        return spares.size();
    }

    synchronized long bytes() {
        return bytes;
    }
}
