package io.videoedge.server;

import io.videoedge.server.accesslog.AccessLog;
import io.videoedge.server.admin.SocketsReport;
import io.videoedge.server.cache.CacheHandler;
import io.videoedge.server.cache.EdgeCache;
import io.videoedge.server.cache.Purge;
import io.videoedge.server.cache.PurgeResult;
import io.videoedge.server.config.EdgeServerConfig;
import io.videoedge.server.config.LimitsConfig;
import io.videoedge.server.content.ContentStore;
import io.videoedge.server.cpu.CpuList;
import io.videoedge.server.cpu.SelectorPinning;
import io.videoedge.server.guard.AddressCounts;
import io.videoedge.server.guard.Refusal;
import io.videoedge.server.guard.RequestRates;
import io.videoedge.server.http.RejectedRequest;
import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.nativelib.NativeRuntime;
import io.videoedge.server.resources.BufferPool;
import io.videoedge.server.signing.UrlSigning;
import io.videoedge.server.tls.KernelTls;
import io.videoedge.server.tls.KernelTlsStats;
import io.videoedge.server.tls.OpenSslCounters;
import io.videoedge.server.tls.SharedTicketKeys;
import io.videoedge.server.tls.TicketKeyKeeper;
import io.videoedge.server.tls.TicketKeyRotator;
import io.videoedge.server.tls.TicketKeys;
import io.videoedge.server.tls.TlsSessionFacts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import one.nio.http.HttpServer;
import one.nio.http.HttpSession;
import one.nio.http.Request;
import one.nio.net.Session;
import one.nio.net.Socket;
import one.nio.os.Proc;
import one.nio.server.AcceptorConfig;
import one.nio.server.RejectedSessionException;
import one.nio.server.SelectorThread;
import one.nio.server.ServerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The video edge: a one-nio HttpServer whose sessions are {@link EdgeSession}s and whose default
 * handler serves objects ({@link ContentHandler}). Selector threads are pinned to the CPUs this
 * process may use, in order, instead of one-nio's {@code i % availableProcessors()}.
 */
public final class EdgeServer extends HttpServer {
    private static final Logger log = LoggerFactory.getLogger(EdgeServer.class);

    /** The config in effect, as adjusted at start; replaced (never mutated) by {@link #reconfigure}. */
    private volatile EdgeServerConfig config;

    private final EdgeMetrics metrics;
    private final BufferPool bufferPool;
    private final ContentHandler content;
    private final int[] selectorCpus;
    private final AtomicBoolean firstTlsSessionLogged = new AtomicBoolean();
    private volatile boolean ready;
    private boolean stopping; // guarded by this: no reconfigure once the drain has begun

    private final EdgeCache cache;
    private TicketKeyKeeper ticketKeyRotator; // set once by create(), before the server starts: rotation or shared keys
    private AccessLog accessLog; // set once by create(), before the server starts; null when disabled
    private UrlSigning signing; // set once by create(); null without signedUrls
    private final AddressCounts addresses = new AddressCounts();
    private final RequestRates requestRates = new RequestRates(System.nanoTime());
    private ConnectionGuard guard; // from start() to stop()

    private EdgeServer(
            EdgeServerConfig config,
            Plan plan,
            EdgeMetrics metrics,
            BufferPool bufferPool,
            ContentStore store,
            EdgeCache cache,
            UrlSigning signing)
            throws IOException {
        super(config);
        this.config = config;
        this.metrics = metrics;
        this.bufferPool = bufferPool;
        this.cache = cache;
        this.content = new ContentHandler(store, cache == null ? null : new CacheHandler(cache), signing);
        this.selectorCpus = plan.cpus;
        if (plan.cpus != null) {
            pinSelectors(plan.cpus);
        }
        registerMetrics();
    }

