package io.videoedge.server.guard;

/**
 * The slow-reader rule for one connection (limits.minSendBytes in limits.minSendPeriod): a connection
 * with a response pending that took fewer than {@code minBytes} within one period is cut. A period starts
 * when a response is first seen pending and again after each period the client kept up; time when
 * nothing is pending (or the response waits for the origin, not the client) never counts. Observed by
 * one thread (the connection guard); no I/O.
 */
public final class SendProgress {
    private final long minBytes;
    private final long period;
    private long periodStart = -1;
    private long sentAtStart;

    /** @param minBytes 0: the rule is off */
    public SendProgress(long minBytes, long period) {
        this.minBytes = minBytes;
        this.period = period;
    }

    /**
     * @param pending a response is waiting for the client to take it
     * @param sent bytes the socket has taken on this connection so far
     * @return {@link Refusal#SLOW_READER} when the connection must be cut, else null
     */
    public Refusal observe(long now, boolean pending, long sent) {
        if (minBytes <= 0 || !pending) {
            periodStart = -1;
            return null;
        }
        if (periodStart < 0) {
            periodStart = now;
            sentAtStart = sent;
            return null;
        }
        if (now - periodStart < period) {
            return null;
        }
        if (sent - sentAtStart < minBytes) {
            return Refusal.SLOW_READER;
        }
        periodStart = now;
        sentAtStart = sent;
        return null;
    }
}
