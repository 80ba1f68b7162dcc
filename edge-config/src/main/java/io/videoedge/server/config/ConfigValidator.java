package io.videoedge.server.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import one.nio.net.SslConfig;
import one.nio.server.AcceptorConfig;

/** Semantic checks on a parsed config: what must be present, ranges, and files that must exist. */
final class ConfigValidator {
    static final Set<String> TLS_PROTOCOLS = Set.of("tlsv1.2", "tlsv1.3");
    static final Set<String> CACHE_MODES = Set.of("none", "internal", "external");
    static final Set<String> SIGNED_URL_MODES = Set.of("required", "optional", "off");
    static final int MAX_HEADER_LIMIT = 32 * 1024; // the request head must fit one-nio's 64000-byte read buffer
    static final int MIN_DEADLINE = 100; // ms: the connection guard looks at most every 50 ms
    /** one-nio's HttpSession holds 256 requests at most; the refusal of one more takes a place too. */
    static final int MAX_PIPELINED = 255;
    /** The bound of limits.maxRequestRate and requestBurst (the VideoEdge CRD admits the same). */
    static final int MAX_REQUEST_RATE = 1_000_000;

    static final long MIN_SLICE = 64 * 1024; // smaller slices cost more origin requests than they save
    static final long MAX_SLICE = 1L << 30;
    /** The smallest memory tier: one-nio's Malloc needs about a KiB for its own tables (the VideoEdge CRD admits 1Mi). */
    static final long MIN_CACHE_MEMORY = 1024 * 1024;

    private final String source;
    private final boolean checkFiles;
    private final List<String> problems = new ArrayList<>();

    private ConfigValidator(String source, boolean checkFiles) {
        this.source = source;
        this.checkFiles = checkFiles;
    }

    /** Shape and ranges only: no file system access (the golden file test runs this on any machine). */
    static List<String> validate(EdgeServerConfig c, String source) {
        ConfigValidator v = new ConfigValidator(source, false);
        v.server(c);
        return v.problems;
    }

    /** Shape, ranges, and the files and directories the config names. */
    static List<String> validateWithFiles(EdgeServerConfig c, String source) {
        ConfigValidator v = new ConfigValidator(source, true);
        v.server(c);
        return v.problems;
    }

    private void server(EdgeServerConfig c) {
        check(c.selectors >= 0, "selectors", "must be 0 (one per allowed CPU) or more, is " + c.selectors);
        check(c.keepAlive >= 0, "keepAlive", "must not be negative");
        check(c.drainTimeout >= 0, "drainTimeout", "must not be negative");
        Set<Integer> ports = new HashSet<>();
        if (c.acceptors == null || c.acceptors.length == 0) {
            problem("acceptors", "at least one acceptor (port) is required");
        } else {
            for (int i = 0; i < c.acceptors.length; i++) {
                acceptor(c.acceptors[i], "acceptors[" + i + "]", ports);
            }
        }
        if (c.admin == null) {
            problem("admin", "the admin section is required (port for /metrics, /healthz, /readyz)");
        } else {
            port(c.admin.port, "admin.port", ports);
            if (c.admin.tokenFile != null) {
                check(
                        Path.of(c.admin.tokenFile).isAbsolute(),
                        "admin.tokenFile",
                        "must be an absolute file path, is " + c.admin.tokenFile);
            }
        }
        content(c);
        limits(c.limits);
        cache(c.cache, c.origin != null);
        origin(c.origin);
        bufferPool(c.bufferPool, c.origin);
        ticketKeys(c);
        accessLog(c.accessLog);
        signedUrls(c.signedUrls);
    }

