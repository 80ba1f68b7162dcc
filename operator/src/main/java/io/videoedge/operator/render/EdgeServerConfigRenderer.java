package io.videoedge.operator.render;

import io.videoedge.api.ServerSpec;
import io.videoedge.api.SignedUrlMode;
import io.videoedge.api.TlsMode;
import io.videoedge.api.TlsSpec;
import io.videoedge.api.VideoEdgeSpec;
import io.videoedge.server.config.ConfigException;
import io.videoedge.server.config.ConfigLoader;
import io.videoedge.server.config.ConfigWriter;
import io.videoedge.server.config.EdgeServerConfig;
import io.videoedge.server.config.LimitsConfig;
import io.videoedge.server.config.LiveFields;
import io.videoedge.server.config.OriginConfig;
import io.videoedge.server.config.SignedUrlsConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import one.nio.config.DefaultConverters;
import one.nio.net.SslConfig;
import one.nio.server.AcceptorConfig;

/**
 * VideoEdge spec to the edge server's config, as a value of the server's own config model
 * (edge-config's {@link EdgeServerConfig}): checked with the server's own validator before anything
 * rolls out ({@link #problems}), written with its writer ({@link ConfigWriter}), and split into live and
 * restart fields by its own {@link LiveFields}. Pure: the same spec gives the same text, byte for byte.
 * testdata/edge-server/edge-server.yaml is the rendering of examples/videoedge.yaml, tested on both sides.
 */
public final class EdgeServerConfigRenderer {
    /** Fixed settings of ours, not (yet) in the VideoEdge API: the edge server's recommended values. */
    static final int KEEP_ALIVE_MILLIS = 120_000;

    static final int MAX_HEADER_SIZE = 8 * 1024;
    static final int IDLE_TIMEOUT_MILLIS = 60_000;
    /** How often one-nio looks for a newer ticket key file (its default: 5 minutes). */
    static final long TICKET_REFRESH_MILLIS = 10_000;

    private EdgeServerConfigRenderer() {}

    /** Whether the spec asks for an HTTPS acceptor: TLS on and https enabled. */
    public static boolean servesHttps(VideoEdgeSpec spec) {
        TlsSpec tls = spec.tls();
        ServerSpec.Port https = spec.server() == null ? null : spec.server().https();
        return tls != null
                && tls.mode() != null
                && tls.mode() != TlsMode.NONE
                && https != null
                && https.port() != null
                && !Boolean.FALSE.equals(https.enabled());
    }

    /** Whether the HTTPS acceptor uses kernel TLS: the node needs the tls module, the status reports kTLS. */
    public static boolean usesKernelTls(VideoEdgeSpec spec) {
        return servesHttps(spec) && spec.tls().mode().usesKernelTls();
    }

    /** Whether the server fills its caches from an origin: the config has an origin block, the disk cache is written. */
    public static boolean fetchesFromOrigin(ServerSpec server) {
        return server != null && server.origin() != null && server.origin().url() != null;
    }

    /**
     * The Secret with the origin's CA bundle (server.origin.caSecretName) when the server fetches from an
     * origin and the spec names one, else null: the config's origin.caFile is then that bundle, mounted
     * into the pod. Without it the server trusts its image's system CA store. (An http:// origin with one
     * renders a caFile the server refuses: the CRD refuses that spec first.)
     */
    public static String originCaSecret(ServerSpec server) {
        return fetchesFromOrigin(server) ? server.origin().caSecretName() : null;
    }

    /**
     * The Secret with the URL signing keys (server.signedUrls.secretName) when a rule checks tokens
     * (required or optional), else null: the config then has a signedUrls section whose keyDir is that
     * Secret, mounted into the pod. Rules that are all off render nothing.
     */
    public static String signingKeysSecret(ServerSpec server) {
        ServerSpec.SignedUrls s = server == null ? null : server.signedUrls();
        if (s == null || s.rules() == null) return null;
        boolean checks = s.rules().stream().anyMatch(r -> r.mode() != SignedUrlMode.OFF);
        return checks ? s.secretName() : null;
    }

