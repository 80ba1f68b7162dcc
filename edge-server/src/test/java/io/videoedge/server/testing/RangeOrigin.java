package io.videoedge.server.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.videoedge.server.http.HttpDates;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real HTTP origin on loopback that answers Range requests (one {@code bytes=a-b} range, 206 with
 * Content-Range) for large virtual objects whose bytes are computed, not stored (a 1 GiB object
 * costs nothing), and that can be told to misbehave the ways an origin does: lie about the range,
 * ignore Range, end the body early, or change the object (new ETag and bytes) from the n-th request on.
 * It counts requests and body bytes sent per path.
 */
public final class RangeOrigin implements AutoCloseable {
    public enum Fault {
        NONE,
        /** Content-Range and Content-Length say one byte more than the slice asked for (the body has it too). */
        WRONG_RANGE,
        /** Content-Range names the bytes one further on than asked for (same length; the body is the asked ones). */
        SHIFTED_RANGE,
        /** 200 with the whole object, whatever the Range. */
        IGNORE_RANGE,
        /** Announces the full length, sends half of it and closes the connection. */
        SHORT_BODY,
        /** 500 with no body: the origin fails. */
        ERROR_500,
        /** 451 with no body: the object is taken down (the origin's word on it, not a failure). */
        TAKEN_DOWN_451
    }

    private record VirtualObject(long length, int version, int changeFromRequest) {}

    private final Map<String, VirtualObject> objects = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> bytes = new ConcurrentHashMap<>();
    private final Map<String, Fault> faults = new ConcurrentHashMap<>();
    private final Map<String, String> cacheControl = new ConcurrentHashMap<>();
    private final long lastModified = (System.currentTimeMillis() / 1000 - 3600) * 1000;
    private volatile CountDownLatch gate = new CountDownLatch(0);
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final HttpServer server;

    public RangeOrigin() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 512);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** A virtual object of {@code length} bytes at {@code path}. */
    public void object(String path, long length) {
        objects.put(path, new VirtualObject(length, 1, Integer.MAX_VALUE));
    }

    /** From the {@code n}-th request for {@code path} on (counting from 1), the object is version 2. */
    public void changeFromRequest(String path, int n) {
        objects.computeIfPresent(path, (p, o) -> new VirtualObject(o.length, o.version, n));
    }

    public void cacheControl(String path, String value) {
        cacheControl.put(path, value);
    }

    public void fault(String path, Fault f) {
        faults.put(path, f);
    }

    /** Responses wait until {@link #release()}. */
    public void hold() {
        gate = new CountDownLatch(1);
    }

    public void release() {
        gate.countDown();
    }

    public int requests(String path) {
        AtomicInteger n = requests.get(path);
        return n == null ? 0 : n.get();
    }

    public long bytesSent(String path) {
        AtomicLong n = bytes.get(path);
        return n == null ? 0 : n.get();
    }

    /** Byte {@code i} of version {@code version} of the object at {@code path}. */
    public static byte byteAt(String path, int version, long i) {
        long x = i * 0x9E3779B97F4A7C15L + path.hashCode() * 31L + version * 0x632BE59BD9B4E019L;
        x ^= x >>> 29;
        return (byte) (x ^ (x >>> 17));
    }

    /** Bytes {@code from .. to - 1} of a version of the object, as the edge should serve them. */
    public static byte[] bytes(String path, int version, long from, long to) {
        byte[] b = new byte[(int) (to - from)];
        for (int i = 0; i < b.length; i++) b[i] = byteAt(path, version, from + i);
        return b;
    }

    private void handle(HttpExchange x) throws IOException {
        String path = x.getRequestURI().getRawPath();
        int n = requests.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
        try {
            gate.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        try (x) {
            VirtualObject o = objects.get(path);
            if (o == null) {
                String cc = cacheControl.get(path);
                if (cc != null) x.getResponseHeaders().add("Cache-Control", cc);
                x.sendResponseHeaders(404, -1);
                return;
            }
            int version = n >= o.changeFromRequest ? o.version + 1 : o.version;
            x.getResponseHeaders().add("ETag", "\"v" + version + "-" + Long.toHexString(o.length) + "\"");
            x.getResponseHeaders().add("Last-Modified", HttpDates.format(lastModified + version * 1000L));
            x.getResponseHeaders().add("Content-Type", "video/mp4");
            x.getResponseHeaders().add("Accept-Ranges", "bytes");
            String cc = cacheControl.get(path);
            if (cc != null) x.getResponseHeaders().add("Cache-Control", cc);
            Fault fault = faults.getOrDefault(path, Fault.NONE);
            if (fault == Fault.ERROR_500 || fault == Fault.TAKEN_DOWN_451) {
                x.sendResponseHeaders(fault == Fault.ERROR_500 ? 500 : 451, -1);
                return;
            }
            long from = 0;
            long to = o.length; // exclusive
            int status = 200;
            String range = x.getRequestHeaders().getFirst("Range");
            if (range != null && fault != Fault.IGNORE_RANGE && range.startsWith("bytes=")) {
                int dash = range.indexOf('-');
                from = Long.parseLong(range.substring(6, dash));
                String last = range.substring(dash + 1);
                to = last.isEmpty() ? o.length : Math.min(o.length, Long.parseLong(last) + 1);
                if (from >= o.length) {
                    x.getResponseHeaders().add("Content-Range", "bytes */" + o.length);
                    x.sendResponseHeaders(416, -1);
                    return;
                }
                if (fault == Fault.WRONG_RANGE) to = Math.min(o.length, to + 1);
                status = 206;
                long shift = fault == Fault.SHIFTED_RANGE ? 1 : 0;
                x.getResponseHeaders()
                        .add("Content-Range", "bytes " + (from + shift) + "-" + (to - 1 + shift) + "/" + o.length);
            }
            x.sendResponseHeaders(status, to - from);
            long end = fault == Fault.SHORT_BODY ? from + (to - from) / 2 : to;
            AtomicLong sent = bytes.computeIfAbsent(path, p -> new AtomicLong());
            OutputStream out = x.getResponseBody();
            byte[] buf = new byte[64 * 1024];
            try {
                for (long at = from; at < end; ) {
                    int len = (int) Math.min(buf.length, end - at);
                    for (int i = 0; i < len; i++) buf[i] = byteAt(path, version, at + i);
                    out.write(buf, 0, len);
                    sent.addAndGet(len);
                    at += len;
                }
                if (fault == Fault.SHORT_BODY) {
                    out.flush();
                    throw new IOException(
                            "cut on purpose"); // closing the exchange short of its length cuts the connection
                }
                out.close();
            } catch (IOException e) {
                // the client went away (or the cut above): the JDK server closes the connection
            }
        }
    }

    @Override
    public void close() {
        gate.countDown();
        server.stop(0);
        executor.shutdownNow();
    }
}
