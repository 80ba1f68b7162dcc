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

    /** The {@code i}-th TLS connection to 127.0.0.1:{@code port}, its handshake done. */
    public static SSLSocket tls(SSLContext context, int port, int i) throws IOException {
        Socket plain = new Socket();
        plain.bind(new InetSocketAddress("127.0.0." + (2 + i / 900), 0));
        plain.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        plain.setSoTimeout(10_000);
        SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket(plain, "localhost", port, true);
        s.startHandshake();
        return s;
    }
}
