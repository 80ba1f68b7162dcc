package io.videoedge.server.send;

/**
 * Bytes in off-heap memory, shared by reference count (an object of the memory cache): a response
 * holds one reference and gives it back when done. The send path knows only this.
 */
public interface OffHeapBytes {
    long address();

    void release();
}
