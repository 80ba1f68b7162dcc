package io.videoedge.server.send;

import io.videoedge.server.content.OpenFile;
import io.videoedge.server.metrics.EdgeMetrics;
import one.nio.net.Session;

/**
 * A response body that is not a byte array: it becomes a queue item of the session when the head has
 * been written, chosen by what the connection can do. A body owns its resources until then and must
 * be {@link #discard() discarded} if it is never sent (HEAD, errors).
 */
public sealed interface Body permits Body.FileRegion {

    long length();

    /** @param kernelSend the socket can take sendfile (plain TCP, or TLS that the kernel handles) */
    Session.QueueItem toQueueItem(boolean kernelSend, BufferPool pool, EdgeMetrics metrics);

    void discard();

    /** A region of an open file; the body holds one reference to it. */
    record FileRegion(OpenFile file, long offset, long length) implements Body {
        @Override
        public Session.QueueItem toQueueItem(boolean kernelSend, BufferPool pool, EdgeMetrics metrics) {
            return kernelSend
                    ? new SendfileItem(file, offset, length, metrics)
                    : new TlsCopyItem(file, offset, length, pool, metrics);
        }

        @Override
        public void discard() {
            file.release();
        }
    }
}
