package io.videoedge.server.send;

/**
 * The same bytes as a memory body, in a file: on a connection that takes sendfile they go out from the
 * page cache without being copied into the socket, when the page cache holds them all at the moment
 * the body is queued ({@link Body.MemoryRegion}).
 */
@FunctionalInterface
public interface FileCopy {
    /**
     * The body's range {@code [offset, offset + length)} as an open file region, or null when the file
     * is gone or any page of the range is not in the page cache (sendfile would then wait for the disk
     * on the event loop).
     */
    Body.FileRegion openIfCached(long offset, long length);
}
