package io.videoedge.testing;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay between a client under test and the real API server, which a test can cut: every open
 * connection is reset and new ones are closed as soon as they are accepted, as when the API server's
 * load balancer has no healthy backend; {@link #restore()} lets connections through again. TLS passes
 * through untouched (the client verifies the API server's own certificate, which names 127.0.0.1).
 * The client's kubeconfig points at {@link #server()} instead of the API server.
 */
public final class ApiOutage implements Closeable {
    private final ServerSocket listener;
    private final InetSocketAddress upstream;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final AtomicLong refused = new AtomicLong();
    private volatile boolean cut;
    private volatile boolean closed;

    /** A relay to {@code apiServer} (an https://host:port URL) on a free loopback port. */
    public ApiOutage(String apiServer) {
        URI uri = URI.create(apiServer);
        upstream = new InetSocketAddress(uri.getHost(), uri.getPort());
        try {
            listener = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread.ofPlatform().daemon().name("api-outage-accept").start(this::accept);
    }

    /** The URL clients use instead of the API server's. */
    public String server() {
        return "https://127.0.0.1:" + listener.getLocalPort();
    }

    /** From now on the API server is unreachable: open connections reset, new ones closed at once. */
    public void cut() {
        cut = true;
        for (Socket s : open) {
            reset(s);
        }
    }

    /** The API server is reachable again. */
    public void restore() {
        cut = false;
    }

    /** Connections closed at once while cut (clients that tried). */
    public long refused() {
        return refused.get();
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            if (cut) {
                refused.incrementAndGet();
                reset(client);
                continue;
            }
            try {
                Socket server = new Socket();
                server.connect(upstream, 5_000);
                open.add(client);
                open.add(server);
                Thread.ofVirtual().start(() -> pump(client, server));
                Thread.ofVirtual().start(() -> pump(server, client));
            } catch (IOException e) {
                reset(client);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buf = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side went away: take the other with it
        } finally {
            reset(from);
            reset(to);
        }
    }

    private void reset(Socket s) {
        open.remove(s);
        try {
            s.setSoLinger(true, 0); // RST, not a polite FIN: what a dropped backend looks like
            s.close();
        } catch (IOException e) {
            // closed already
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            // closing anyway
        }
        open.forEach(this::reset);
    }
}
