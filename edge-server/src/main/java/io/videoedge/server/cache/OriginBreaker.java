package io.videoedge.server.cache;

/**
 * Fails misses fast while the origin is unreachable: after a connection failure or timeout, fills in
 * the next {@code cooldownMillis} answer at once with the same status instead of each waiting for
 * its own timeout; the first fill after the cooldown tries the origin again, so recovery needs no
 * restart. HTTP error statuses from a reachable origin do not trip it.
 */
final class OriginBreaker {
    private final long cooldownMillis;
    private volatile long openUntil;
    private volatile int lastStatus = 502;

    OriginBreaker(long cooldownMillis) {
        this.cooldownMillis = cooldownMillis;
    }

    Fill.Outcome check() {
        if (System.currentTimeMillis() < openUntil) {
            return new Fill.Failed(lastStatus, "origin failing: not retried until the cooldown ends");
        }
        return null;
    }

    void failure(int status) {
        lastStatus = status;
        openUntil = System.currentTimeMillis() + cooldownMillis;
    }

    void success() {
        openUntil = 0;
    }

    boolean open() {
        return System.currentTimeMillis() < openUntil;
    }
}
