package io.videoedge.server.send;

/**
 * A queue item that can run out of bytes before it is done (its data is still arriving). The session
 * then stops listening for writability and asks to be woken when more data is there.
 */
public interface Parkable {
    /** True when nothing can be written now although the item is not finished. */
    boolean starved();

    /**
     * Registers the waker unless data arrived meanwhile; returns true when registered (the session
     * must not spin on writability until woken), false when it should simply try again.
     */
    boolean parkUnlessReady(Runnable waker);
}