    private void signedUrls(SignedUrlsConfig s) {
        if (s == null) return;
        check(s.keyPoll == 0 || s.keyPoll >= 1000, "signedUrls.keyPoll", "must be 0 (never) or at least 1s");
        if (s.keyDir == null || s.keyDir.isEmpty() || !Path.of(s.keyDir).isAbsolute()) {
            problem("signedUrls.keyDir", "required: the absolute path of the directory with the key files");
        } else if (checkFiles) {
            Path current = Path.of(s.keyDir, SignedUrlsConfig.CURRENT_KEY);
            long size;
            try {
                size = Files.isRegularFile(current) ? Files.size(current) : -1;
            } catch (java.io.IOException e) {
                size = -1;
            }
            check(size >= 0, "signedUrls.keyDir", "has no readable file " + SignedUrlsConfig.CURRENT_KEY);
            check(
                    size < 0 || size >= SignedUrlsConfig.MIN_KEY_BYTES,
                    "signedUrls.keyDir",
                    current + " has " + size + " bytes: a key needs at least " + SignedUrlsConfig.MIN_KEY_BYTES);
        }
        Set<String> prefixes = new HashSet<>();
        SignedUrlsConfig.Rule[] rules = s.rules == null ? new SignedUrlsConfig.Rule[0] : s.rules;
        for (int i = 0; i < rules.length; i++) {
            String at = "signedUrls.rules[" + i + "]";
            SignedUrlsConfig.Rule r = rules[i];
            if (r.prefix == null || !r.prefix.startsWith("/")) {
                problem(at + ".prefix", "required, and starts with /, is " + r.prefix);
            } else {
                check(prefixes.add(r.prefix), at + ".prefix", r.prefix + " has two rules");
            }
            check(
                    r.mode != null && SIGNED_URL_MODES.contains(r.mode),
                    at + ".mode",
                    "must be one of " + SIGNED_URL_MODES + ", is " + r.mode);
        }
    }

    private void accessLog(AccessLogConfig a) {
        if (a == null) return;
        check(a.sample >= 1, "accessLog.sample", "must be at least 1 (1: every response), is " + a.sample);
        check(a.queue >= 1, "accessLog.queue", "must be at least 1, is " + a.queue);
        if (a.path == null || a.path.isEmpty()) {
            problem("accessLog.path", "required: - (standard output) or an absolute file path");
        } else if (!AccessLogConfig.STDOUT.equals(a.path)) {
            Path p = Path.of(a.path);
            check(
                    p.isAbsolute(),
                    "accessLog.path",
                    "must be - (standard output) or an absolute file path, is " + a.path);
            Path dir = p.toAbsolutePath().getParent();
            check(
                    !checkFiles || dir != null && Files.isDirectory(dir) && Files.isWritable(dir),
                    "accessLog.path",
                    "cannot write a file in " + dir);
        }
    }

    private void ticketKeys(EdgeServerConfig c) {
        long rotation = c.ticketKeys == null ? 0 : c.ticketKeys.rotation;
        String source = c.ticketKeys == null ? null : c.ticketKeys.source;
        if (source != null) {
            check(Path.of(source).isAbsolute(), "ticketKeys.source", "must be an absolute directory, is " + source);
            check(
                    rotation == 0,
                    "ticketKeys.rotation",
                    "must be 0 with ticketKeys.source: the keys come from the source, whoever writes it rotates them");
            check(c.ticketKeys.poll >= 1000, "ticketKeys.poll", "must be at least 1s");
            check(
                    !checkFiles || Files.isDirectory(Path.of(source)),
                    "ticketKeys.source",
                    source + " is not a directory");
            return;
        }
        check(
                rotation == 0 || rotation >= 1000,
                "ticketKeys.rotation",
                "must be 0 (never) or at least 1s, is " + rotation + "ms");
        if (rotation <= 0 || !checkFiles || c.acceptors == null) return;
        for (int i = 0; i < c.acceptors.length; i++) {
            SslConfig s = c.acceptors[i].ssl;
            if (s == null || s.ticketDir == null) continue;
            Path d = Path.of(s.ticketDir);
            check(
                    !Files.isDirectory(d) || Files.isWritable(d),
                    "acceptors[" + i + "].ssl.ticketDir",
                    d
                            + " is not writable, and ticketKeys.rotation is on (set it to 0 when the keys are managed outside)");
        }
    }

    private void acceptor(AcceptorConfig a, String path, Set<Integer> ports) {
        port(a.port, path + ".port", ports);
        check(a.threads >= 1, path + ".threads", "must be at least 1");
        check(
                a.threads <= 1 || a.reusePort,
                path + ".threads",
                "above 1 needs reusePort: true (each acceptor thread listens on a socket of its own on the same port)");
        check(a.backlog >= 1, path + ".backlog", "must be at least 1");
        check(a.recvBuf >= 0, path + ".recvBuf", "must not be negative");
        check(a.sendBuf >= 0, path + ".sendBuf", "must not be negative");
        check(a.notsentLowat >= 0, path + ".notsentLowat", "must not be negative");
        if (a.ssl != null) {
            ssl(a.ssl, path + ".ssl");
        }
    }

