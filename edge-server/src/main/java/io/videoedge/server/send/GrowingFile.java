package io.videoedge.server.send;

import io.videoedge.server.resources.SharedFile;

/**
 * A file still being written (an object arriving from the origin): a response sends what is there
 * and waits for more. Implemented by the cache's fill; the send path knows only this.
 */
public interface GrowingFile {
    /** Body bytes written so far. */
    long filled();

    /** The transfer failed: what is not there will never come. */
    boolean broken();

    /** Bytes before the body in the file (the cache's own header). */
    int headerLength();

    SharedFile file();

    /** Parks the waker until bytes past {@code position} arrive; false when they are there already. */
    boolean parkUnlessReady(long position, Runnable waker);
}
