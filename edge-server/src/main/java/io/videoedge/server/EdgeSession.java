package io.videoedge.server;

import io.videoedge.server.accesslog.AccessLine;
import io.videoedge.server.accesslog.AccessLog;
import io.videoedge.server.accesslog.AccessLogMark;
import io.videoedge.server.config.LimitsConfig;
import io.videoedge.server.guard.AddressCounts;
import io.videoedge.server.guard.Deadlines;
import io.videoedge.server.guard.Refusal;
import io.videoedge.server.guard.SendProgress;
import io.videoedge.server.guard.TcpInfo;
import io.videoedge.server.http.RejectedRequest;
import io.videoedge.server.http.RequestHeadParser;
import io.videoedge.server.http.Statuses;
import io.videoedge.server.nativelib.TlsIdleBuffers;
import io.videoedge.server.nativelib.TlsReadAhead;
import io.videoedge.server.resources.BufferPool;
import io.videoedge.server.send.Body;
import io.videoedge.server.send.BodyResponse;
import io.videoedge.server.send.HeadAndBodyItem;
import io.videoedge.server.send.Parkable;
import io.videoedge.server.tls.TlsSessionFacts;
import java.io.IOException;
import java.net.InetAddress;
import javax.net.ssl.SSLException;
import one.nio.http.HttpSession;
import one.nio.http.Request;
import one.nio.http.Response;
import one.nio.net.Session;
import one.nio.net.Socket;
import one.nio.net.SocketClosedException;
import one.nio.net.SslOption;

/**
 * One client connection. It replaces one-nio's request-head parser with {@link RequestHeadParser},
 * which enforces the configured limits (414 for a long target, 431 for a large head, 400 for
 * malformed lines, 405 for other methods), and keeps ordering: a refused request is queued like any
 * other, so its error goes out after the responses to earlier pipelined requests. Bodies that are not byte arrays
 * ({@link BodyResponse}) are written after the head with sendfile, or through a pooled buffer when
 * TLS is done in user space.
 *
 * <p>The defences' state lives here and is read by the {@link ConnectionGuard} thread, which asks
 * {@link #overrun} and resets what overran ({@link #abort}); the decisions are {@link Deadlines} and
 * {@link SendProgress}.
 */
final class EdgeSession extends HttpSession {
    /** one-nio's selector read buffer size (SelectorThread.BUFFER_SIZE), for reads off the selector. */
    private static final int READ_BUFFER = 64000;

    private final EdgeServer edge;
    private final long idleTimeout;
    private final int maxPipelined;
    private final LimitsConfig limits; // as at accept: the request rate cap's settings
    private final Deadlines deadlines;
    private final SendProgress sendProgress; // touched by the guard thread only
    private final long acceptedAt;
    private final InetAddress address; // counted in `addresses` while open; null when not counted
    private final AddressCounts addresses;
    private boolean addressReleased;
    private int inFlight; // requests received since the write queue was last empty (bounded pipelining)
    /**
     * The start of a line that a read cut off, kept for the next read: made the first time a head
     * arrives in pieces, which most connections never do (an idle connection's heap is then one-nio's
     * 2 KiB fragment buffer and this session's few objects, not 8 KiB more: edge-server/README.md,
     * "Memory per connection").
     */
    private byte[] pending;

    private final int pendingCapacity;
    private int pendingLength;

    private final RequestHeadParser head;
    /** When the head being received started (the first: the accept), 0 when none is; read by the guard. */
    private volatile long headStartedAt;
    /** Plain TCP, or the TLS handshake completed; read by the guard. */
    private volatile boolean handshakeDone;
    /** Bytes the socket took from the write loop; read by the guard (slow readers). */
    private volatile long sentBytes;
    /**
     * The write queue waits for the origin, not the client (see processWrite); read by the guard. Set
     * as soon as a write has caught up with the origin, even if that write also filled the socket:
     * the slow-reader rule then lapses until the origin's next chunk, whose first write finds the
     * socket full and listens for writability, unparked.
     */
    private volatile boolean parked;

    private long bodyToSkip;
    private boolean refusingInput;
    private boolean draining;
    private boolean clientClosed;
    private final boolean overLimit;
    /** OpenSSL reads ahead on this connection: records may wait inside it after a read. */
    private final boolean readAhead;
    /** A read stopped without asking OpenSSL for more: records may wait inside it. */
    private boolean recordsMayWait;

