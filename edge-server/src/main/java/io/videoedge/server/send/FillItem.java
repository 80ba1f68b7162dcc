package io.videoedge.server.send;

import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.resources.BufferPool;
import java.io.IOException;
import one.nio.net.Session;
import one.nio.net.Socket;

/**
 * A region of an object that is still arriving from the origin: sent from the fill's file (sendfile,
 * or the TLS copy path) up to what has been written so far. When it catches up with the origin it
 * is {@link Parkable#starved() starved} and the session parks until the fill reports more data.
 */
final class FillItem extends Session.QueueItem implements Parkable {
    private final GrowingFile fill;
    private final long end;
    private long position;
    private final boolean kernelSend;
    private final BufferPool pool;
    private final EdgeMetrics metrics;

    FillItem(GrowingFile fill, long offset, long length, boolean kernelSend, BufferPool pool, EdgeMetrics metrics) {
        this.fill = fill;
        this.position = offset;
        this.end = offset + length;
        this.kernelSend = kernelSend;
        this.pool = pool;
        this.metrics = metrics;
    }

    @Override
    public int remaining() {
        return (int) Math.min(end - position, Integer.MAX_VALUE);
    }

    @Override
    public int write(Socket socket) throws IOException {
        long available = Math.min(fill.filled(), end) - position;
        if (available <= 0) {
            if (fill.broken()) {
                throw new IOException("origin transfer failed after the response started");
            }
            return 0;
        }
        long fileOffset = fill.headerLength() + position;
        int written;
        if (kernelSend) {
            long sent = socket.sendFile(fill.file().file(), fileOffset, available);
            written = (int) sent;
            if (sent > 0) metrics.bodyBytes(EdgeMetrics.Via.SENDFILE, EdgeMetrics.Source.ORIGIN, sent);
        } else {
            written = TlsCopyItem.copy(
                    fill.file().file().getChannel(),
                    fileOffset,
                    available,
                    socket,
                    pool,
                    metrics,
                    EdgeMetrics.Source.ORIGIN);
        }
        if (written > 0) {
            position += written;
        }
        return written;
    }

    @Override
    public boolean starved() {
        return position < end && position >= fill.filled() && !fill.broken();
    }

    @Override
    public boolean parkUnlessReady(Runnable waker) {
        return fill.parkUnlessReady(position, waker);
    }

    @Override
    public void release() {
        fill.file().release();
    }
}