    /** Whether the servers resume TLS sessions by tickets under keys every node shares ({@link TicketKeyRing}). */
    public static boolean sharesTicketKeys(VideoEdgeSpec spec) {
        return servesHttps(spec) && Boolean.TRUE.equals(spec.tls().sessionTickets());
    }

    public static boolean servesHttp(VideoEdgeSpec spec) {
        ServerSpec.Port http = spec.server() == null ? null : spec.server().http();
        return http != null && http.port() != null && !Boolean.FALSE.equals(http.enabled());
    }

    /** The config text; {@code source} (namespace/name) goes into the header comment only. */
    public static String render(String source, VideoEdgeSpec spec) {
        return render(source, config(spec));
    }

    private static String render(String source, EdgeServerConfig config) {
        return ConfigWriter.write(
                config,
                "Edge server configuration, one-nio ConfigParser format.",
                "Rendered by the VideoEdge operator from VideoEdge " + source + ": edit the VideoEdge, not this file.");
    }

    /**
     * What the server would refuse in the config of this spec (the server's own checks, file system
     * aside), each a sentence naming the config field; empty when it would run it.
     */
    public static List<String> problems(VideoEdgeSpec spec) {
        List<String> problems = new ArrayList<>();
        EdgeServerConfig config;
        try {
            config = config(spec);
        } catch (IllegalArgumentException e) {
            return List.of(e.getMessage());
        }
        for (String p : ConfigLoader.problems(config, "the edge server's config")) {
            problems.add("the edge server would refuse this spec: " + p);
        }
        if (problems.isEmpty()) {
            readBack(config).ifPresent(problems::add);
        }
        return problems;
    }

    /**
     * What goes wrong between the config and the server: the text it is written as, read back as the server
     * reads it (ConfigParser splits a list at its commas, trims its values), must be that config. Empty when it is.
     */
    static Optional<String> readBack(EdgeServerConfig config) {
        String text;
        try {
            text = render("", config);
        } catch (IllegalArgumentException e) {
            return Optional.of("the edge server's config cannot be written for this spec: " + e.getMessage());
        }
        EdgeServerConfig read;
        try {
            read = ConfigLoader.parse(text, "the edge server's config");
        } catch (ConfigException e) {
            return Optional.of("the edge server would refuse this spec: " + String.join("; ", e.problems()));
        }
        String again = render("", read);
        if (again.equals(text)) {
            return Optional.empty();
        }
        List<String> written = text.lines().toList();
        List<String> readLines = again.lines().toList();
        int i = 0;
        while (i < written.size() && i < readLines.size() && written.get(i).equals(readLines.get(i))) {
            i++;
        }
        return Optional.of("the edge server would read this spec's config otherwise than written: '"
                + (i < written.size() ? written.get(i).strip() : "") + "' reads as '"
                + (i < readLines.size() ? readLines.get(i).strip() : "") + "'");
    }

    /**
     * SHA-256 of the config with its live fields masked (the server's own {@link LiveFields}): it changes
     * only when a field that needs a restart does, and goes into the pod template.
     */
    public static String restartChecksum(String source, VideoEdgeSpec spec) {
        return Hashes.sha256(LiveFields.restartView(config(spec)));
    }

