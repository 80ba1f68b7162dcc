package io.videoedge.server.send;

import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.resources.BufferPool;
import io.videoedge.server.resources.FileSource;
import one.nio.net.Session;

/**
 * A response body that is not a byte array: it becomes a queue item of the session when the head has
 * been written, chosen by what the connection can do. A body owns its resources until then and must
 * be {@link #discard() discarded} if it is never sent (HEAD, errors, a closed connection).
 */
public sealed interface Body permits Body.FileRegion, Body.MemoryRegion, Body.FillRegion, Body.Parts {

    long length();

    /** @param kernelSend the socket can take sendfile (plain TCP, or TLS that the kernel handles) */
    Session.QueueItem toQueueItem(boolean kernelSend, BufferPool pool, EdgeMetrics metrics);

    void discard();

    /**
     * Copies the whole body into a pooled buffer at {@code at}, for small bodies sent together with
     * their head. Not for bodies whose data may still be arriving.
     */
    default void copyTo(BufferPool.Chunk chunk, int at) throws java.io.IOException {
        throw new UnsupportedOperationException();
    }

    default EdgeMetrics.Source source() {
        return EdgeMetrics.Source.ORIGIN;
    }

    /** A region of an open file (absolute file offsets); the body holds one reference to it. */
    record FileRegion(FileSource file, long offset, long length, EdgeMetrics.Source source) implements Body {
        @Override
        public Session.QueueItem toQueueItem(boolean kernelSend, BufferPool pool, EdgeMetrics metrics) {
            return kernelSend
                    ? new SendfileItem(file, offset, length, metrics, source)
                    : new TlsCopyItem(file, offset, length, pool, metrics, source);
        }

        @Override
        public void discard() {
            file.release();
        }

        @Override
        public void copyTo(BufferPool.Chunk chunk, int at) throws java.io.IOException {
            byte[] held = file.heldBytes();
            if (held != null) {
                chunk.buffer().put(at, held, (int) offset, (int) length); // no read: the file's bytes are in memory
                return;
            }
            java.nio.ByteBuffer b = chunk.buffer();
            b.limit(at + (int) length).position(at);
            java.nio.channels.FileChannel ch = file.file().getChannel();
            while (b.hasRemaining()) {
                if (ch.read(b, offset + b.position() - at) < 0) {
                    throw new java.io.EOFException("file shorter than announced");
                }
            }
        }
    }

    /** A region of an object in the memory tier; the body holds one reference to the entry. */
    record MemoryRegion(OffHeapBytes entry, long offset, long length, FileCopy file) implements Body {
        public MemoryRegion(OffHeapBytes entry, long offset, long length) {
            this(entry, offset, length, null);
        }

        /** From the file with sendfile when the connection takes it and the page cache holds the range, else copied. */
        @Override
        public Session.QueueItem toQueueItem(boolean kernelSend, BufferPool pool, EdgeMetrics metrics) {
            if (kernelSend && file != null) {
                FileRegion cached = file.openIfCached(offset, length);
                if (cached != null) {
                    entry.release();
                    return cached.toQueueItem(true, pool, metrics);
                }
            }
            return new MemoryItem(entry, offset, length, !kernelSend, metrics);
        }

        @Override
        public void discard() {
            entry.release();
        }

        @Override
        public void copyTo(BufferPool.Chunk chunk, int at) {
            one.nio.util.JavaInternals.unsafe.copyMemory(entry.address() + offset, chunk.address() + at, length);
        }

        @Override
        public EdgeMetrics.Source source() {
            return EdgeMetrics.Source.MEMORY;
        }
    }

    /**
     * A region of an object still arriving from the origin: sent from the fill's file as it grows.
     * The body holds one reference to the fill's file.
     */
    record FillRegion(GrowingFile fill, long offset, long length) implements Body {
        @Override
        public Session.QueueItem toQueueItem(boolean kernelSend, BufferPool pool, EdgeMetrics metrics) {
            return new FillItem(fill, offset, length, kernelSend, pool, metrics);
        }

        @Override
        public void discard() {
            fill.file().release();
        }
    }

    /** A body of {@code length} bytes sent part after part as the parts are found (the slices of an object). */
    record Parts(BodyParts parts, long length) implements Body {
        @Override
        public Session.QueueItem toQueueItem(boolean kernelSend, BufferPool pool, EdgeMetrics metrics) {
            return new PartsItem(parts, length, kernelSend, pool, metrics);
        }

        @Override
        public void discard() {
            parts.discard();
        }
    }
}