    /**
     * Builds the server from a validated config. The config is adjusted first: the selector count is
     * resolved against the allowed CPUs, one-nio's own affinity is switched off (we pin), and ticket
     * keys are provisioned, because one-nio binds the ports and loads TLS material in its constructor.
     */
    public static EdgeServer create(EdgeServerConfig config, EdgeMetrics metrics, BufferPool bufferPool)
            throws IOException {
        int[] allowed = CpuList.allowedForThisProcess();
        Plan plan = plan(config, allowed);
        config.selectors = plan.selectors;
        config.affinity = false;
        if (ServerConfig.DEFAULT_SELECTOR_THREAD_NAME_FORMAT.equals(config.selectorThreadNameFormat)) {
            config.selectorThreadNameFormat = SelectorPinning.THREAD_NAME_FORMAT;
        }
        // what is opened before the server exists is closed again when a later step fails
        Deque<AutoCloseable> opened = new ArrayDeque<>();
        EdgeServer server;
        try {
            TicketKeyKeeper rotator = opened(opened, ticketKeys(config, metrics));
            UrlSigning signing = opened(opened, UrlSigning.start(config.signedUrls, metrics));
            ContentStore store = config.content != null && config.content.root != null
                    ? new ContentStore(Path.of(config.content.root), config.content.fileCacheValid)
                    : null;
            EdgeCache cache = opened(
                    opened,
                    config.origin != null ? EdgeCache.create(config.cache, config.origin, bufferPool, metrics) : null);
            server = new EdgeServer(config, plan, metrics, bufferPool, store, cache, signing);
            server.ticketKeyRotator = rotator;
            server.signing = signing;
        } catch (IOException | RuntimeException e) {
            closeAll(opened, e);
            throw e;
        }
        try {
            server.accessLog = AccessLog.start(config.accessLog);
        } catch (IOException | RuntimeException e) {
            server.stop();
            throw e;
        }
        if (server.accessLog != null) {
            AccessLog l = server.accessLog;
            metrics.counters(
                    "videoedge_access_log_lines_total",
                    "Access log lines by result: written, dropped (the queue was full; a selector never waits), failed (the output refused them)",
                    List.of("result"),
                    () -> Map.of(
                            List.of("written"), (double) l.written(),
                            List.of("dropped"), (double) l.dropped(),
                            List.of("failed"), (double) l.failed()));
        }
        log.atInfo()
                .addKeyValue("selectors", plan.selectors)
                .addKeyValue("allowedCpus", CpuList.format(allowed))
                .addKeyValue("plannedCpus", plan.cpus == null ? "none" : CpuList.format(plan.cpus))
                .log(plan.cpus == null ? "selectors not pinned" : "selectors will be pinned to allowed CPUs");
        return server;
    }

    private record Plan(int selectors, int[] cpus) {}

    /**
     * Session ticket keys, before one-nio loads them: with {@code ticketKeys.rotation} the keys of every
     * {@code ssl.ticketDir} are rotated on schedule (the first step now, so the directory holds a current
     * key); without it an empty directory gets one key for this process.
     */
    private static TicketKeyKeeper ticketKeys(EdgeServerConfig config, EdgeMetrics metrics) throws IOException {
        java.util.Set<Path> dirs = new java.util.LinkedHashSet<>();
        for (AcceptorConfig a : config.acceptors) {
            if (a.ssl != null && a.ssl.ticketDir != null) dirs.add(Path.of(a.ssl.ticketDir));
        }
        if (dirs.isEmpty()) {
            return null;
        }
        if (config.ticketKeys != null && config.ticketKeys.source != null) {
            return SharedTicketKeys.start(
                    Path.of(config.ticketKeys.source),
                    List.copyOf(dirs),
                    config.ticketKeys.poll,
                    metrics::ticketKeyRotation);
        }
        long rotation = config.ticketKeys == null ? 0 : config.ticketKeys.rotation;
        if (rotation > 0) {
            for (AcceptorConfig a : config.acceptors) {
                long lifetime = a.ssl == null || a.ssl.ticketDir == null ? 0 : sessionLifetimeMillis(a.ssl.timeout);
                if (lifetime > rotation) {
                    log.atWarn()
                            .addKeyValue("sessionTimeoutMs", lifetime)
                            .addKeyValue("rotationMs", rotation)
                            .log(
                                    "ssl.timeout is longer than ticketKeys.rotation: a ticket may stop resuming before it expires");
                }
            }
            return TicketKeyRotator.start(List.copyOf(dirs), rotation, metrics::ticketKeyRotation);
        }
        for (Path dir : dirs) {
            if (TicketKeys.ensure(dir)) {
                log.atWarn()
                        .addKeyValue("ticketDir", dir.toString())
                        .log(
                                "no session ticket keys found and ticketKeys.rotation is 0: generated one key for this process, never rotated");
            }
        }
        return null;
    }

