package io.videoedge.server.origin;

import io.videoedge.server.config.OriginConfig;
import io.videoedge.server.resources.BufferPool;
import java.io.IOException;
import java.net.ProtocolException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import one.nio.net.ConnectionString;
import one.nio.net.Socket;
import one.nio.net.SocketClosedException;
import one.nio.net.SslContext;
import one.nio.pool.PoolException;
import one.nio.pool.SocketPool;

/**
 * HTTP/1.1 to the origin, plain or over TLS ({@link OriginTls}: chain and host name verified), over one-nio's SocketPool (pooled keep-alive native sockets, bounded by
 * origin.maxConnections, connect and read timeouts). One-nio's HttpClient reads whole bodies into
 * heap byte arrays; this client streams: the response head is copied to the heap for parsing, the
 * body is read with readRaw into a pooled direct buffer and handed on from there.
 * Blocking; runs on the fill threads, never on a selector.
 */
public final class OriginClient {
    /** The longest response head taken from an origin (nginx's default proxy buffer is 4-8 KiB). */
    static final int MAX_HEAD = 64 * 1024;

    private final SocketPool pool;
    private final SslContext tls; // null for http://
    private final String hostHeader;
    private final String basePath;
    private final BufferPool buffers;
    private final long bufferWait;

    public OriginClient(OriginConfig config, BufferPool buffers) throws IOException {
        this(config, config.url, buffers);
    }

