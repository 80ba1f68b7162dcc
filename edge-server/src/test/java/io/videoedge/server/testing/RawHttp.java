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
 * A plain socket speaking HTTP/1.1 byte by byte: for malformed requests, pipelining, and checking
 * whether the server kept or closed the connection. Responses are framed by Content-Length.
 */
public final class RawHttp implements Closeable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RawHttp(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(30_000); // a safety net against a hang, not a timing assertion
        in = socket.getInputStream();
        out = socket.getOutputStream();
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
