package io.videoedge.server.send;

import io.videoedge.server.metrics.EdgeMetrics;
import java.io.IOException;
import one.nio.net.Session;
import one.nio.net.Socket;

/**
 * An object from the memory tier, written straight from its off-heap address (one-nio writeRaw): no
 * copy through the heap or a buffer; over TLS OpenSSL encrypts from it one 16 KiB record per call.
 * Loops until the socket is full or the per-call budget is used (one-nio calls an item once per
 * writable event).
 */
final class MemoryItem extends Session.QueueItem {
    private static final int BUDGET_PER_CALL = 1024 * 1024;

    private final OffHeapBytes entry;
    private final boolean tls;
    private final EdgeMetrics metrics;
    private long offset;
    private long remaining;

    MemoryItem(OffHeapBytes entry, long offset, long length, boolean tls, EdgeMetrics metrics) {
        this.entry = entry;
        this.offset = offset;
        this.remaining = length;
        this.tls = tls;
        this.metrics = metrics;
    }

    @Override
    public int remaining() {
        return (int) Math.min(remaining, Integer.MAX_VALUE);
    }

    @Override
    public int write(Socket socket) throws IOException {
        int total = 0;
        int last = 0;
        while (remaining > 0 && total < BUDGET_PER_CALL) {
            int want = (int) Math.min(tls ? TlsCopyItem.RECORD : BUDGET_PER_CALL, remaining);
            last = socket.writeRaw(entry.address() + offset, want, 0);
            if (last <= 0) break;
            offset += last;
            remaining -= last;
            total += last;
            if (last < want) break;
        }
        if (total > 0) {
            metrics.bodyBytes(
                    tls ? EdgeMetrics.Via.TLS_COPY : EdgeMetrics.Via.MEMORY, EdgeMetrics.Source.MEMORY, total);
            return total;
        }
        return last;
    }

    @Override
    public void release() {
        entry.release();
    }
}
