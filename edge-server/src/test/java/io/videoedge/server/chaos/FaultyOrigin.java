package io.videoedge.server.chaos;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An origin on loopback written on plain sockets, so that it can do what a real origin does wrong,
 * chosen by the path: {@code /o/NAME} answers well; {@code /slow/} waits 2 s, then trickles the body;
 * {@code /trunc/} declares the whole length, sends half and closes; {@code /long/} sends a full response
 * followed by a second, unrequested one on the same connection (a poisoned keep-alive connection);
 * {@code /stall/} sends half and then nothing; {@code /chg/} is a new version (new ETag, new bytes) on
 * every request, sent slowly so fills overlap. A name ending {@code -NNNk.ext} is NNN KiB (256 KiB
 * otherwise). Bodies are deterministic per path and version, so a client can check every byte it is
 * served against {@link #expected}. {@link #stop()} closes the port (connections refused).
 */
final class FaultyOrigin implements AutoCloseable {
    private static final Pattern SIZE = Pattern.compile("-(\\d+)k\\.[a-z0-9]+$");
    static final byte[] POISON = ("HTTP/1.1 200 OK\r\nContent-Length: 6\r\nETag: \"poison\"\r\n"
                    + "Cache-Control: max-age=3600\r\n\r\nPOISON")
            .getBytes(StandardCharsets.ISO_8859_1);

    private final AtomicInteger versions = new AtomicInteger();
    private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket server;
    private final int port;

    FaultyOrigin() throws IOException {
        server = bind(0);
        port = server.getLocalPort();
        accept(server);
    }

    String url() {
        return "http://127.0.0.1:" + port;
    }

    int requests(String path) {
        AtomicInteger n = requests.get(path);
        return n == null ? 0 : n.get();
    }

    /** Closes the port and every open connection: the origin is down. */
    synchronized void stop() throws IOException {
        server.close();
        for (Socket s : open) s.close();
    }

    /** Back on the same port. */
    synchronized void start() throws IOException {
        if (!server.isClosed()) return;
        server = bind(port);
        accept(server);
    }

    static int size(String path) {
        Matcher m = SIZE.matcher(path);
        return m.find() ? Integer.parseInt(m.group(1)) * 1024 : 256 * 1024;
    }

    static String etag(String path, int version) {
        return "\"v" + version + "-" + Integer.toHexString(path.hashCode()) + "\"";
    }

    /** The bytes of {@code path} at {@code version}. */
    static byte[] body(String path, int version) {
        byte[] b = new byte[size(path)];
        new SplittableRandom(path.hashCode() * 31L + version).nextBytes(b);
        return b;
    }

    /** The body an ETag this origin sent for {@code path} stands for, or null for a tag it never sent. */
    static byte[] expected(String path, String etag) {
        if (etag == null || !etag.startsWith("\"v")) return null;
        int dash = etag.indexOf('-');
        int version = Integer.parseInt(etag.substring(2, dash));
        return etag.equals(etag(path, version)) ? body(path, version) : null;
    }

    private static ServerSocket bind(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 512);
        return s;
    }

    private void accept(ServerSocket s) {
        Thread.ofPlatform().daemon().name("faulty-origin-accept").start(() -> {
            while (!s.isClosed()) {
                try {
                    Socket c = s.accept();
                    open.add(c);
                    Thread.ofVirtual().start(() -> serve(c));
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    private void serve(Socket c) {
        try (c) {
            InputStream in = c.getInputStream();
            OutputStream out = c.getOutputStream();
            for (String head; (head = readHead(in)) != null; ) {
                if (!answer(head, out)) return;
            }
        } catch (IOException | InterruptedException e) {
            // the peer went away or the origin was stopped
        } finally {
            open.remove(c);
        }
    }

    /** Answers one request; false when the connection must end. */
    private boolean answer(String head, OutputStream out) throws IOException, InterruptedException {
        String[] lines = head.split("\r\n");
        String[] requestLine = lines[0].split(" ");
        String path = requestLine[1];
        requests.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
        String ifNoneMatch = null;
        for (String l : lines) {
            if (l.regionMatches(true, 0, "if-none-match:", 0, 14))
                ifNoneMatch = l.substring(14).trim();
        }
        String kind = path.split("/")[1];
        int version = kind.equals("chg") ? versions.incrementAndGet() : 0;
        if (!Set.of("o", "slow", "trunc", "long", "stall", "chg").contains(kind)) {
            out.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            return true;
        }
        String etag = etag(path, version);
        String cacheControl = kind.equals("chg") ? "max-age=1" : "max-age=3600";
        if (etag.equals(ifNoneMatch)) {
            out.write(("HTTP/1.1 304 Not Modified\r\nETag: " + etag + "\r\nCache-Control: " + cacheControl + "\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            return true;
        }
        byte[] body = body(path, version);
        byte[] headers = ("HTTP/1.1 200 OK\r\nContent-Type: video/iso.segment\r\nContent-Length: " + body.length
                        + "\r\nETag: " + etag + "\r\nCache-Control: " + cacheControl + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        switch (kind) {
            case "slow" -> {
                Thread.sleep(2000);
                out.write(headers);
                trickle(out, body, body.length);
                return true;
            }
            case "chg" -> {
                out.write(headers);
                trickle(out, body, body.length);
                return true;
            }
            case "trunc" -> {
                out.write(headers);
                out.write(body, 0, body.length / 2);
                out.flush();
                return false;
            }
            case "stall" -> {
                out.write(headers);
                out.write(body, 0, body.length / 2);
                out.flush();
                Thread.sleep(60_000);
                return false;
            }
            case "long" -> {
                out.write(headers);
                out.write(body);
                out.write(POISON);
                out.flush();
                return true;
            }
            default -> {
                out.write(headers);
                out.write(body);
                out.flush();
                return true;
            }
        }
    }

    /** 64 KiB every 100 ms. */
    private static void trickle(OutputStream out, byte[] body, int length) throws IOException, InterruptedException {
        for (int off = 0; off < length; off += 64 * 1024) {
            out.write(body, off, Math.min(64 * 1024, length - off));
            out.flush();
            Thread.sleep(100);
        }
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int matched = 0;
        for (int c; (c = in.read()) >= 0; ) {
            b.write(c);
            matched = (c == '\r' && (matched == 0 || matched == 2)) || (c == '\n' && (matched == 1 || matched == 3))
                    ? matched + 1
                    : (c == '\r' ? 1 : 0);
            if (matched == 4) return b.toString(StandardCharsets.ISO_8859_1);
            if (b.size() > 64 * 1024) return null;
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        stop();
    }
}