    /** The config value. Sizes and times the server cannot hold (an int of bytes, of milliseconds) are refused. */
    public static EdgeServerConfig config(VideoEdgeSpec spec) {
        ServerSpec server = spec.server();
        EdgeServerConfig c = new EdgeServerConfig();
        c.selectors = server.selectors();
        c.affinity = Boolean.TRUE.equals(server.affinity());
        c.pinAcceptors = Boolean.TRUE.equals(server.pinAcceptors());
        c.multiAcceptor = Boolean.TRUE.equals(server.multiAcceptor());
        c.keepAlive = KEEP_ALIVE_MILLIS;
        List<AcceptorConfig> acceptors = new ArrayList<>();
        if (servesHttp(spec)) {
            acceptors.add(acceptor(server.http().port(), server.socket()));
        }
        if (servesHttps(spec)) {
            AcceptorConfig https = acceptor(server.https().port(), server.socket());
            https.ssl = ssl(spec.tls());
            acceptors.add(https);
        }
        c.acceptors = acceptors.toArray(AcceptorConfig[]::new);
        c.admin.port = EdgeServerLayout.ADMIN_PORT;
        c.admin.tokenFile = EdgeServerLayout.ADMIN_TOKEN_FILE; // POST /admin/purge (CachePurge)
        c.content.root = EdgeServerLayout.CONTENT_DIR;
        c.limits.maxHeaderSize = MAX_HEADER_SIZE;
        // as many as the pod's memory holds beside the heap's other uses, the buffer pool and the cache
        c.limits.maxConnections = ServerMemory.of(spec).maxConnections();
        c.limits.idleTimeout = IDLE_TIMEOUT_MILLIS;
        limits(c.limits, server.limits());
        ServerSpec.AccessLog accessLog = server.accessLog();
        c.accessLog.enabled = accessLog == null || !Boolean.FALSE.equals(accessLog.enabled());
        c.accessLog.sample = accessLog == null || accessLog.sample() == null ? 1 : accessLog.sample();
        if (signingKeysSecret(server) != null) {
            c.signedUrls = new SignedUrlsConfig();
            c.signedUrls.keyDir = EdgeServerLayout.SIGNING_KEYS_DIR;
            c.signedUrls.rules = server.signedUrls().rules().stream()
                    .map(r -> new SignedUrlsConfig.Rule(
                            r.prefix(),
                            (r.mode() == null ? SignedUrlMode.REQUIRED : r.mode())
                                    .name()
                                    .toLowerCase(Locale.ROOT)))
                    .toArray(SignedUrlsConfig.Rule[]::new);
        }
        if (sharesTicketKeys(spec)) {
            // the keys every node shares (a Secret the operator rotates: TicketKeyRing), not the server's own
            c.ticketKeys.source = EdgeServerLayout.TICKET_KEYS_DIR;
            c.ticketKeys.rotation = 0;
        }
        c.cache.memory = Quantities.bytes(server.cache().memory());
        c.cache.disk.path = EdgeServerLayout.CACHE_DIR;
        c.cache.disk.size = Quantities.bytes(server.cache().disk().size());
        if (server.cache().staleIfError() != null) {
            c.cache.staleWhileError = DefaultConverters.longTime(server.cache().staleIfError());
        }
        if (server.cache().staleWhileRevalidate() != null) {
            c.cache.staleWhileRevalidate =
                    DefaultConverters.longTime(server.cache().staleWhileRevalidate());
        }
        if (server.cache().slice() != null) {
            c.cache.slice = Quantities.bytes(server.cache().slice());
        }
        if (fetchesFromOrigin(server)) {
            ServerSpec.Origin o = server.origin();
            c.origin = new OriginConfig();
            c.origin.url = o.url();
            if (originCaSecret(server) != null) {
                c.origin.caFile = EdgeServerLayout.ORIGIN_CA_FILE;
            }
            c.origin.connectTimeout = time("server.origin.connectTimeout", o.connectTimeout());
            c.origin.readTimeout = time("server.origin.readTimeout", o.readTimeout());
            c.origin.maxConnections = o.maxConnections();
            if (o.failover() != null && !o.failover().isEmpty()) {
                c.origin.failover = o.failover().stream()
                        .map(ServerSpec.FailoverOrigin::url)
                        .toArray(String[]::new);
            }
            if (o.downFor() != null) {
                c.origin.downFor = time("server.origin.downFor", o.downFor());
            }
            // one buffer-pool chunk per origin connection, and a few for the server itself
            c.bufferPool.size = ServerMemory.bufferPoolBytes(server);
        }
        return c;
    }

