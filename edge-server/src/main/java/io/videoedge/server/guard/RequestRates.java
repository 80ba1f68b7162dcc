package io.videoedge.server.guard;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The per-client-address request rate cap (limits.maxRequestRate, limits.requestBurst): a token bucket
 * per address, {@code burst} deep, refilled at {@code rate} tokens a second; a request takes one token
 * or is refused with the time until the next one. Buckets that have refilled completely are forgotten
 * (at most one sweep every {@link #SWEEP_NANOS}, by whichever caller comes first), so the map holds only
 * the addresses that asked for something recently. Lock-free apart from the map's per-bin locking;
 * called on the selector threads.
 */
public final class RequestRates {
    static final long SWEEP_NANOS = 10_000_000_000L;

    /** Tokens left and when they were counted. Changed only inside the map's compute for its key. */
    private static final class Bucket {
        double tokens;
        long at;
    }

    private final ConcurrentHashMap<InetAddress, Bucket> buckets = new ConcurrentHashMap<>();
    private final AtomicLong lastSweep;

    public RequestRates(long nowNanos) {
        lastSweep = new AtomicLong(nowNanos);
    }

    /**
     * Takes a token for one request of {@code address}.
     *
     * @return 0 when the request may go on, else the nanoseconds until the address has a token again
     */
    public long take(InetAddress address, long nowNanos, int rate, int burst) {
        sweepIfDue(nowNanos, rate, burst);
        long[] wait = {0};
        buckets.compute(address, (a, b) -> {
            if (b == null) {
                b = new Bucket();
                b.tokens = burst;
                b.at = nowNanos;
            }
            refill(b, nowNanos, rate, burst);
            if (b.tokens >= 1) {
                b.tokens -= 1;
            } else {
                wait[0] = Math.max(1, (long) Math.ceil((1 - b.tokens) * 1e9 / rate));
            }
            return b;
        });
        return wait[0];
    }

    /** Addresses with a bucket that has not refilled yet. */
    public int addresses() {
        return buckets.size();
    }

    private static void refill(Bucket b, long now, int rate, int burst) {
        if (now > b.at) {
            b.tokens = Math.min(burst, b.tokens + (now - b.at) * (double) rate / 1e9);
            b.at = now;
        }
    }

    private void sweepIfDue(long now, int rate, int burst) {
        long last = lastSweep.get();
        if (now - last < SWEEP_NANOS || !lastSweep.compareAndSet(last, now)) return;
        for (InetAddress a : buckets.keySet()) {
            buckets.computeIfPresent(a, (k, b) -> {
                refill(b, now, rate, burst);
                return b.tokens >= burst ? null : b;
            });
        }
    }
}