    private TlsSessionFacts tls;
    private String client; // the peer's address, for the access log; looked up once
    private long handlingSinceMillis; // when the request in hand started being handled (access log only)
    private long handlingSinceNanos;
    private Session.QueueItem bodyItem; // the queue item of the body being written, for the access log
    /** Handed to a fill when the session parks: one instance, not a new method reference per park. */
    private final Runnable resumeWrite = this::resumeWrite;

    /**
     * @param address the client's address, already counted in {@code addresses} (released on close), or null
     */
    EdgeSession(
            Socket socket,
            EdgeServer edge,
            LimitsConfig limits,
            boolean overLimit,
            InetAddress address,
            AddressCounts addresses) {
        super(socket, edge);
        this.overLimit = overLimit;
        this.edge = edge;
        this.head = new RequestHeadParser(limits.maxHeaderSize, limits.maxUriLength);
        this.idleTimeout = limits.idleTimeout;
        this.maxPipelined = limits.maxPipelined;
        this.limits = limits;
        this.deadlines = new Deadlines(limits.headerTimeout, limits.handshakeTimeout);
        this.sendProgress = new SendProgress(limits.minSendBytes, limits.minSendPeriod);
        this.pendingCapacity = limits.maxHeaderSize + 64;
        this.address = address;
        this.addresses = addresses;
        this.acceptedAt = lastAccessTime;
        this.headStartedAt = acceptedAt; // the first request's head is due headerTimeout after the accept
        this.handshakeDone = !isSsl();
        this.readAhead = isSsl() && TlsReadAhead.enable(socket);
        if (isSsl()) {
            TlsIdleBuffers.release(socket);
        }
    }

    // ---- reading and parsing ----

    /**
     * Reads and parses what arrived. With OpenSSL read-ahead ({@link TlsReadAhead}) one read may leave
     * further records inside OpenSSL, which epoll does not report: they are read before returning
     * while nothing waits to be written. When a response waits (a session does not read ahead of its
     * writes), or the read gave no bytes (a handshake step, the end of early data, half a record), they
     * are looked for again at the end of the event or by the write that empties the queue
     * ({@link #readWaitingRecords}).
     */
    @Override
    protected void processRead(byte[] buffer) throws IOException {
        if (!readAhead) {
            readOnce(buffer);
            return;
        }
        while (true) {
            int read = readOnce(buffer);
            if (read == 0 || queueHead != null) {
                recordsMayWait = true;
                return;
            }
            if (refusingInput || !socket.isOpen() || !TlsReadAhead.buffered(socket)) {
                return;
            }
        }
    }

    @Override
    public synchronized void process(byte[] buffer) throws Exception {
        super.process(buffer);
        readWaitingRecords(buffer);
    }

    /**
     * Once the write queue is empty, the records OpenSSL may hold (see {@link #processRead}), read
     * once more; nothing to do, and no native call, after a read that already asked.
     *
     * @param buffer a read buffer, or null off the selector (one is made in that rare case)
     */
    private void readWaitingRecords(byte[] buffer) throws IOException {
        if (!recordsMayWait || queueHead != null) {
            return;
        }
        recordsMayWait = false;
        if (!refusingInput && socket.isOpen() && TlsReadAhead.buffered(socket)) {
            processRead(buffer != null ? buffer : new byte[READ_BUFFER]);
        }
    }

    /** One read and the parse of what it gave; returns the bytes read, 0 when nothing more can be now. */
    private int readOnce(byte[] buffer) throws IOException {
        int length = pendingLength;
        if (length > 0) {
            System.arraycopy(pending, 0, buffer, 0, length);
        }
        int read;
        try {
            read = read(buffer, length, buffer.length - length);
        } catch (SocketClosedException e) {
            handleSocketClosed();
            return 0;
        } finally {
            if (!handshakeDone && handshakeDone()) {
                handshakeDone = true;
            }
        }
        length += read;
        if (refusingInput) {
            pendingLength = 0; // after a refused request nothing more is parsed on this connection
            return 0;
        }
        int consumed = parse(buffer, length);
        int rest = length - consumed;
        if (rest > 0) {
            if (pending == null) pending = new byte[pendingCapacity];
            System.arraycopy(buffer, consumed, pending, 0, rest);
        }
        pendingLength = rest;
        return read;
    }

