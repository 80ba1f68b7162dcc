package io.videoedge.server.send;

import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.resources.BufferPool;
import java.io.IOException;
import one.nio.net.Session;
import one.nio.net.Socket;

/**
 * A response head and a small body (a manifest, a subtitle file) assembled in one pooled direct
 * buffer and written with one call: one TLS record and one syscall instead of two each, and no
 * sendfile set-up for a kilobyte. The body is read from the file (or copied from the memory tier)
 * into the buffer, never onto the heap. On a partial write the buffer is assembled again the same
 * way, so an OpenSSL retry sees the same bytes.
 */
public final class HeadAndBodyItem extends Session.QueueItem {
    /** Head and body together fit one TLS record. */
    static final int MAX_TOTAL = 16 * 1024;

    private final byte[] head;
    private final Body body;
    private final boolean tls;
    private final BufferPool pool;
    private final EdgeMetrics metrics;
    private final int total;
    private int written;

    HeadAndBodyItem(byte[] head, Body body, boolean tls, BufferPool pool, EdgeMetrics metrics) {
        this.head = head;
        this.body = body;
        this.tls = tls;
        this.pool = pool;
        this.metrics = metrics;
        this.total = head.length + (int) body.length();
    }

    public static HeadAndBodyItem of(byte[] head, Body body, boolean tls, BufferPool pool, EdgeMetrics metrics) {
        return new HeadAndBodyItem(head, body, tls, pool, metrics);
    }

    public static boolean fits(byte[] head, Body body, BufferPool pool) {
        return !(body instanceof Body.FillRegion || body instanceof Body.Parts)
                && head.length + body.length() <= Math.min(MAX_TOTAL, pool.chunkSize());
    }

    @Override
    public int remaining() {
        return total - written;
    }

    @Override
    public int write(Socket socket) throws IOException {
        BufferPool.Chunk chunk = pool.tryAcquire();
        if (chunk == null) {
            throw new IOException("buffer pool exhausted");
        }
        try {
            chunk.buffer().clear().put(head);
            body.copyTo(chunk, head.length);
            int n = socket.writeRaw(chunk.address() + written, total - written, 0);
            if (n > 0) {
                int bodyBefore = Math.max(0, written - head.length);
                written += n;
                int bodyBytes = Math.max(0, written - head.length) - bodyBefore;
                if (bodyBytes > 0) {
                    metrics.bodyBytes(tls ? EdgeMetrics.Via.TLS_COPY : EdgeMetrics.Via.COPY, body.source(), bodyBytes);
                }
            }
            return n;
        } finally {
            pool.release(chunk);
        }
    }

    @Override
    public void release() {
        body.discard();
    }
}
