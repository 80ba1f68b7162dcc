package io.videoedge.server.chaos;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * Many attacker connections from one thread (non-blocking channels): opened from a range of loopback
 * source addresses (127.0.0.x, {@code perAddress} each, so that the per-address cap is met, not
 * hidden), then fed bytes, drained or read slowly, and watched for the server closing them.
 */
final class Crowd implements AutoCloseable {
    private final List<SocketChannel> channels = new ArrayList<>();
    private final List<Long> openedAt = new ArrayList<>();
    private final List<Long> closedAt = new ArrayList<>();
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(64 * 1024);
    private long bytesIn;
    private int failedToConnect;

    /**
     * @param firstAddress the last octet of the first source address (127.0.0.firstAddress)
     * @param receiveBuffer SO_RCVBUF before connecting (0: the system's)
     */
    static Crowd open(int port, int count, int firstAddress, int perAddress, int receiveBuffer) throws IOException {
        Crowd crowd = new Crowd();
        InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        for (int i = 0; i < count; i++) {
            SocketChannel ch = SocketChannel.open();
            try {
                if (receiveBuffer > 0) ch.setOption(StandardSocketOptions.SO_RCVBUF, receiveBuffer);
                ch.bind(new InetSocketAddress(
                        InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (firstAddress + i / perAddress)}), 0));
                ch.connect(target);
                ch.configureBlocking(false);
                crowd.channels.add(ch);
                crowd.openedAt.add(System.nanoTime());
                crowd.closedAt.add(0L);
            } catch (IOException e) {
                ch.close();
                crowd.failedToConnect++;
            }
        }
        return crowd;
    }

    int size() {
        return channels.size();
    }

    int failedToConnect() {
        return failedToConnect;
    }

    long bytesIn() {
        return bytesIn;
    }

    /** Connections the server has not closed. */
    int stillOpen() {
        int n = 0;
        for (long c : closedAt) if (c == 0) n++;
        return n;
    }

    /** The longest any connection stayed open, in seconds (up to now for those still open). */
    double longestHeldSeconds() {
        long now = System.nanoTime();
        long longest = 0;
        for (int i = 0; i < channels.size(); i++) {
            long end = closedAt.get(i) == 0 ? now : closedAt.get(i);
            longest = Math.max(longest, end - openedAt.get(i));
        }
        return longest / 1e9;
    }

    /** Writes {@code bytes} to every open connection (as much as its socket takes now). */
    void sendAll(byte[] bytes) {
        for (int i = 0; i < channels.size(); i++) {
            if (closedAt.get(i) != 0) continue;
            try {
                channels.get(i).write(ByteBuffer.wrap(bytes));
            } catch (IOException e) {
                markClosed(i);
            }
        }
    }

    /**
     * Reads from every open connection, at most {@code perConnection} bytes each (Long.MAX_VALUE: all
     * there is), noting those the server closed.
     */
    void read(long perConnection) {
        for (int i = 0; i < channels.size(); i++) {
            if (closedAt.get(i) != 0) continue;
            long budget = perConnection;
            try {
                while (budget > 0) {
                    scratch.clear();
                    if (budget < scratch.capacity()) scratch.limit((int) budget);
                    int n = channels.get(i).read(scratch);
                    if (n < 0) {
                        markClosed(i);
                        break;
                    }
                    if (n == 0) break;
                    bytesIn += n;
                    budget -= n;
                }
            } catch (IOException e) {
                markClosed(i);
            }
        }
    }

    /** Drains every connection for {@code seconds}, ten times a second. */
    void drain(double seconds) throws InterruptedException {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < end) {
            read(Long.MAX_VALUE);
            Thread.sleep(100);
        }
    }

    private void markClosed(int i) {
        closedAt.set(i, System.nanoTime());
        try {
            channels.get(i).close();
        } catch (IOException ignored) {
            // closing a broken channel
        }
    }

    @Override
    public void close() {
        for (SocketChannel ch : channels) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // already broken
            }
        }
    }
}
