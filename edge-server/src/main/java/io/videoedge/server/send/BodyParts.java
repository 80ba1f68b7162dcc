package io.videoedge.server.send;

import java.io.IOException;

/**
 * The parts of a body that is sent in pieces found one after another (the slices of a large cached
 * object): each part is an ordinary {@link Body}, known once its data is found or starts arriving.
 * Implemented by the cache; the send path knows only this.
 */
public interface BodyParts {
    /**
     * The next part, or null when it is not known yet (then {@link #parkUnlessReady}). Never blocks.
     *
     * @throws IOException the next part will never come (the response must be cut)
     */
    Body poll() throws IOException;

    /** Registers the waker unless the next part (or a failure) is there; true when registered. */
    boolean parkUnlessReady(Runnable waker);

    /** Gives back whatever the parts still hold (the response ended or was never sent). */
    void discard();
}
