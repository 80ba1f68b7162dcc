package io.videoedge.server.cache;

import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.resources.FileSource;
import io.videoedge.server.send.Body;
import java.io.RandomAccessFile;

/**
 * One slice found for a response: in memory, on disk, or arriving from the origin. It holds one
 * reference to its data, handed to the {@link Body} of a region of the slice or given back.
 */
sealed interface SliceSource {
    ObjectMeta meta();

    /** The slice's bytes {@code offset .. offset + length - 1} (relative to the slice); takes over the reference. */
    Body region(long offset, long length);

    void release();

    /** What X-Cache says when this is the first slice of a response. */
    String label();

    record Memory(MemoryTier.Entry entry) implements SliceSource {
        public ObjectMeta meta() {
            return entry.meta();
        }

        public Body region(long offset, long length) {
            return new Body.MemoryRegion(entry, offset, length);
        }

        public void release() {
            entry.release();
        }

        public String label() {
            return "hit-memory";
        }
    }

    record Disk(DiskTier.Entry entry, RandomAccessFile file) implements SliceSource {
        public ObjectMeta meta() {
            return entry.meta();
        }

        public Body region(long offset, long length) {
            return new Body.FileRegion(
                    FileSource.owned(file), entry.headerLength() + offset, length, EdgeMetrics.Source.DISK);
        }

        public void release() {
            FileSource.owned(file).release();
        }

        public String label() {
            return "hit-disk";
        }
    }

    /** An expired copy of the slice, served because the origin fails (within {@code cache.staleWhileError}). */
    record Stale(SliceSource copy) implements SliceSource {
        public ObjectMeta meta() {
            return copy.meta();
        }

        public Body region(long offset, long length) {
            return copy.region(offset, length);
        }

        public void release() {
            copy.release();
        }

        public String label() {
            return "stale";
        }
    }

    /** @param started this request started the fill (a miss) rather than joined one (coalesced) */
    record Filling(Fill fill, boolean started) implements SliceSource {
        public ObjectMeta meta() {
            return fill.meta();
        }

        public Body region(long offset, long length) {
            return new Body.FillRegion(fill, offset, length);
        }

        public void release() {
            fill.file().release();
        }

        public String label() {
            return started ? "miss" : "coalesced";
        }
    }
}