    /** one-nio's session timeout: {@code ssl.timeout} in milliseconds, 0 for its default of 300 s. */
    private static long sessionLifetimeMillis(long timeout) {
        return timeout != 0 ? timeout : 300_000;
    }

    private static Plan plan(EdgeServerConfig config, int[] allowed) {
        // 0: one per CPU we may run on; availableProcessors() also honours a CPU quota without a cpuset
        int selectors = config.selectors > 0
                ? config.selectors
                : Math.min(allowed.length, Runtime.getRuntime().availableProcessors());
        boolean pin = config.affinity && Proc.IS_SUPPORTED;
        if (config.affinity && !Proc.IS_SUPPORTED) {
            log.warn("affinity requested but the native library is not loaded: selectors are not pinned");
        }
        return new Plan(selectors, pin ? CpuList.plan(selectors, allowed) : null);
    }

    /** Replaces the (not yet started) selector threads by ones that pin themselves to our CPU plan. */
    private void pinSelectors(int[] cpus) throws IOException {
        SelectorThread[] previous = this.selectors;
        SelectorThread[] pinned = new SelectorThread[previous.length];
        for (int i = 0; i < previous.length; i++) {
            pinned[i] = new SelectorThread(i, cpus[i], config.schedulingPolicy, config.formatSelectorThreadName(i));
            pinned[i].setPriority(config.threadPriority);
            previous[i].selector.close();
        }
        this.selectors = pinned;
        cleanup.update(pinned, config.keepAlive);
    }

