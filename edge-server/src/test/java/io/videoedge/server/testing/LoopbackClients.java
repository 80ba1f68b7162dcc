package io.videoedge.server.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * Many client connections to a server on loopback: the {@code i}-th comes from 127.0.0.(2 + i / 900), so
 * no source address has more than 900 (the server's default limits.maxConnectionsPerAddress is 1000).
 */
public final class LoopbackClients {
    private LoopbackClients() {}

    /** The {@code i}-th plain TCP connection to 127.0.0.1:{@code port}, connected. */
    public static Socket plain(int port, int i) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress("127.0.0." + (2 + i / 900), 0));
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        s.setSoTimeout(10_000);
        return s;
    }

    /** The {@code i}-th TLS connection to 127.0.0.1:{@code port}, its handshake done. */
    public static SSLSocket tls(SSLContext context, int port, int i) throws IOException {
        Socket plain = plain(port, i);
        SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket(plain, "localhost", port, true);
        s.startHandshake();
        return s;
    }
}