    private void ssl(SslConfig s, String path) {
        if (s.protocols == null || s.protocols.isBlank()) {
            problem(path + ".protocols", "required, e.g. 'TLSv1.2 TLSv1.3'");
        } else {
            for (String p : s.protocols.toLowerCase(Locale.ROOT).split("[ ,:+]+")) {
                check(
                        p.isEmpty() || TLS_PROTOCOLS.contains(p),
                        path + ".protocols",
                        "'" + p + "' is not supported (TLSv1.2, TLSv1.3)");
            }
        }
        files(s.certFile, path + ".certFile");
        files(s.privateKeyFile, path + ".privateKeyFile");
        if (s.certFile != null && s.privateKeyFile != null) {
            check(s.certFile.length == s.privateKeyFile.length, path + ".privateKeyFile", "needs one key per certFile");
        }
        check(
                s.cacheMode == null || CACHE_MODES.contains(s.cacheMode),
                path + ".cacheMode",
                "must be none, internal or external, is '" + s.cacheMode + "'");
        check(s.maxEarlyDataSize >= 0, path + ".maxEarlyDataSize", "must not be negative");
        if (s.ticketKeyFile != null && checkFiles) {
            Path f = Path.of(s.ticketKeyFile);
            check(Files.isReadable(f), path + ".ticketKeyFile", "cannot read " + f);
        }
        if (s.ticketDir != null && checkFiles) {
            Path d = Path.of(s.ticketDir);
            check(!Files.exists(d) || Files.isDirectory(d), path + ".ticketDir", d + " is not a directory");
            try {
                for (String p : TicketKeyFiles.problems(d)) problem(path + ".ticketDir", p);
            } catch (java.io.IOException e) {
                problem(path + ".ticketDir", "cannot read " + d + ": " + e.getMessage());
            }
        }
    }

    private void files(String[] files, String path) {
        if (files == null || files.length == 0) {
            problem(path, "required");
            return;
        }
        for (String f : files) {
            check(!checkFiles || Files.isReadable(Path.of(f)), path, "cannot read " + f);
        }
    }

    private void content(EdgeServerConfig c) {
        if (c.content == null || c.content.root == null) {
            check(c.origin != null, "content.root", "required unless an origin is configured");
            return;
        }
        Path root = Path.of(c.content.root);
        check(!checkFiles || Files.isDirectory(root), "content.root", root + " is not a directory");
    }

    private void limits(LimitsConfig l) {
        if (l == null) return;
        check(
                l.maxHeaderSize >= 256 && l.maxHeaderSize <= MAX_HEADER_LIMIT,
                "limits.maxHeaderSize",
                "must be between 256 and 32k, is " + l.maxHeaderSize);
        check(
                l.maxUriLength >= 64 && l.maxUriLength <= l.maxHeaderSize,
                "limits.maxUriLength",
                "must be between 64 and maxHeaderSize, is " + l.maxUriLength);
        check(l.maxConnections >= 1, "limits.maxConnections", "must be at least 1");
        check(l.idleTimeout > 0, "limits.idleTimeout", "must be positive");
        check(
                l.headerTimeout >= MIN_DEADLINE,
                "limits.headerTimeout",
                "must be at least 100ms, is " + l.headerTimeout + "ms");
        check(
                l.handshakeTimeout >= MIN_DEADLINE,
                "limits.handshakeTimeout",
                "must be at least 100ms, is " + l.handshakeTimeout + "ms");
        check(
                l.maxConnectionsPerAddress >= 1,
                "limits.maxConnectionsPerAddress",
                "must be at least 1, is " + l.maxConnectionsPerAddress);
        check(l.minSendBytes >= 0, "limits.minSendBytes", "must be 0 (no minimum) or more, is " + l.minSendBytes);
        check(
                l.minSendPeriod >= MIN_DEADLINE,
                "limits.minSendPeriod",
                "must be at least 100ms, is " + l.minSendPeriod + "ms");
        check(
                l.maxPipelined >= 1 && l.maxPipelined <= MAX_PIPELINED,
                "limits.maxPipelined",
                "must be between 1 and " + MAX_PIPELINED + ", is " + l.maxPipelined);
        check(
                l.maxRequestRate >= 0 && l.maxRequestRate <= MAX_REQUEST_RATE,
                "limits.maxRequestRate",
                "must be between 0 (no cap) and " + MAX_REQUEST_RATE + " requests a second, is " + l.maxRequestRate);
        check(
                l.requestBurst >= 1 && l.requestBurst <= MAX_REQUEST_RATE,
                "limits.requestBurst",
                "must be between 1 and " + MAX_REQUEST_RATE + ", is " + l.requestBurst);
    }