    /**
     * Applies a new config to the running server without dropping a connection. The caller
     * ({@link ConfigReloader}) has checked with {@code LiveFields} that every difference from the running
     * config is live; this applies it with the same adjustments as at start, so nothing set up there is
     * undone: the running (resolved, pinned) selector count, because one-nio would add unpinned
     * selectors for a larger one; affinity off, because we pin ourselves; our selector thread names; and
     * each listener's running {@code ssl} section, the very object one-nio's SslContext holds, so TLS
     * material is not reloaded. If one-nio fails half way, the previous config is applied again.
     */
    @Override
    public synchronized void reconfigure(ServerConfig update) throws IOException {
        if (stopping) {
            throw new IllegalStateException("the server is draining: not reconfiguring");
        }
        if (!(update instanceof EdgeServerConfig next)) {
            throw new IllegalArgumentException(
                    "an EdgeServerConfig is needed, got " + update.getClass().getName());
        }
        EdgeServerConfig running = this.config;
        if (next.acceptors == null || next.acceptors.length != running.acceptors.length) {
            throw new IllegalArgumentException("acceptors cannot be added or removed live");
        }
        for (int i = 0; i < next.acceptors.length; i++) {
            AcceptorConfig a = next.acceptors[i];
            AcceptorConfig r = running.acceptors[i];
            if (a.port != r.port
                    || !a.address.equals(r.address)
                    || a.threads != r.threads
                    || (a.ssl == null) != (r.ssl == null)) {
                throw new IllegalArgumentException(
                        "acceptors[" + i + "]: address, port, threads and ssl cannot change live");
            }
            a.ssl = r.ssl;
        }
        next.selectors = running.selectors;
        next.affinity = false;
        next.selectorThreadNameFormat = running.selectorThreadNameFormat;
        try {
            super.reconfigure(next);
        } catch (IOException | RuntimeException e) {
            try {
                super.reconfigure(running);
            } catch (IOException | RuntimeException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
        this.config = next;
    }

    @Override
    public synchronized void start() {
        super.start();
        guard = ConnectionGuard.start(() -> selectors, () -> config.limits, metrics);
        reportPinning();
        ready = true;
        log.atInfo().addKeyValue("ports", ports()).log("edge server started");
    }

    private void reportPinning() {
        try {
            List<SelectorPinning.Observed> observed = SelectorPinning.observe();
            // selector threads pin themselves first thing in run(); give them a moment to get there
            for (int i = 0; i < 50 && selectorCpus != null && !matchesPlan(observed); i++) {
                Thread.sleep(10);
                observed = SelectorPinning.observe();
            }
            for (SelectorPinning.Observed o : observed) {
                if (o.selector() >= selectors.length) continue; // another server's thread in the same JVM
                String planned = selectorCpus == null ? "" : Integer.toString(selectorCpus[o.selector()]);
                boolean ok = selectorCpus == null || planned.equals(o.allowedCpus());
                metrics.selectorCpu(o.selector(), planned, o.allowedCpus());
                log.atInfo()
                        .addKeyValue("selector", o.selector())
                        .addKeyValue("tid", o.tid())
                        .addKeyValue("plannedCpu", planned.isEmpty() ? "none" : planned)
                        .addKeyValue("kernelAllowed", o.allowedCpus())
                        .log(ok ? "selector affinity" : "selector affinity differs from the plan");
            }
        } catch (IOException e) {
            log.atWarn().setCause(e).log("cannot read selector affinity back from /proc");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean matchesPlan(List<SelectorPinning.Observed> observed) {
        if (observed.size() < selectorCpus.length) return false;
        for (SelectorPinning.Observed o : observed) {
            if (o.selector() >= selectorCpus.length) continue;
            if (!Integer.toString(selectorCpus[o.selector()]).equals(o.allowedCpus())) return false;
        }
        return true;
    }

    /**
     * A client address that already has {@code limits.maxConnectionsPerAddress} connections is refused
     * here, closed at accept by one-nio ({@link AcceptRefusal} throws what the acceptor kind in use
     * catches). Over {@code limits.maxConnections} a connection is still accepted but answered 503 and
     * closed: throwing RejectedSessionException here would end one-nio 2.3.0's MultiAcceptorThread,
     * which only catches RejectedExecutionException, and the server would silently stop accepting.
     */
    @Override
    public HttpSession createSession(Socket socket) throws RejectedSessionException {
        EdgeServerConfig c = config; // one read: a live reconfigure may replace the config meanwhile
        LimitsConfig limits = c.limits;
        InetSocketAddress remote = socket.getRemoteAddress();
        InetAddress address = remote == null ? null : remote.getAddress();
        if (address != null && !addresses.tryAcquire(address, limits.maxConnectionsPerAddress)) {
            metrics.refusedConnection(Refusal.PER_ADDRESS.label);
            AcceptRefusal.refuse(c.multiAcceptor, "limits.maxConnectionsPerAddress reached");
        }
        boolean overLimit = getConnections() >= limits.maxConnections;
        if (overLimit) {
            metrics.rejectedConnection();
            metrics.refusedConnection(Refusal.MAX_CONNECTIONS.label);
        }
        try {
            SocketBuffers.apply(socket, c.acceptors); // the caps the agent raised since the listener was set
            return new EdgeSession(socket, this, limits, overLimit, address, addresses);
        } catch (RuntimeException e) {
            if (address != null) addresses.release(address);
            throw e;
        }
    }

    @Override
    public void handleRequest(Request request, HttpSession session) throws IOException {
        if (request instanceof RejectedRequest r) {
            log.atDebug()
                    .addKeyValue("status", r.status())
                    .addKeyValue("reason", r.reason())
                    .log("request refused");
            session.sendResponse(Responses.error(r.status(), r.retryAfterSeconds()));
            return;
        }
        super.handleRequest(request, session);
    }

    @Override
    public void handleDefault(Request request, HttpSession session) throws IOException {
        content.handle(request, session);
    }

    // ---- called by sessions ----

    EdgeMetrics metrics() {
        return metrics;
    }

    /**
     * The request rate cap: 0 when a request of {@code address} may go on (or no cap is set), else the
     * seconds its client should wait (Retry-After).
     */
    long requestRateWait(InetAddress address, LimitsConfig limits) {
        if (limits.maxRequestRate == 0 || address == null) return 0;
        long nanos = requestRates.take(address, System.nanoTime(), limits.maxRequestRate, limits.requestBurst);
        return nanos == 0 ? 0 : Math.max(1, (nanos + 999_999_999) / 1_000_000_000);
    }

    /** The access log, null when disabled. */
    AccessLog accessLog() {
        return accessLog;
    }

    BufferPool bufferPool() {
        return bufferPool;
    }

    void tlsSessionStarted(TlsSessionFacts tls) {
        metrics.tlsSession(tls.protocol(), tls.resumed(), tls.kernelTls());
        if (firstTlsSessionLogged.compareAndSet(false, true) || log.isDebugEnabled()) {
            log.atInfo()
                    .addKeyValue("protocol", tls.protocol())
                    .addKeyValue("cipher", tls.cipher())
                    .addKeyValue("resumed", tls.resumed())
                    .addKeyValue("ktls", tls.kernelTls())
                    .log(
                            tls.kernelTls()
                                    ? "TLS session: kernel TLS active, files go out with sendfile"
                                    : "TLS session: kernel TLS not active, files are copied through pooled buffers into OpenSSL");
        }
    }

    void sessionFailed(EdgeSession session, Throwable e) {
        if (session.failedInHandshake(e)) {
            metrics.tlsHandshakeFailure();
            log.atDebug()
                    .addKeyValue("client", session.remoteHost())
                    .addKeyValue("error", e.toString())
                    .log("TLS handshake failed");
        } else if (e instanceof IOException) {
            log.atDebug()
                    .addKeyValue("client", session.remoteHost())
                    .addKeyValue("error", e.toString())
                    .log("connection closed");
        } else {
            log.atError()
                    .addKeyValue("client", session.remoteHost())
                    .setCause(e)
                    .log("session failed");
        }
    }

    // ---- readiness and graceful shutdown ----

    public boolean isReady() {
        return ready;
    }

    /**
     * Stops accepting, lets in-flight responses finish (connections close after their current
     * response), and stops the server when all are done or the deadline passes.
     */
    public void drainAndStop(long timeoutMillis) {
        synchronized (this) {
            stopping = true; // waits for a reconfigure in progress: it could otherwise reopen the listeners
            ready = false;
        }
        long deadline = System.currentTimeMillis() + timeoutMillis;
        closeListeners();
        int initial = getConnections();
        log.atInfo()
                .addKeyValue("connections", initial)
                .addKeyValue("timeoutMs", timeoutMillis)
                .log("draining: no longer accepting");
        forEachSession(EdgeSession::drain);
        while (getConnections() > 0 && System.currentTimeMillis() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            forEachSession(EdgeSession::drain);
        }
        int left = getConnections();
        forEachSession(Session::close);
        stop();
        content.close();
        if (cache != null) cache.close();
        log.atInfo()
                .addKeyValue("drained", initial - left)
                .addKeyValue("cutOff", left)
                .log("edge server stopped");
    }

    private static <T extends AutoCloseable> T opened(Deque<AutoCloseable> opened, T resource) {
        if (resource != null) opened.push(resource);
        return resource;
    }

    private static void closeAll(Deque<AutoCloseable> opened, Exception cause) {
        for (AutoCloseable c : opened) {
            try {
                c.close();
            } catch (Exception e) {
                cause.addSuppressed(e);
            }
        }
    }

    @Override
    public synchronized void stop() {
        if (guard != null) guard.stop();
        if (ticketKeyRotator != null) ticketKeyRotator.close();
        if (signing != null) signing.close();
        super.stop();
        if (accessLog != null) accessLog.close(); // after the sessions: their last lines are queued by now
    }

    /**
     * Closes the listening sockets. With multiAcceptor, one-nio 2.3.0's acceptor shutdown only stops
     * its thread and leaves the sockets listening (the kernel keeps completing handshakes nobody
     * accepts); reconfiguring to no acceptors closes every group's sockets for both acceptor kinds.
     */
    private void closeListeners() {
        try {
            acceptor.reconfigure();
        } catch (IOException e) {
            log.atWarn().setCause(e).log("closing listening sockets failed");
        }
        acceptor.shutdown();
    }

    private void forEachSession(java.util.function.Consumer<EdgeSession> action) {
        for (SelectorThread st : selectors) {
            for (Session s : st.selector) {
                action.accept((EdgeSession) s);
            }
        }
    }

    // ---- socket read-back (admin /sockets) ----

    /** The effective options of the listening sockets and of up to {@code limit} accepted connections, as JSON. */
    /** Removes a path or prefix from the cache's tiers (POST /admin/purge); nothing without an origin. */
    public PurgeResult purge(Purge purge) {
        return cache == null ? PurgeResult.NONE : cache.purge(purge);
    }

    public String socketsJson(int limit) {
        List<SocketsReport.View> listening = new java.util.ArrayList<>();
        for (Socket s : ListeningSockets.of(acceptor)) {
            SocketsReport.View v = SocketsReport.View.of(s);
            if (v != null) listening.add(v);
        }
        List<SocketsReport.View> sessions = new java.util.ArrayList<>();
        int total = 0;
        for (SelectorThread st : selectors) {
            for (Session s : st.selector) {
                total++;
                if (sessions.size() < limit) {
                    SocketsReport.View v = SocketsReport.View.of(s.socket());
                    if (v != null) sessions.add(v);
                }
            }
        }
        return SocketsReport.json(listening, total, limit, sessions);
    }

    private String ports() {
        StringBuilder sb = new StringBuilder();
        for (AcceptorConfig a : config.acceptors) {
            if (!sb.isEmpty()) sb.append(',');
            sb.append(a.port).append(a.ssl != null ? "/tls" : "");
        }
        return sb.toString();
    }

    private void registerMetrics() {
        metrics.gauge("videoedge_connections", "Open client connections", this::getConnections);
        metrics.gauge("videoedge_selectors", "Selector threads", () -> selectors.length);
        metrics.gauge(
                "videoedge_connection_addresses",
                "Client addresses with at least one open connection (limits.maxConnectionsPerAddress counts per address)",
                addresses::addresses);
        metrics.refusalReasons(Refusal.labels());
        metrics.gauge(
                "videoedge_content_open_files",
                "Content-root files held open for reuse (content.fileCacheValid)",
                content::openFiles);
        metrics.gauge(
                "videoedge_content_held_bytes",
                "Bytes of small content-root files (up to 15 KiB) held in memory with their open entry, served without a read",
                content::heldBytes);
        metrics.gauge(
                "videoedge_buffer_pool_capacity_bytes",
                "Direct memory held by the buffer pool",
                bufferPool::capacityBytes);
        metrics.gauge("videoedge_buffer_pool_used_bytes", "Pool buffers currently lent out", bufferPool::usedBytes);
        metrics.counter(
                "videoedge_buffer_pool_exhausted_total",
                "Times a buffer was wanted and none was free",
                bufferPool::exhaustedCount);
        boolean ktlsRequested = false;
        for (AcceptorConfig a : config.acceptors) {
            ktlsRequested |= a.ssl != null && a.ssl.kernelTlsEnabled;
        }
        String kernel = KernelTls.kernelSupport();
        metrics.ktls(ktlsRequested, kernel);
        if (ktlsRequested) {
            log.atInfo()
                    .addKeyValue("kernelTls", kernel)
                    .log(
                            "kernelTlsEnabled: OpenSSL will try kernel TLS on each session; sessions report whether they got it");
        }
        NativeRuntime nr = NativeRuntime.detect();
        metrics.nativeLibrary(nr.origin(), nr.resource(), nr.buildInfo(), nr.openssl());
        OpenSslCounters.register(metrics);
        KernelTlsStats.register(metrics);
    }
}