    /** A client for {@code url} (one of the config's origins) with the config's timeouts, pool size and CA file. */
    public OriginClient(OriginConfig config, String url, BufferPool buffers) throws IOException {
        URI uri = URI.create(url);
        boolean https = "https".equals(uri.getScheme());
        int port = uri.getPort() > 0 ? uri.getPort() : https ? 443 : 80;
        // the pool waits up to connectTimeout for a free connection when all maxConnections are busy
        ConnectionString conn = new ConnectionString("http://" + uri.getHost() + ":" + port
                + "?clientMaxPoolSize=" + config.maxConnections + "&connectTimeout=" + config.connectTimeout
                + "&readTimeout=" + config.readTimeout + "&timeout=" + config.connectTimeout);
        if (https) {
            this.tls = OriginTls.context(config.caFile);
            String host = uri.getHost();
            this.pool = new SocketPool(conn) {
                @Override
                public Socket createObject() throws PoolException {
                    Socket socket = super.createObject(); // connected, handshake done, chain verified
                    try {
                        OriginTls.verifyHost(socket, host);
                    } catch (IOException e) {
                        socket.close();
                        throw new PoolException(name() + " createObject failed: " + e, e);
                    }
                    return socket;
                }
            };
            this.pool.setSslContext(tls);
        } else {
            this.tls = null;
            this.pool = new SocketPool(conn);
        }
        this.hostHeader = uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "");
        String p = uri.getRawPath() == null ? "" : uri.getRawPath();
        this.basePath = p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
        this.buffers = buffers;
        this.bufferWait = config.readTimeout;
    }

    /** Receives the body in slices of a pooled direct buffer. */
    public interface BodySink {
        void body(ByteBuffer buffer, int position, int length) throws IOException;
    }

    /**
     * One exchange: sends the request, parses the head, then {@link #readBody} streams the body.
     * Closing it returns the connection to the pool when it can be reused.
     */
    public final class Exchange implements AutoCloseable {
        private final Socket socket;
        private final BufferPool.Chunk chunk;
        private OriginHead head;
        private long requestedAt;
        private int bufferedFrom;
        private int bufferedTo;
        private boolean reusable;

        private Exchange(Socket socket, BufferPool.Chunk chunk) {
            this.socket = socket;
            this.chunk = chunk;
        }

        public OriginHead head() {
            return head;
        }

        /**
         * When the request that got this answer was sent (epoch ms): its answer is at least that old
         * (RFC 9111 4.2.3's response delay), whatever the waits for a buffer, a connection or an earlier
         * origin or attempt before it.
         */
        public long requestedAt() {
            return requestedAt;
        }

        private void readHead(boolean lastAttempt) throws IOException {
            ByteBuffer b = chunk.buffer();
            int limit = Math.min(b.capacity(), MAX_HEAD);
            int n = 0;
            while (true) {
                int r;
                try {
                    r = socket.readRaw(chunk.address() + n, limit - n, 0);
                } catch (SocketClosedException e) {
                    if (n == 0 && !lastAttempt) throw new StaleConnection();
                    throw new ProtocolException("origin closed the connection before a full response head");
                }
                int scanned = n;
                n += r;
                int end = OriginHead.endOfHead(b, scanned, n);
                if (end >= 0) {
                    byte[] copy = new byte[end]; // only the head is parsed on the heap, not the body bytes after it
                    b.get(0, copy);
                    head = OriginHead.parse(copy, end);
                    bufferedFrom = end;
                    bufferedTo = n;
                    return;
                }
                if (n == limit) throw new ProtocolException("origin response head larger than " + limit);
            }
        }

        /** Streams the body to the sink; returns its length. */
        public long readBody(BodySink sink) throws IOException {
            ByteBuffer b = chunk.buffer();
            long length = head.contentLength();
            boolean chunked = head.chunked();
            ChunkedDecoder decoder = chunked ? new ChunkedDecoder() : null;
            long total = 0;
            int from = bufferedFrom;
            int to = bufferedTo;
            while (true) {
                if (from < to) {
                    if (decoder != null) {
                        long[] got = {0};
                        decoder.feed(b, from, to, (pos, len) -> {
                            sink.body(b, pos, len);
                            got[0] += len;
                        });
                        total += got[0];
                        if (decoder.done()) break;
                    } else {
                        int len = (int) (length >= 0 ? Math.min(to - from, length - total) : to - from);
                        sink.body(b, from, len);
                        total += len;
                    }
                }
                if (decoder == null && length >= 0 && total >= length) break;
                int r;
                try {
                    r = socket.readRaw(chunk.address(), b.capacity(), 0);
                } catch (SocketClosedException e) {
                    if (decoder == null && length < 0) break; // close-delimited body ends here
                    throw new ProtocolException("origin closed the connection after " + total + " body bytes");
                }
                from = 0;
                to = r;
            }
            reusable = head.keepAlive() && (decoder != null || length >= 0);
            return total;
        }

        /** The response needs no body read (304, errors we do not relay): the connection is not reused. */
        public void abandon() {
            reusable = false;
        }

        @Override
        public void close() {
            buffers.release(chunk);
            if (reusable) {
                pool.returnObject(socket);
            } else {
                pool.invalidateObject(socket);
            }
        }
    }

    /** A pooled connection the origin had closed while idle: retried once on a fresh one. */
    static final class StaleConnection extends IOException {
        StaleConnection() {
            super("stale pooled connection");
        }
    }

    /**
     * Sends GET for {@code path} (plus conditional headers) and reads the response head.
     * @throws SocketTimeoutException connect or read timeout (504)
     * @throws IOException any other failure to get a response (502)
     */
    public Exchange get(String path, List<String> headers) throws IOException, InterruptedException {
        return get(path, headers, null);
    }

    /**
     * As {@link #get(String, List)}; {@code whileWaiting} (null: none) runs after the request is sent
     * and before its answer is read, once per attempt: work the caller needs anyway, done while the
     * origin prepares its answer instead of after it. It must not throw.
     */
    public Exchange get(String path, List<String> headers, Runnable whileWaiting)
            throws IOException, InterruptedException {
        BufferPool.Chunk chunk = buffers.acquire(bufferWait);
        if (chunk == null) {
            throw new IOException("no buffer free for an origin request");
        }
        try {
            for (int attempt = 0; ; attempt++) {
                Socket socket = borrow();
                Exchange x = new Exchange(socket, chunk);
                try {
                    byte[] request = request(path, headers);
                    x.requestedAt = System.currentTimeMillis();
                    socket.writeFully(request, 0, request.length);
                    if (whileWaiting != null) whileWaiting.run();
                    x.readHead(attempt > 0);
                    return x;
                } catch (StaleConnection | java.net.SocketException e) {
                    // an idle pooled connection the origin had closed (reset, broken pipe, EOF before any
                    // byte): GET is idempotent, so once more on another connection; timeouts are not retried
                    pool.invalidateObject(socket);
                    if (attempt > 0) throw e;
                    // the connections idle beside it are as old: an origin that closed this one (it
                    // restarted, or its keep-alive timeout passed) has likely closed them too, and the
                    // retry must not take one of them (OriginRestartIT)
                    pool.invalidateAll();
                } catch (IOException | RuntimeException e) {
                    pool.invalidateObject(socket);
                    throw e;
                }
            }
        } catch (IOException | RuntimeException | InterruptedException e) {
            buffers.release(chunk);
            throw e;
        }
    }

    private Socket borrow() throws IOException, InterruptedException {
        try {
            return pool.borrowObject();
        } catch (PoolException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) throw io; // ConnectException, SocketTimeoutException
            throw new IOException(e.getMessage(), e);
        }
    }

    private byte[] request(String path, List<String> headers) {
        StringBuilder sb = new StringBuilder(256);
        sb.append("GET ")
                .append(basePath)
                .append(path)
                .append(" HTTP/1.1\r\nHost: ")
                .append(hostHeader)
                .append("\r\nUser-Agent: videoedge\r\nAccept-Encoding: identity\r\n");
        for (String h : headers) sb.append(h).append("\r\n");
        return sb.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    public int busyConnections() {
        return pool.getBusyCount();
    }

    public void close() {
        pool.close();
        if (tls != null) tls.close();
    }
}
