package io.videoedge.server.send;

import java.io.IOException;

import io.videoedge.server.metrics.EdgeMetrics;
import one.nio.net.Session;
import one.nio.net.Socket;

/** A file region sent with sendfile(2): the bytes go from the page cache to the socket in the kernel. */
final class SendfileItem extends Session.QueueItem {
    private final FileSource file;
    private final EdgeMetrics metrics;
    private final EdgeMetrics.Source source;
    private long offset;
    private long remaining;

    SendfileItem(FileSource file, long offset, long length, EdgeMetrics metrics, EdgeMetrics.Source source) {
        this.file = file;
        this.offset = offset;
        this.remaining = length;
        this.metrics = metrics;
        this.source = source;
    }

    @Override
    public int remaining() {
        return (int) Math.min(remaining, Integer.MAX_VALUE);
    }

    @Override
    public int write(Socket socket) throws IOException {
        long sent = socket.sendFile(file.file(), offset, remaining);
        if (sent > 0) {
            offset += sent;
            remaining -= sent;
            metrics.bodyBytes(EdgeMetrics.Via.SENDFILE, source, sent);
        }
        return (int) sent;
    }

    @Override
    public void release() {
        file.release();
    }
}
