package io.videoedge.server.cache;

import java.io.IOException;

/**
 * The edge's own cache storage failed while a fill wrote an origin answer (disk full, out of descriptors, an I/O
 * error, no pooled buffer): the edge's fault, not the origin's, so it answers 500 and the origin's circuit breaker
 * does not count it.
 */
final class CacheWriteFailed extends IOException {
    CacheWriteFailed(String what, IOException cause) {
        super(what + (cause != null ? ": " + cause : ""), cause);
    }
}
