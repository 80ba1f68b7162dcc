package io.videoedge.server.send;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

import io.videoedge.server.content.OpenFile;
import io.videoedge.server.metrics.EdgeMetrics;
import one.nio.net.Session;
import one.nio.net.Socket;

/**
 * A file region sent over TLS without kernel TLS: each write reads the next chunk into a pooled
 * direct buffer and hands its address to OpenSSL (one-nio's writeRaw). The buffer is held only for
 * the duration of one write call, so the pool needs one chunk per writing thread, not per connection.
 * When OpenSSL asks for a retry, the next call re-reads the same bytes at the same offset with the
 * same length, which is what SSL_write's retry rule requires.
 */
final class TlsCopyItem extends Session.QueueItem {
    private final OpenFile file;
    private final FileChannel channel;
    private final BufferPool pool;
    private final EdgeMetrics metrics;
    private long offset;
    private long remaining;

    TlsCopyItem(OpenFile file, long offset, long length, BufferPool pool, EdgeMetrics metrics) {
        this.file = file;
        this.channel = file.file().getChannel();
        this.offset = offset;
        this.remaining = length;
        this.pool = pool;
        this.metrics = metrics;
    }

    @Override
    public int remaining() {
        return (int) Math.min(remaining, Integer.MAX_VALUE);
    }

    @Override
    public int write(Socket socket) throws IOException {
        BufferPool.Chunk chunk = pool.tryAcquire();
        if (chunk == null) {
            throw new IOException("buffer pool exhausted");
        }
        try {
            int want = (int) Math.min(chunk.buffer().capacity(), remaining);
            ByteBuffer b = chunk.buffer();
            b.limit(want);
            while (b.hasRemaining()) {
                if (channel.read(b, offset + b.position()) < 0) {
                    throw new EOFException("file shorter than announced: " + (offset + b.position()));
                }
            }
            int written = socket.writeRaw(chunk.address(), want, 0);
            if (written > 0) {
                offset += written;
                remaining -= written;
                metrics.bodyBytes(EdgeMetrics.Via.TLS_COPY, written);
            }
            return written;
        } finally {
            pool.release(chunk);
        }
    }

    @Override
    public void release() {
        file.release();
    }
}