    /** Consumes complete lines (and skipped body bytes); returns how many bytes were used. */
    private int parse(byte[] b, int length) throws IOException {
        int pos = 0;
        while (pos < length && !refusingInput) {
            if (bodyToSkip > 0) {
                int n = (int) Math.min(bodyToSkip, length - pos);
                pos += n;
                bodyToSkip -= n;
                if (bodyToSkip == 0) {
                    headStartedAt = 0; // a skipped body is part of its request's deadline
                }
                continue;
            }
            if (!head.inHead() && headStartedAt == 0) {
                headStartedAt = System.currentTimeMillis(); // any byte (empty lines too) starts the next head
            }
            int nl = indexOfNewline(b, pos, length);
            if (nl < 0) {
                RequestHeadParser.Refused tooLong = head.incomplete(length - pos);
                if (tooLong != null) {
                    refuse(tooLong.rejection());
                }
                return refusingInput ? length : pos;
            }
            int lineLength = nl - pos;
            if (lineLength > 0 && b[nl - 1] == '\r') lineLength--;
            if (overLimit && !head.inHead() && lineLength > 0) {
                refuse(new RejectedRequest(
                        0, Response.SERVICE_UNAVAILABLE, "limits.maxConnections reached", true, true));
                break;
            }
            switch (head.line(b, pos, lineLength)) {
                case RequestHeadParser.Continue c -> {}
                case RequestHeadParser.Started started -> markEarlyData(started.request());
                case RequestHeadParser.Complete complete -> {
                    bodyToSkip = complete.bodyLength(); // a small body (e.g. on a refused POST) is read and dropped
                    if (bodyToSkip == 0) {
                        headStartedAt = 0;
                    }
                    parsing = complete.request();
                    handleParsedRequest();
                }
                case RequestHeadParser.Refused refused -> refuse(refused.rejection());
            }
            pos = nl + 1;
        }
        return refusingInput ? length : pos;
    }

    /** tls is known only once the handshake is done, and then no request is early data. */
    private void markEarlyData(Request request) {
        if (isSsl()
                && tls == null
                && Boolean.TRUE.equals(socket.getSslOption(SslOption.SESSION_EARLYDATA_ACCEPTED))
                && !handshakeDone()) {
            request.addHeader("Early-Data: 1"); // RFC 8470, as one-nio's own parser marks it
            edge.metrics().earlyDataRequest();
        }
    }

    /** Queues a refused request behind any in flight and stops reading this connection. */
    private void refuse(RejectedRequest r) throws IOException {
        refusingInput = true;
        bodyToSkip = 0;
        parsing = r;
        handleParsedRequest();
    }

