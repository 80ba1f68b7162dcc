package io.videoedge.server.send;

import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.resources.BufferPool;
import io.videoedge.server.resources.FileSource;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import one.nio.net.Socket;

/**
 * A file region sent over TLS without kernel TLS: 32 KiB are read into a pooled direct buffer and
 * handed to OpenSSL one 16 KiB record at a time by address (one-nio's writeRaw), repeatedly until the
 * socket is full or the per-call budget is used.
 * <ul>
 * <li>One-nio calls a queue item once per writable event; looping here avoids an epoll round trip
 *     per record.</li>
 * <li>SSL_write gets one record per call: measured, 64 KiB and 128 KiB calls cost 2x and 3x the CPU
 *     per byte of 16 KiB calls on OpenSSL 3.0.</li>
 * <li>The buffer is held only during the call: the pool needs one chunk per writing thread, not per
 *     connection.</li>
 * <li>When OpenSSL asks for a retry, the next call re-reads the same bytes at the same offset with
 *     the same length, which is what SSL_write's retry rule requires.</li>
 * </ul>
 */
final class TlsCopyItem extends FileRangeItem {
    static final int RECORD = 16 * 1024;
    static final int READ = 32 * 1024;
    static final int BUDGET_PER_CALL = 1024 * 1024;

    private final FileChannel channel;
    private final BufferPool pool;

    TlsCopyItem(
            FileSource file,
            long offset,
            long length,
            BufferPool pool,
            EdgeMetrics metrics,
            EdgeMetrics.Source source) {
        super(file, offset, length, metrics, source);
        this.channel = file.file().getChannel();
        this.pool = pool;
    }

    @Override
    public int write(Socket socket) throws IOException {
        int written = copy(channel, offset, remaining, socket, pool, metrics, source);
        if (written > 0) {
            advance(written);
        }
        return written;
    }

    /**
     * Writes up to {@code length} bytes of the file from {@code offset} through OpenSSL: returns the
     * bytes written, 0 when the socket is full, -1 when OpenSSL needs to read first.
     */
    static int copy(
            FileChannel channel,
            long offset,
            long length,
            Socket socket,
            BufferPool pool,
            EdgeMetrics metrics,
            EdgeMetrics.Source source)
            throws IOException {
        BufferPool.Chunk chunk = pool.tryAcquire();
        if (chunk == null) {
            throw new IOException("buffer pool exhausted");
        }
        int total = 0;
        try {
            ByteBuffer b = chunk.buffer();
            while (total < length && total < BUDGET_PER_CALL) {
                int read = (int) Math.min(Math.min(READ, b.capacity()), length - total);
                b.clear().limit(read);
                while (b.hasRemaining()) {
                    if (channel.read(b, offset + total + b.position()) < 0) {
                        throw new EOFException("file shorter than announced: " + (offset + total + b.position()));
                    }
                }
                // hand OpenSSL one record at a time from the buffer
                for (int pos = 0; pos < read; ) {
                    int want = Math.min(RECORD, read - pos);
                    int written = socket.writeRaw(chunk.address() + pos, want, 0);
                    if (written <= 0) {
                        return total > 0 ? total : written; // full (0) or OpenSSL wants to read (-1)
                    }
                    pos += written;
                    total += written;
                    if (written < want) {
                        return total;
                    }
                }
            }
            return total;
        } finally {
            if (total > 0) {
                metrics.bodyBytes(EdgeMetrics.Via.TLS_COPY, source, total);
            }
            pool.release(chunk);
        }
    }
}
