package io.videoedge.server.cache;

/**
 * What one purge removed: objects from the memory tier, objects from the disk tier (their files
 * deleted before the purge returns, so a restart cannot bring them back), and origin fetches in flight
 * that will not be stored (requests already streaming from them finish; later ones fetch afresh).
 */
public record PurgeResult(int memory, int disk, int fills) {
    public static final PurgeResult NONE = new PurgeResult(0, 0, 0);
}
