package io.videoedge.server.accesslog;

import one.nio.net.Session;

/**
 * An empty item queued behind a response's own items. The session writes items in order, so it is
 * written (a no-op) only once everything before it left: then the response is complete. When the
 * connection closes first, one-nio releases the queue without writing it: the response is cut short,
 * and the body item's remaining bytes tell how much of the body left. Either way {@link #release}
 * (called exactly once by one-nio) finishes the line and hands it to the log.
 */
public final class AccessLogMark extends Session.QueueItem {
    private final AccessLog log;
    private final AccessLine line;
    private final Session.QueueItem body;
    private boolean reached;

    /** @param body the item carrying the response body (null when the body was part of the head's bytes) */
    public AccessLogMark(AccessLog log, AccessLine line, Session.QueueItem body) {
        this.log = log;
        this.line = line;
        this.body = body;
    }

    @Override
    public int write(one.nio.net.Socket socket) {
        reached = true;
        return 0;
    }

    @Override
    public void release() {
        long sent;
        if (reached) {
            sent = line.bodyLength;
        } else if (body != null) {
            sent = line.bodyLength - Math.min(line.bodyLength, Math.max(0, body.remaining()));
        } else {
            sent = 0;
        }
        line.finish(sent, reached, System.nanoTime());
        log.offer(line);
    }
}
