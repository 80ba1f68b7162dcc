package io.videoedge.server.cache;

import io.videoedge.server.send.Body;
import io.videoedge.server.send.BodyParts;
import java.io.IOException;

/**
 * The body of a sliced response, bytes {@code position .. end - 1} of an object: one part per slice,
 * each found ({@link SliceHandler#find}) when the response reaches it, in the version of the first
 * slice. The next slice's fetch starts as soon as the current one is found, so the origin works
 * while the client reads. Thread-safe: polled by the session's writer, completed by fill threads;
 * the waker runs outside this object's lock.
 */
final class SliceParts implements BodyParts {
    private final SliceHandler slices;
    private final String key;
    private final ObjectMeta version;
    private final long size;
    private final long end;
    private long position;
    private SliceSource first; // found before the head was sent; used for its slice, else released
    private final long firstStart;
    private EdgeCache.Joined next; // the fill started ahead for the slice at nextStart, or null
    private long nextStart = -1;

    private Body ready;
    private IOException failure;
    private boolean finding;
    private boolean discarded;
    private Runnable waker;

    SliceParts(
            SliceHandler slices,
            String key,
            ObjectMeta version,
            long size,
            long firstStart,
            SliceSource first,
            long position,
            long end) {
        this.slices = slices;
        this.key = key;
        this.version = version;
        this.size = size;
        this.firstStart = firstStart;
        this.first = first;
        this.position = position;
        this.end = end;
    }

    @Override
    public Body poll() throws IOException {
        long start;
        SliceSource known = null;
        EdgeCache.Joined ahead = null;
        synchronized (this) {
            Body b = take();
            if (b != null || finding || position >= end || discarded) return b;
            finding = true;
            start = position / size * size;
            if (first != null) {
                if (firstStart == start) known = first;
                else first.release(); // the response starts in another slice (If-Range, a suffix range)
                first = null;
            }
            if (next != null && nextStart == start) ahead = next;
            next = null;
        }
        long s = start;
        if (known != null) {
            found(s, new SliceHandler.Found(known));
        } else if (ahead != null) {
            slices.awaitFill(ahead, key, s, version, true, r -> found(s, r));
        } else {
            slices.find(key, s, version, true, r -> found(s, r));
        }
        synchronized (this) {
            return take();
        }
    }

    private Body take() throws IOException {
        if (failure != null) throw failure;
        Body b = ready;
        ready = null;
        return b;
    }

    private void found(long start, SliceHandler.Result result) {
        Runnable w;
        boolean more = false;
        synchronized (this) {
            finding = false;
            if (discarded) {
                if (result instanceof SliceHandler.Found f) f.source().release();
                return;
            }
            long sliceLength = Math.min(size, version.objectLength() - start);
            switch (result) {
                case SliceHandler.Found f
                when f.source().meta().sameVersion(version) && f.source().meta().length() == sliceLength -> {
                    long length = Math.min(end, start + sliceLength) - position;
                    ready = f.source().region(position - start, length);
                    position += length;
                    more = position < end;
                }
                case SliceHandler.Found f -> {
                    f.source().release();
                    cut("the slice at " + start + " is of another version of the object");
                }
                case SliceHandler.Missing m -> cut("the slice at " + start + " failed: " + m.reason());
            }
            w = waker;
            waker = null;
        }
        if (more) {
            EdgeCache.Joined ahead = slices.prefetch(key, start + size, version);
            if (ahead != null) {
                synchronized (this) {
                    next = ahead;
                    nextStart = start + size;
                }
            }
        }
        if (w != null) w.run();
    }

    private void cut(String reason) {
        failure = new IOException("sliced response cut: " + reason);
        slices.responseCut();
    }

    @Override
    public synchronized boolean parkUnlessReady(Runnable waker) {
        if (ready != null || failure != null || discarded || !finding) {
            return false;
        }
        this.waker = waker;
        return true;
    }

    @Override
    public void discard() {
        Body b;
        SliceSource f;
        synchronized (this) {
            discarded = true;
            b = ready;
            ready = null;
            f = first;
            first = null;
            waker = null;
        }
        if (b != null) b.discard();
        if (f != null) f.release();
    }
}
