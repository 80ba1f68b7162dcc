package io.videoedge.server.send;

import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.resources.FileSource;
import one.nio.net.Session;

/** A region of a file still to be written to the socket; the item holds one reference to the file. */
abstract class FileRangeItem extends Session.QueueItem {
    final FileSource file;
    final EdgeMetrics metrics;
    final EdgeMetrics.Source source;
    long offset;
    long remaining;

    FileRangeItem(FileSource file, long offset, long length, EdgeMetrics metrics, EdgeMetrics.Source source) {
        this.file = file;
        this.offset = offset;
        this.remaining = length;
        this.metrics = metrics;
        this.source = source;
    }

    /** Moves past {@code n > 0} bytes that were written. */
    final void advance(long n) {
        offset += n;
        remaining -= n;
    }

    @Override
    public final int remaining() {
        return (int) Math.min(remaining, Integer.MAX_VALUE);
    }

    @Override
    public final void release() {
        file.release();
    }
}
