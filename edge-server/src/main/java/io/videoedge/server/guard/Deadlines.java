package io.videoedge.server.guard;

/**
 * The time limits of one connection, fixed when it is accepted (limits.headerTimeout,
 * limits.handshakeTimeout; milliseconds), and the pure decision whether a connection has overrun one.
 */
public record Deadlines(long headerTimeout, long handshakeTimeout) {
    /**
     * Which deadline a connection has overrun at {@code now}, or null.
     *
     * @param acceptedAt when the connection was accepted
     * @param handshakeDone true for plain TCP, and for TLS once the handshake completed
     * @param headStartedAt when the request head being received started (the first request's: the
     *     accept; a later one's: its first byte), 0 when no head is being received
     */
    public Refusal overrun(long now, long acceptedAt, boolean handshakeDone, long headStartedAt) {
        if (!handshakeDone && now - acceptedAt >= handshakeTimeout) {
            return Refusal.HANDSHAKE_TIMEOUT;
        }
        if (headStartedAt != 0 && now - headStartedAt >= headerTimeout) {
            return Refusal.HEADER_TIMEOUT;
        }
        return null;
    }

    /** How often the guard should look: a quarter of the shortest deadline, between 50 ms and 1 s. */
    public static long tick(long... deadlines) {
        long shortest = Long.MAX_VALUE;
        for (long d : deadlines) {
            if (d > 0) shortest = Math.min(shortest, d);
        }
        return Math.max(50, Math.min(1000, shortest / 4));
    }
}
