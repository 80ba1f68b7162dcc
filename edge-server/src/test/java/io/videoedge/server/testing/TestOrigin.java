package io.videoedge.server.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.videoedge.server.http.HttpDates;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP origin on loopback (the JDK's HttpServer): deterministic objects by path, a request
 * counter per path, and switches for what an origin does wrong: hold responses until released,
 * hang, answer 500, go away and come back on the same port.
 */
public final class TestOrigin implements AutoCloseable {
    public enum Mode {
        NORMAL,
        HANG,
        ERROR_500
    }

    private final Map<String, byte[]> objects = new ConcurrentHashMap<>();
    private final Map<String, String> cacheControl = new ConcurrentHashMap<>();
    private final Map<String, String> setCookie = new ConcurrentHashMap<>();
    private final Map<String, String> vary = new ConcurrentHashMap<>();
    private final Map<String, Map<String, String>> headers = new ConcurrentHashMap<>();
    private final Map<String, Boolean> bareNotModified = new ConcurrentHashMap<>();
    private final Map<String, Integer> statuses = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> answered = new ConcurrentHashMap<>();
    private final Map<String, Boolean> chunked = new ConcurrentHashMap<>();
    private final Map<String, int[]> trickle = new ConcurrentHashMap<>();
    private final AtomicInteger total = new AtomicInteger();
    private final long lastModified = (System.currentTimeMillis() / 1000 - 3600) * 1000;
    private volatile Mode mode = Mode.NORMAL;
    private volatile boolean down;
    private volatile CountDownLatch gate = new CountDownLatch(0);
    private volatile CountDownLatch bodyGate = new CountDownLatch(0);
    private final AtomicInteger headsSent = new AtomicInteger();
    private final CountDownLatch hangForever = new CountDownLatch(1);
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private HttpServer server;
    private int port;

    public TestOrigin() throws IOException {
        start(0);
    }

    private void start(int onPort) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", onPort), 512);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
        port = server.getAddress().getPort();
    }

    public int port() {
        return port;
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** Registers an object of {@code size} seeded random bytes at {@code path}; returns its bytes. */
    public byte[] object(String path, int size) {
        byte[] data = new byte[size];
        new SplittableRandom(path.hashCode()).nextBytes(data);
        objects.put(path, data);
        return data;
    }

    public void cacheControl(String path, String value) {
        cacheControl.put(path, value);
    }

    /** Requests for {@code path} are answered {@code status} with no body (and its header and Cache-Control). */
    public void status(String path, int status) {
        statuses.put(path, status);
    }

    /** Responses for {@code path} carry {@code Set-Cookie: value}. */
    public void setCookie(String path, String value) {
        setCookie.put(path, value);
    }

    /** Responses for {@code path} carry {@code Vary: value}. */
    public void vary(String path, String value) {
        vary.put(path, value);
    }

    /** Responses for {@code path}, 200, 304 and a set status, carry {@code name: value} (one value per name). */
    public void header(String path, String name, String value) {
        headers.computeIfAbsent(path, p -> new ConcurrentHashMap<>()).put(name, value);
    }

    /** 304s for {@code path} carry no Cache-Control (its 200s still do). */
    public void bareNotModified(String path) {
        bareNotModified.put(path, true);
    }

    public void chunked(String path) {
        chunked.put(path, true);
    }

    /** The body of {@code path} goes out {@code bytes} at a time (each flushed), {@code pauseMillis} apart. */
    public void trickle(String path, int bytes, int pauseMillis) {
        trickle.put(path, new int[] {bytes, pauseMillis});
    }

    public int requests(String path) {
        AtomicInteger n = requests.get(path);
        return n == null ? 0 : n.get();
    }

    /** Requests for {@code path} whose response has been sent in full (a held one counts once released). */
    public int answered(String path) {
        AtomicInteger n = answered.get(path);
        return n == null ? 0 : n.get();
    }

    public int totalRequests() {
        return total.get();
    }

    public void mode(Mode m) {
        mode = m;
    }

    /** Responses wait until {@link #release()}. */
    public void hold() {
        gate = new CountDownLatch(1);
    }

    public void release() {
        gate.countDown();
    }

    /** 200 responses send their head, then wait until {@link #releaseBodies()} before the body. */
    public void holdBodies() {
        bodyGate = new CountDownLatch(1);
    }

    public void releaseBodies() {
        bodyGate.countDown();
    }

    /** 200 response heads sent (and flushed) so far. */
    public int headsSent() {
        return headsSent.get();
    }

    /**
     * The port closes: new connections are refused, and a kept-alive connection the JDK server has
     * not closed yet gets no answer either.
     */
    public void stop() {
        down = true;
        server.stop(0);
    }

    /** Back on the same port. */
    public void restart() throws IOException {
        start(port);
        down = false;
    }

    private void handle(HttpExchange x) throws IOException {
        if (down) {
            x.close(); // no response: the connection ends
            return;
        }
        String path = x.getRequestURI().getRawPath();
        requests.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
        total.incrementAndGet();
        try {
            if (mode == Mode.HANG) {
                hangForever.await();
                return;
            }
            gate.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        try (x) {
            respond(x, path);
        } finally {
            answered.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
        }
    }

    private void respond(HttpExchange x, String path) throws IOException {
        if (mode == Mode.ERROR_500) {
            x.sendResponseHeaders(500, -1);
            return;
        }
        Integer status = statuses.get(path);
        if (status != null) {
            headers.getOrDefault(path, Map.of()).forEach(x.getResponseHeaders()::add);
            String cc = cacheControl.get(path);
            if (cc != null) x.getResponseHeaders().add("Cache-Control", cc);
            x.sendResponseHeaders(status, -1);
            return;
        }
        byte[] body = objects.get(path);
        if (body == null) {
            x.sendResponseHeaders(404, -1);
            return;
        }
        String etag = "\"" + Integer.toHexString(java.util.Arrays.hashCode(body)) + "\"";
        x.getResponseHeaders().add("ETag", etag);
        x.getResponseHeaders().add("Last-Modified", HttpDates.format(lastModified));
        x.getResponseHeaders().add("Content-Type", "video/iso.segment");
        String cookie = setCookie.get(path);
        if (cookie != null) x.getResponseHeaders().add("Set-Cookie", cookie);
        String varies = vary.get(path);
        if (varies != null) x.getResponseHeaders().add("Vary", varies);
        headers.getOrDefault(path, Map.of()).forEach(x.getResponseHeaders()::add);
        String cc = cacheControl.get(path);
        boolean notModified = etag.equals(x.getRequestHeaders().getFirst("If-None-Match"));
        if (cc != null && !(notModified && bareNotModified.containsKey(path))) {
            x.getResponseHeaders().add("Cache-Control", cc);
        }
        if (notModified) {
            x.sendResponseHeaders(304, -1);
            return;
        }
        x.sendResponseHeaders(200, chunked.containsKey(path) ? 0 : body.length);
        CountDownLatch bodyGate = this.bodyGate;
        if (bodyGate.getCount() > 0) {
            x.getResponseBody().flush(); // the JDK server buffers the head until the body otherwise
        }
        headsSent.incrementAndGet();
        try {
            bodyGate.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        int[] slow = trickle.get(path);
        int step = slow == null ? 64 * 1024 : slow[0];
        try (OutputStream out = x.getResponseBody()) {
            for (int off = 0; off < body.length; off += step) {
                out.write(body, off, Math.min(step, body.length - off));
                if (slow != null) {
                    out.flush();
                    pause(slow[1]);
                }
            }
        }
    }

    @Override
    public void close() {
        hangForever.countDown();
        gate.countDown();
        bodyGate.countDown();
        server.stop(0);
        executor.shutdownNow();
    }

    private static void pause(int millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