    private static int indexOfNewline(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] == '\n') return i;
        }
        return -1;
    }

    // ---- writing ----

    /** A {@link BodyResponse}'s body is released here unless a queue item took it over (HEAD, errors, a closed connection). */
    @Override
    public synchronized void sendResponse(Response response) throws IOException {
        try {
            Request request = this.handling;
            if (request == null) {
                throw new IOException("Out of order response");
            }
            server.incRequestsProcessed();
            edge.metrics().request(request.getMethod(), response.getStatus());

            // while draining, answer what was already received, then close
            boolean keepAlive = keepAlive(request) && !(draining && pipeline.isEmpty());
            response.addHeader(keepAlive ? "Connection: keep-alive" : "Connection: close");
            boolean includeBody = request.getMethod() != Request.METHOD_HEAD;
            if (isSsl()) {
                tlsFacts(); // counts the session (videoedge_tls_sessions_total) at its first response
            }
            AccessLog accessLog = edge.accessLog();
            AccessLine line =
                    accessLog != null && accessLog.sampled() ? accessLine(request, response, includeBody) : null;
            bodyItem = null;
            try {
                writeResponse(response, includeBody);
            } catch (IOException e) {
                if (line != null) {
                    line.finish(0, false, System.nanoTime());
                    accessLog.offer(line);
                }
                throw e;
            }
            if (line != null) {
                write(new AccessLogMark(accessLog, line, bodyItem));
            }
            if (!keepAlive) {
                // the last response on this connection (RFC 9112 9.6): nothing after it is parsed or
                // answered; an answer written behind it would fail on the closing socket and take
                // this response's unsent body with it
                refusingInput = true;
                bodyToSkip = 0;
                pipeline.clear();
                this.handling = null;
                scheduleClose();
                return;
            }
            if ((this.handling = request = pipeline.pollFirst()) != null) {
                if (request == FIN) {
                    scheduleClose();
                } else {
                    startHandling();
                    server.handleRequest(request, this);
                }
            }
        } finally {
            if (response instanceof BodyResponse br) {
                br.discardIfNotSent();
            }
        }
    }

    /**
     * Bounded pipelining: a request that arrives while earlier responses have not left (still in the
     * pipeline or the write queue) is one more in flight; more than {@code limits.maxPipelined} in flight
     * behind the first makes the next one a 429 (after the earlier responses) and closes the connection.
     * A client that waits for each response never has one in flight: its previous response has left.
     */
    @Override
    protected void handleParsedRequest() throws IOException {
        if (handling == null && queueHead == null) {
            inFlight = 0; // everything answered has left
        }
        if (handling == null) {
            startHandling();
        }
        if (++inFlight > maxPipelined + 1 && !(parsing instanceof RejectedRequest)) {
            edge.metrics().refusedConnection(Refusal.PIPELINE.label);
            refuse(RejectedRequest.after(
                    parsing, Statuses.TOO_MANY_REQUESTS, "more than " + maxPipelined + " pipelined requests", true, 1));
            return;
        }
        long wait = parsing instanceof RejectedRequest ? 0 : edge.requestRateWait(address, limits);
        if (wait > 0) {
            // over limits.maxRequestRate: this request is answered 429, the connection stays usable
            edge.metrics().refusedRequest("request_rate");
            RejectedRequest limited = RejectedRequest.after(
                    parsing, Statuses.TOO_MANY_REQUESTS, "over limits.maxRequestRate", false, wait);
            // unless the client asked to close it: the request's Connection header goes with the 429, so
            // that sendResponse closes after it as after any response (Connection: close, HTTP/1.0
            // without keep-alive)
            String connection = parsing.getHeader("Connection:");
            if (connection != null) limited.addHeader("Connection: " + connection);
            parsing = limited;
        }
        super.handleParsedRequest();
    }

    private void startHandling() {
        if (edge.accessLog() != null) {
            handlingSinceMillis = System.currentTimeMillis();
            handlingSinceNanos = System.nanoTime();
        }
    }

    /** What the access log says of this response; its bytes and duration are filled when it left. */
    private AccessLine accessLine(Request request, Response response, boolean includeBody) {
        if (client == null) {
            client = String.valueOf(getRemoteHost());
        }
        long bodyLength = !includeBody
                ? 0
                : response instanceof BodyResponse br
                        ? br.body().length()
                        : response.getBody() == null ? 0 : response.getBody().length;
        TlsSessionFacts t = isSsl() ? tlsFacts() : null;
        // a request refused before its head was parsed has no method or path of its own
        boolean unparsed = request instanceof RejectedRequest r && !r.parsed();
        String method = unparsed ? "-" : methodName(request.getMethod());
        String path = unparsed || request.getURI() == null ? "-" : request.getPath();
        return new AccessLine(
                handlingSinceMillis,
                handlingSinceNanos,
                client,
                method,
                path,
                response.getStatus(),
                bodyLength,
                response.getHeader("X-Cache:"),
                t == null ? null : t.protocol(),
                t != null && t.kernelTls());
    }

    private static String methodName(int method) {
        return switch (method) {
            case Request.METHOD_GET -> "GET";
            case Request.METHOD_HEAD -> "HEAD";
            case Request.METHOD_POST -> "POST";
            case Request.METHOD_PUT -> "PUT";
            case Request.METHOD_DELETE -> "DELETE";
            case Request.METHOD_OPTIONS -> "OPTIONS";
            case Request.METHOD_PATCH -> "PATCH";
            default -> "OTHER";
        };
    }

    private static boolean keepAlive(Request request) {
        String connection = request.getHeader("Connection:");
        if (request.isHttp11()) {
            return connection == null || !connection.regionMatches(true, 0, "close", 0, 5);
        }
        return connection != null && connection.regionMatches(true, 0, "keep-alive", 0, 10);
    }

    @Override
    protected void writeResponse(Response response, boolean includeBody) throws IOException {
        if (!(response instanceof BodyResponse br)) {
            super.writeResponse(response, includeBody);
            return;
        }
        byte[] head = response.toBytes(false);
        Body body = br.body();
        if (!includeBody || body.length() == 0) {
            super.write(head, 0, head.length);
            return;
        }
        boolean kernelSend = kernelSend();
        BufferPool pool = edge.bufferPool();
        if (HeadAndBodyItem.fits(head, body, pool)) {
            br.handedOver();
            HeadAndBodyItem item = HeadAndBodyItem.of(head, body, isSsl(), pool, edge.metrics());
            bodyItem = item;
            write(item);
            return;
        }
        // MSG_MORE: the head waits for the first body bytes instead of leaving in its own packet (a
        // miss's too: sent alone, it cost the clients a wake-up per response, PERFORMANCE.md "Misses: the
        // first byte waited for the selector")
        super.write(head, 0, head.length, kernelSend && !isSsl() ? Socket.MSG_MORE : 0);
        Session.QueueItem item = body.toQueueItem(kernelSend, pool, edge.metrics());
        br.handedOver();
        bodyItem = item;
        writeBody(item);
    }

    /**
     * Writes a body item as one-nio's {@code write} would, but through this session's write loop
     * ({@link #processWrite}), so that a body whose data is still on its way from the origin parks at
     * once, on the thread that wrote the head, without listening for writability first. One-nio's
     * {@code write} leaves an unfinished item listening for writability: an {@code epoll_ctl} that
     * wakes the selector, which then waits for this session's lock while a fill thread writes a miss's
     * head, and a second {@code epoll_ctl} to park afterwards; on a machine whose threads share a CPU
     * these sat between the origin's first byte and the client's (edge-server/PERFORMANCE.md, "Slice
     * misses: the answer without the selector"). Without parking at once the selector would park it
     * only when it next ran, and the first body bytes, with the head held back for them, would wait
     * for it ("Misses: the first byte waited for the selector").
     */
    private void writeBody(Session.QueueItem item) throws IOException {
        if (queueHead != null || closing) {
            write(item); // behind a head the socket had no room for, or refused as one-nio refuses it
            return;
        }
        queueHead = item;
        lastAccessTime = System.currentTimeMillis();
        try {
            processWrite();
        } catch (Exception e) {
            if (queueHead == item) {
                queueHead = null; // as one-nio's write: the failed item is released here, not queued
                item.release();
            }
            if (e instanceof IOException io) throw io;
            if (e instanceof RuntimeException r) throw r;
            throw new IOException(e);
        }
    }

    /**
     * One-nio's write loop, plus parking: an item whose data is still arriving from the origin
     * ({@link Parkable}) and has caught up with it stops the session from listening for
     * writability (which would spin) until the fill wakes it through {@link #resumeWrite()}. It
     * parks as soon as a write caught up, not after one more write that finds nothing: listening for
     * writability in between would cost, per chunk the origin sends, a selector wake-up and two
     * epoll_ctl calls for a write of zero bytes.
     */
    @Override
    protected void processWrite() throws Exception {
        parked = false;
        for (QueueItem item = queueHead; item != null; queueHead = item = item.next()) {
            int written = item.write(socket);
            if (written > 0) {
                sentBytes += written; // only this thread (under the session's lock) writes it
            }
            if (item.remaining() > 0) {
                if (written >= 0 && item instanceof Parkable p && p.starved() && p.parkUnlessReady(resumeWrite)) {
                    parked = true;
                    listen(clientClosed ? 0 : READABLE);
                } else {
                    listen(written >= 0 ? WRITEABLE : SSL | READABLE);
                }
                return;
            }
            item.release();
        }
        if (closing) {
            close();
        } else {
            listen(READABLE);
        }
    }

    /**
     * Called by a fill when more data arrived: the fill's thread writes it now (sockets are
     * non-blocking; one-nio sessions may be written from any thread under their lock). Waking the
     * selector instead would cost a thread hand-off per chunk, which under CPU contention costs
     * milliseconds each; the selector takes over only when the socket is full.
     */
    private void resumeWrite() {
        synchronized (this) {
            if (!socket.isOpen() || queueHead == null) {
                return;
            }
            try {
                long sent = sentBytes;
                processWrite();
                if (sentBytes != sent) {
                    // progress for limits.idleTimeout: written here, with no selector event (which
                    // is what refreshes it on the selector's own writes)
                    lastAccessTime = System.currentTimeMillis();
                }
                readWaitingRecords(null); // pipelined over TLS behind a fill
            } catch (Exception e) {
                handleException(e);
            }
        }
    }

    @Override
    protected void handleSocketClosed() {
        clientClosed = true;
        super.handleSocketClosed();
    }

    /** sendfile is possible on plain TCP, and on TLS only when the kernel took over the session (kTLS). */
    private boolean kernelSend() {
        if (!isSsl()) {
            return true;
        }
        TlsSessionFacts t = tlsFacts();
        return t != null && t.kernelTls(); // null: early data, the handshake (and any kTLS switch) is not done yet
    }

    /** The TLS session's facts, read once the handshake is done; null before (early data). */
    private TlsSessionFacts tlsFacts() {
        if (tls == null && handshakeDone()) {
            tls = TlsSessionFacts.of(socket);
            edge.tlsSessionStarted(tls);
        }
        return tls;
    }

    // ---- lifecycle ----

    /**
     * Idle keep-alive connections go after {@code keepAlive} (one-nio's cleanup period); a connection
     * with a response in flight goes when it made no progress (a selector event, bytes a fill's thread
     * wrote) for {@code limits.idleTimeout}, and one whose request head started that long ago.
     */
    @Override
    public int checkStatus(long currentTime, long keepAlive) {
        long last = lastAccessTime;
        if (queueHead != null || handling != null) {
            return last < currentTime - idleTimeout ? STALE : ACTIVE;
        }
        long started = headStartedAt;
        if (started != 0 && started < currentTime - idleTimeout) {
            return STALE;
        }
        return keepAlive > 0 && last < currentTime - keepAlive ? IDLE : ACTIVE;
    }

    /**
     * The defence this connection has overrun at {@code now}, or null: a deadline ({@link Deadlines}),
     * or the slow-reader rule ({@link SendProgress}) while a response waits for the client. Called by
     * the {@link ConnectionGuard} thread only; reads volatile state (and TCP_INFO while a response is
     * pending), takes no lock.
     */
    Refusal overrun(long now) {
        Refusal r = deadlines.overrun(now, acceptedAt, handshakeDone, headStartedAt);
        if (r != null) {
            return r;
        }
        boolean pending = queueHead != null && !parked;
        return sendProgress.observe(now, pending, pending ? bytesTaken() : 0);
    }

    /**
     * What the client has taken so far: the bytes its kernel acknowledged (TCP_INFO), which follow its
     * reads closely; where the kernel cannot say, the bytes the write loop handed to the socket (these
     * advance only when half the send buffer has drained, so a slow but steady reader with a large
     * buffer looks slower than it is).
     */
    private long bytesTaken() {
        long acked = TcpInfo.bytesAcked(socket.getOption(Socket.SOL_TCP, Socket.TCP_INFO));
        return acked >= 0 ? acked : sentBytes;
    }

    /** struct linger {l_onoff 1, l_linger 0}: close() resets the connection and drops unsent data. */
    private static final byte[] LINGER_ZERO = {1, 0, 0, 0, 0, 0, 0, 0};

    /**
     * Cuts the connection with a reset: what the socket still holds for the client is dropped at once.
     * A plain close would leave the kernel sending up to {@code sendBuf} more to a slow reader (an
     * orphaned socket holds that memory until the data is out or it times out).
     */
    synchronized void abort() {
        if (socket.isOpen()) { // under the lock: the descriptor is still this connection's
            socket.setOption(Socket.SOL_SOCKET, Socket.SO_LINGER, LINGER_ZERO);
        }
        close();
    }

    /** Closes the connection and gives its place in the per-address count back (once). */
    @Override
    public synchronized void close() {
        super.close();
        if (address != null && !addressReleased) {
            addressReleased = true;
            addresses.release(address);
        }
    }

    /** Graceful shutdown: close now if nothing is in flight, else after the current response. */
    synchronized void drain() {
        draining = true;
        if (queueHead == null && handling == null) {
            close();
        }
    }

    @Override
    public void handleException(Throwable e) {
        edge.sessionFailed(this, e);
        close();
    }

    /**
     * A TLS error before the handshake completed. A client that connects and closes (a TCP health
     * check) is not one: OpenSSL 3 reports it as "unexpected eof while reading".
     */
    boolean failedInHandshake(Throwable e) {
        return e instanceof SSLException
                && isSsl()
                && tls == null
                && !String.valueOf(e.getMessage()).contains("unexpected eof")
                && !handshakeDone();
    }

    /** Asks OpenSSL; callers check {@code tls == null} first, which is set once the handshake is known done. */
    private boolean handshakeDone() {
        return Boolean.TRUE.equals(socket.getSslOption(SslOption.SESSION_HANDSHAKE_DONE));
    }

    String remoteHost() {
        return getRemoteHost();
    }
}
