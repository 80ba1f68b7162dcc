package io.videoedge.server.send;

import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.resources.BufferPool;
import java.io.IOException;
import one.nio.net.Session;
import one.nio.net.Socket;

/**
 * A body sent part after part ({@link BodyParts}): each part becomes the queue item its body would
 * be on its own (sendfile, TLS copy, memory, a growing fill). While the next part is not known, or the
 * current one waits for the origin, the item is {@link Parkable#starved() starved}.
 */
final class PartsItem extends Session.QueueItem implements Parkable {
    private final BodyParts parts;
    private final boolean kernelSend;
    private final BufferPool pool;
    private final EdgeMetrics metrics;
    private long remaining;
    private Session.QueueItem current;

    PartsItem(BodyParts parts, long length, boolean kernelSend, BufferPool pool, EdgeMetrics metrics) {
        this.parts = parts;
        this.remaining = length;
        this.kernelSend = kernelSend;
        this.pool = pool;
        this.metrics = metrics;
    }

    @Override
    public int remaining() {
        return (int) Math.min(remaining, Integer.MAX_VALUE);
    }

    @Override
    public int write(Socket socket) throws IOException {
        int total = 0;
        while (remaining > 0) {
            if (current == null) {
                Body next = parts.poll();
                if (next == null) return total;
                current = next.toQueueItem(kernelSend, pool, metrics);
            }
            int written = current.write(socket);
            if (written < 0) return total > 0 ? total : written; // TLS wants to read first
            total += written;
            remaining -= written;
            if (current.remaining() > 0) return total;
            current.release();
            current = null;
        }
        return total;
    }

    @Override
    public boolean starved() {
        if (remaining <= 0) return false;
        Session.QueueItem c = current;
        return c == null || (c instanceof Parkable p && p.starved());
    }

    @Override
    public boolean parkUnlessReady(Runnable waker) {
        Session.QueueItem c = current;
        if (c == null) return parts.parkUnlessReady(waker);
        return c instanceof Parkable p && p.parkUnlessReady(waker);
    }

    @Override
    public void release() {
        if (current != null) {
            current.release();
            current = null;
        }
        parts.discard();
    }
}
