package io.videoedge.server;

import java.net.InetSocketAddress;
import one.nio.net.Socket;
import one.nio.server.AcceptorConfig;

/**
 * The socket buffer sizes of an accepted connection, set again on the connection itself. Linux caps
 * SO_SNDBUF and SO_RCVBUF at net.core.wmem_max and rmem_max when they are set: one-nio sets them on the
 * listening socket (at start and at a live reconfigure), and a connection inherits what the cap allowed
 * then. The node agent raises the caps to the sizes asked for (the NodeTuning's sysctlMinimums), possibly
 * after the server started listening, and the server is not restarted for it: set on each accepted
 * socket, the sizes take the cap in force when the connection is accepted. Two setsockopt calls per
 * connection.
 */
final class SocketBuffers {
    private SocketBuffers() {}

    /** Sets the sizes of the acceptor the socket was accepted on (by local port); 0 leaves the kernel's. */
    static void apply(Socket socket, AcceptorConfig[] acceptors) {
        InetSocketAddress local = socket.getLocalAddress();
        if (local == null || acceptors == null) return;
        for (AcceptorConfig a : acceptors) {
            if (a.port == local.getPort()) {
                if (a.sendBuf > 0) socket.setSendBuffer(a.sendBuf);
                if (a.recvBuf > 0) socket.setRecvBuffer(a.recvBuf);
                return;
            }
        }
    }
}