    private void cache(CacheConfig c, boolean hasOrigin) {
        if (c == null) return;
        check(c.memory >= 0, "cache.memory", "must not be negative");
        check(
                c.memory == 0 || c.memory >= MIN_CACHE_MEMORY,
                "cache.memory",
                "must be 0 (off) or at least 1m (the memory tier's allocator needs room for its own tables)");
        check(c.memoryMaxObject >= 0, "cache.memoryMaxObject", "must not be negative");
        check(c.ttl >= 0, "cache.ttl", "must not be negative");
        check(c.staleWhileError >= 0, "cache.staleWhileError", "must not be negative");
        check(c.staleWhileRevalidate >= 0, "cache.staleWhileRevalidate", "must not be negative");
        check(
                c.slice == 0 || (c.slice >= MIN_SLICE && c.slice <= MAX_SLICE),
                "cache.slice",
                "must be 0 (off) or between 64K and 1G");
        if (c.disk != null) {
            check(c.disk.size >= 0, "cache.disk.size", "must not be negative");
            if (hasOrigin) {
                check(c.disk.path != null, "cache.disk.path", "required when an origin is configured");
            }
        }
    }

    private void bufferPool(BufferPoolConfig p, OriginConfig origin) {
        if (p == null) {
            problem("bufferPool", "must not be empty");
            return;
        }
        check(
                p.chunkSize >= 16 * 1024 && p.chunkSize <= 16 * 1024 * 1024,
                "bufferPool.chunkSize",
                "must be between 16k and 16m, is " + p.chunkSize);
        check(
                p.size >= 8L * p.chunkSize,
                "bufferPool.size",
                "must hold at least 8 chunks (" + 8L * Math.max(p.chunkSize, 0) + " bytes)");
        if (origin != null && p.chunkSize > 0) {
            // every origin connection holds one chunk while it streams; the rest is for TLS copies
            long needed = (long) (origin.maxConnections + 8) * p.chunkSize;
            check(
                    p.size >= needed,
                    "bufferPool.size",
                    "must hold origin.maxConnections + 8 chunks (" + needed + " bytes)");
        }
    }

    private void origin(OriginConfig o) {
        if (o == null) return;
        if (o.url == null) {
            problem("origin.url", "required");
            return;
        }
        check(
                o.failover == null || o.failover.length <= OriginConfig.MAX_FAILOVER,
                "origin.failover",
                "at most " + OriginConfig.MAX_FAILOVER + " origins");
        List<String> urls = o.urls();
        boolean https = false;
        for (int i = 0; i < urls.size(); i++) {
            String url = urls.get(i);
            String path = i == 0 ? "origin.url" : "origin.failover[" + (i - 1) + "]";
            if (url == null || !OriginConfig.URL.matcher(url).matches()) {
                problem(
                        path,
                        "must be http:// or https:// with a host name or IPv4 address, an optional port "
                                + "1-65535 and an optional path, no user, query or fragment; is " + url);
            } else if (urls.indexOf(url) != i) {
                problem(path, "the same origin twice: " + url);
            } else {
                https |= url.startsWith("https:");
            }
        }
        if (https) {
            Path ca = Path.of(o.caFile != null ? o.caFile : OriginConfig.SYSTEM_CA_FILE);
            check(
                    !checkFiles || Files.isReadable(ca),
                    "origin.caFile",
                    "cannot read " + ca
                            + (o.caFile == null
                                    ? " (the system CA bundle, used when caFile is not set: install ca-certificates or set caFile)"
                                    : ""));
        } else {
            check(o.caFile == null, "origin.caFile", "only for an https:// origin");
        }
        check(o.connectTimeout > 0, "origin.connectTimeout", "must be positive");
        check(o.readTimeout > 0, "origin.readTimeout", "must be positive");
        check(o.maxConnections >= 1, "origin.maxConnections", "must be at least 1");
        check(o.downFor >= 100, "origin.downFor", "must be at least 100ms");
    }

    private void port(int port, String path, Set<Integer> ports) {
        if (port < 1 || port > 65535) {
            problem(path, "must be between 1 and 65535, is " + port);
        } else if (!ports.add(port)) {
            problem(path, "port " + port + " is used twice");
        }
    }

    private void check(boolean ok, String path, String message) {
        if (!ok) problem(path, message);
    }

    private void problem(String path, String message) {
        problems.add(source + ": " + path + ": " + message);
    }
}
