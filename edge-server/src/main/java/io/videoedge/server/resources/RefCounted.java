package io.videoedge.server.resources;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A resource shared by the responses that use it: it starts with one reference (its owner's), each
 * user takes one and gives it back, and the last release frees the resource.
 */
public abstract class RefCounted {
    private final AtomicInteger refs = new AtomicInteger(1);

    /** Takes a reference; false when the resource was already freed (the caller looks it up again). */
    public final boolean retain() {
        for (int r = refs.get(); r > 0; r = refs.get()) {
            if (refs.compareAndSet(r, r + 1)) {
                return true;
            }
        }
        return false;
    }

    /** Gives a reference back; the last one frees the resource. */
    public final void release() {
        if (refs.decrementAndGet() == 0) {
            free();
        }
    }

    /** Called once, by the last {@link #release()}. */
    protected abstract void free();
}
