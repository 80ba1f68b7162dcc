package io.videoedge.server.guard;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Open connections per client address (limits.maxConnectionsPerAddress): taken at accept by the
 * acceptor thread, given back when the connection closes (any thread). Lock-free apart from the map's
 * per-bin locking; an address with no connection left is removed.
 */
public final class AddressCounts {
    private final ConcurrentHashMap<InetAddress, Integer> counts = new ConcurrentHashMap<>();

    /** Counts one more connection of {@code address} unless it already has {@code cap}; true when counted. */
    public boolean tryAcquire(InetAddress address, int cap) {
        boolean[] taken = {false};
        counts.compute(address, (a, n) -> {
            int now = n == null ? 0 : n;
            if (now >= cap) {
                return n;
            }
            taken[0] = true;
            return now + 1;
        });
        return taken[0];
    }

    public void release(InetAddress address) {
        counts.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
    }

    public int connections(InetAddress address) {
        return counts.getOrDefault(address, 0);
    }

    /** Addresses with at least one connection. */
    public int addresses() {
        return counts.size();
    }
}