    /** server.limits: each field unset keeps the server's own default (the CRD's defaults are the same). */
    private static void limits(LimitsConfig c, ServerSpec.Limits l) {
        if (l == null) return;
        if (l.headerTimeout() != null) c.headerTimeout = time("server.limits.headerTimeout", l.headerTimeout());
        if (l.handshakeTimeout() != null) {
            c.handshakeTimeout = time("server.limits.handshakeTimeout", l.handshakeTimeout());
        }
        if (l.maxConnectionsPerAddress() != null) c.maxConnectionsPerAddress = l.maxConnectionsPerAddress();
        if (l.minSendBytes() != null) c.minSendBytes = size("server.limits.minSendBytes", l.minSendBytes());
        if (l.minSendPeriod() != null) c.minSendPeriod = time("server.limits.minSendPeriod", l.minSendPeriod());
        if (l.maxPipelined() != null) c.maxPipelined = l.maxPipelined();
        if (l.maxRequestRate() != null) c.maxRequestRate = l.maxRequestRate();
        if (l.requestBurst() != null) c.requestBurst = l.requestBurst();
    }

    private static AcceptorConfig acceptor(int port, ServerSpec.Socket socket) {
        AcceptorConfig a = new AcceptorConfig();
        a.port = port;
        a.recvBuf = size("server.socket.recvBuf", socket.recvBuf());
        a.sendBuf = size("server.socket.sendBuf", socket.sendBuf());
        a.notsentLowat = size("server.socket.notsentLowat", socket.notsentLowat());
        a.reusePort = Boolean.TRUE.equals(socket.reusePort());
        a.threads = socket.acceptorThreads();
        a.backlog = socket.backlog();
        return a;
    }

    private static SslConfig ssl(TlsSpec tls) {
        SslConfig ssl = new SslConfig();
        ssl.protocols = String.join(" ", tls.protocols());
        ssl.certFile = new String[] {EdgeServerLayout.TLS_CERT};
        ssl.privateKeyFile = new String[] {EdgeServerLayout.TLS_KEY};
        if (Boolean.TRUE.equals(tls.sessionTickets())) {
            // sessionTickets false renders no ticketDir: one-nio then sets no ticket keys of ours
            ssl.ticketDir = EdgeServerLayout.TICKET_DIR;
            // the shared keys switch at one time on every node: one-nio must look at the directory that often
            ssl.refreshInterval = TICKET_REFRESH_MILLIS;
        }
        // the server falls back to userspace OpenSSL where the kernel cannot (status: KernelTlsUnavailable)
        ssl.kernelTlsEnabled = tls.mode().usesKernelTls();
        boolean earlyData =
                tls.earlyData() != null && Boolean.TRUE.equals(tls.earlyData().enabled());
        ssl.maxEarlyDataSize = earlyData ? tls.earlyData().maxSize() : 0;
        ssl.antiReplayEnabled = false;
        // stateless resumption by tickets only: a server-side session cache locks under load (seed 000)
        ssl.cacheMode = "none";
        return ssl;
    }

    /** A one-nio size (64k, 4m) in bytes as the server holds it: an int. */
    static int size(String field, String value) {
        long bytes = DefaultConverters.longSize(value);
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    field + " " + value + " is more than the server can hold (2g - 1 bytes)");
        }
        return (int) bytes;
    }

    /** A one-nio time (500ms, 10s) in milliseconds as the server holds it: an int. */
    static int time(String field, String value) {
        long millis = DefaultConverters.longTime(value);
        if (millis > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    field + " " + value + " is more than the server can hold (about 24 days)");
        }
        return (int) millis;
    }
}
