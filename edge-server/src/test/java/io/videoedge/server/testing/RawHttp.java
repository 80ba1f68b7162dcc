package io.videoedge.server.testing;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A socket (plain, or TLS from {@link #tls}) speaking HTTP/1.1 byte by byte: for malformed requests, pipelining, and checking
 * whether the server kept or closed the connection. Responses are framed by Content-Length.
 */
public final class RawHttp implements Closeable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private final CorkedSocket corked; // the TCP socket under TLS, when opened by tls()

    public RawHttp(int port) throws IOException {
        this(new Socket("127.0.0.1", port), null);
    }

    private RawHttp(Socket socket, CorkedSocket corked) throws IOException {
        this.socket = socket;
        this.corked = corked;
        socket.setSoTimeout(30_000); // a safety net against a hang, not a timing assertion
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /**
     * HTTP over TLS (JSSE, the test certificate trusted), handshake done: each {@link #send} is one
     * TLS record; between {@link #cork} and {@link #uncork} the records are held and then leave in
     * one TCP write, so the server finds them in its socket together.
     */
    public static RawHttp tls(int port) throws IOException {
        CorkedSocket tcp = new CorkedSocket();
        tcp.connect(new java.net.InetSocketAddress("127.0.0.1", port));
        tcp.setSoTimeout(30_000); // a safety net against a hang in the handshake, not a timing assertion
        javax.net.ssl.SSLSocket tls = (javax.net.ssl.SSLSocket)
                TestCerts.trustingContext().getSocketFactory().createSocket(tcp, "localhost", port, true);
        tls.startHandshake();
        return new RawHttp(tls, tcp);
    }

    /** Holds what is sent from now on (TLS connections from {@link #tls} only). */
    public RawHttp cork() {
        if (corked == null) throw new IllegalStateException("cork() is for connections opened by RawHttp.tls");
        corked.out.corked = true;
        return this;
    }

    /** Sends everything held since {@link #cork} in one write. */
    public RawHttp uncork() throws IOException {
        corked.out.release();
        return this;
    }

    /** A TCP socket whose output can be held back and released in one write. */
    private static final class CorkedSocket extends Socket {
        private Cork out;

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (out == null) out = new Cork(super.getOutputStream());
            return out;
        }
    }

    private static final class Cork extends java.io.FilterOutputStream {
        private final ByteArrayOutputStream held = new ByteArrayOutputStream();
        private volatile boolean corked;

        Cork(OutputStream out) {
            super(out);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            if (corked) held.write(b, off, len);
            else out.write(b, off, len);
        }

        @Override
        public synchronized void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public synchronized void flush() throws IOException {
            if (!corked) out.flush();
        }

        synchronized void release() throws IOException {
            corked = false;
            held.writeTo(out); // one write of every record held
            held.reset();
            out.flush();
        }
    }

    /** The client's port: the remote port of this connection on the server side. */
    public int localPort() {
        return socket.getLocalPort();
    }

    public RawHttp send(String request) throws IOException {
        return send(request.getBytes(StandardCharsets.ISO_8859_1));
    }

    public RawHttp send(byte[] request) throws IOException {
        out.write(request);
        out.flush();
        return this;
    }

    public record Response(int status, Map<String, String> headers, byte[] body) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** Reads one response; {@code head} true for a response to HEAD (no body despite Content-Length). */
    public Response read(boolean head) throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            throw new SocketException("connection closed before a response");
        }
        int status = Integer.parseInt(statusLine.substring(9, 12));
        Map<String, String> headers = new LinkedHashMap<>();
        for (String l; !(l = line()).isEmpty(); ) {
            int colon = l.indexOf(':');
            headers.put(
                    l.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    l.substring(colon + 1).trim());
        }
        byte[] body = new byte[0];
        String cl = headers.get("content-length");
        if (!head && cl != null && status != 304) {
            body = in.readNBytes(Integer.parseInt(cl));
        }
        return new Response(status, headers, body);
    }

    public Response read() throws IOException {
        return read(false);
    }

    /** True when the server has closed the connection (reads end of stream or a reset). */
    public boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketException e) {
            return true;
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                String s = b.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }

    public static Response exchange(int port, String request) throws IOException {
        try (RawHttp c = new RawHttp(port)) {
            return c.send(request).read(request.startsWith("HEAD "));
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
