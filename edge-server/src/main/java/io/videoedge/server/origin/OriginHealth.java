package io.videoedge.server.origin;

/**
 * Passive health of one origin, pure: a failure marks it down for {@code downFor}, doubled for each
 * further failure in a row up to eight times that; a success marks it up. A down origin is skipped
 * while others are up, and tried again when its time is over (no probe requests).
 */
public final class OriginHealth {
    private static final int MAX_DOUBLINGS = 3; // 8 x downFor

    private final long downFor;
    private int failuresInARow;
    private long downUntil;

    public OriginHealth(long downForMillis) {
        this.downFor = downForMillis;
    }

    public synchronized boolean up(long now) {
        return now >= downUntil;
    }

    public synchronized void success() {
        failuresInARow = 0;
        downUntil = 0;
    }

    public synchronized void failure(long now) {
        failuresInARow++;
        downUntil = now + (downFor << Math.min(failuresInARow - 1, MAX_DOUBLINGS));
    }
}
