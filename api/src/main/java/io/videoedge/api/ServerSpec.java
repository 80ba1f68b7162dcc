package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.http) || !has(self.https) || !has(self.http.port) || !has(self.https.port) "
                + "|| self.http.port != self.https.port",
        fieldPath = ".https.port",
        message = "http.port and https.port must differ: both acceptors bind on the node's host network")
@ValidationRule(
        value = "!has(self.memory) || quantity(self.memory).compareTo(quantity('320Mi')) >= 0",
        fieldPath = ".memory",
        message =
                "memory must be at least 320Mi: the edge server's heap (64Mi at least), 192Mi for the JVM's native memory "
                        + "and 32Mi of I/O buffers")
@ValidationRule(
        value = "!has(self.memory) || quantity(self.memory).isLessThan(quantity('1Ei'))",
        fieldPath = ".memory",
        message = "memory must be less than 1Ei")
@ValidationRule(
        value =
                "!has(self.cache) || !has(self.cache.memory) || quantity(self.cache.memory).isLessThan(quantity('1Ei'))",
        fieldPath = ".cache.memory",
        message = "cache.memory must be less than 1Ei")
@ValidationRule(
        value = "!has(self.cache) || !has(self.cache.disk) || !has(self.cache.disk.size) "
                + "|| quantity(self.cache.disk.size).isLessThan(quantity('1Ei'))",
        fieldPath = ".cache.disk.size",
        message = "cache.disk.size must be less than 1Ei")
@ValidationRule(
        value = "!has(self.cache) || !has(self.cache.memory) || !has(self.memory) "
                + "|| quantity(self.cache.memory).isLessThan(quantity(self.memory))",
        fieldPath = ".cache.memory",
        message =
                "cache.memory must be less than server.memory: the memory cache lives inside the pod's memory, off the heap")
@ValidationRule(
        value = Patterns.CACHE_FITS_BESIDE_JVM,
        fieldPath = ".cache.memory",
        message =
                "cache.memory must fit in server.memory beside the JVM: a heap of a quarter of server.memory (at most 4Gi), "
                        + "192Mi of native memory and an I/O buffer pool of 128Ki per origin connection (at least 32Mi); "
                        + "server.memory 2Gi holds a cache of up to 1312Mi with up to 248 origin connections")
@ValidationRule(
        value = "!has(self.memory) || quantity(self.memory).isInteger()",
        fieldPath = ".memory",
        message = "memory must be a whole number of bytes")
@ValidationRule(
        value = "!has(self.cache) || !has(self.cache.memory) || (quantity(self.cache.memory).isInteger() "
                + "&& (quantity(self.cache.memory).asInteger() == 0 "
                + "|| quantity(self.cache.memory).compareTo(quantity('1Mi')) >= 0))",
        fieldPath = ".cache.memory",
        message = "cache.memory must be 0 (off) or a whole number of bytes from 1Mi")
@ValidationRule(
        value = "!has(self.cache) || !has(self.cache.slice) || (quantity(self.cache.slice).isInteger() "
                + "&& (quantity(self.cache.slice).asInteger() == 0 "
                + "|| (quantity(self.cache.slice).compareTo(quantity('64Ki')) >= 0 "
                + "&& quantity(self.cache.slice).compareTo(quantity('1Gi')) <= 0)))",
        fieldPath = ".cache.slice",
        message = "cache.slice must be 0 (off) or a whole number of bytes from 64Ki to 1Gi")
@ValidationRule(
        value = "!has(self.contentPath) || !self.contentPath.matches('(^|/)[.]{1,2}(/|$)')",
        fieldPath = ".contentPath",
        message = "contentPath must not contain '..' segments (nor '.' ones)")
@ValidationRule(
        value = "!has(self.cache) || !has(self.cache.disk) || !has(self.cache.disk.path) "
                + "|| !self.cache.disk.path.matches('(^|/)[.]{1,2}(/|$)')",
        fieldPath = ".cache.disk.path",
        message = "cache.disk.path must not contain '..' segments (nor '.' ones)")
@ValidationRule(
        value = "!has(self.contentPath) || " + Patterns.HOST_SYSTEM_DIRS + ".all(p, !(" + Patterns.CONTENT_DIR
                + ".startsWith(p) || p.startsWith(" + Patterns.CONTENT_DIR + ")))",
        fieldPath = ".contentPath",
        message = "contentPath must not be, hold or lie in a system directory of the node (/etc, /root, /proc, /sys, "
                + "/dev, /boot, /usr, /run, /var/lib/kubelet, /var/lib/containerd, ...): the server serves every "
                + "file under it over HTTP")
@ValidationRule(
        value = "!has(self.cache) || !has(self.cache.disk) || !has(self.cache.disk.path) || "
                + Patterns.HOST_SYSTEM_DIRS + ".all(p, !(" + Patterns.CACHE_DIR + ".startsWith(p) || p.startsWith("
                + Patterns.CACHE_DIR + ")))",
        fieldPath = ".cache.disk.path",
        message = "cache.disk.path must not be, hold or lie in a system directory of the node (/etc, /root, /proc, "
                + "/sys, /dev, /boot, /usr, /run, /var/lib/kubelet, /var/lib/containerd, ...): the edge server's pod "
                + "takes ownership of it")
@ValidationRule(
        value =
                "!has(self.contentPath) || !has(self.cache) || !has(self.cache.disk) || !has(self.cache.disk.path) || !("
                        + Patterns.CONTENT_DIR + ".startsWith(" + Patterns.CACHE_DIR + ") || " + Patterns.CACHE_DIR
                        + ".startsWith(" + Patterns.CONTENT_DIR + "))",
        fieldPath = ".cache.disk.path",
        message = "cache.disk.path and contentPath must not be the same directory nor one inside the other: the "
                + "server would serve its cache files, raw, as content")
public record ServerSpec(
        @JsonPropertyDescription(
                "Dedicated cores for the edge server. Requests equal limits (Guaranteed QoS) with this integer "
                        + "CPU count, so the kubelet's static CPU manager gives the pod these cores to itself.")
        @Default("2")
        @Min(1)
        @Max(1024)
        Integer cpus,

        @JsonPropertyDescription(
                "Memory of the edge server pod (a Kubernetes quantity, e.g. 8Gi); requests equal limits. The heap, the "
                        + "buffer pool and cache.memory come out of it, and the client connections get the rest: the "
                        + "operator sets the server's connection limit (about 20Ki each over TLS, 4Ki over HTTP) so that "
                        + "they fit, and a connection past it is answered 503.")
        @Default("2Gi")
        @Pattern(Patterns.K8S_QUANTITY)
        String memory,

        @JsonPropertyDescription("one-nio selector (event loop) threads; 0 means one per dedicated core.")
        @Default("0")
        @Min(0)
        @Max(1024)
        Integer selectors,

        @JsonPropertyDescription("Pin selector threads to the pod's dedicated CPUs, one each (one-nio 'affinity').")
        @Default("true")
        Boolean affinity,

        @JsonPropertyDescription("Constrain each acceptor to its own selectors (one-nio 'pinAcceptors').")
        @Default("true")
        Boolean pinAcceptors,

        @JsonPropertyDescription("One acceptor thread for all listening sockets (one-nio 'multiAcceptor').")
        @Default("true")
        Boolean multiAcceptor,

        @JsonPropertyDescription("Plain HTTP acceptor.") @Default("{\"port\": 80}")
        Port http,

        @JsonPropertyDescription("HTTPS acceptor; serves only when tls.mode is not 'none'.") @Default("{\"port\": 443}")
        Port https,

        @JsonPropertyDescription(
                "Socket options of both acceptors (the seed's final config: recvBuf 64k, sendBuf 4m, notsentLowat 512k).")
        @Default("{}")
        Socket socket,

        @JsonPropertyDescription("Two cache levels in front of the origin: an off-heap memory LRU and a disk FIFO.")
        @Default("{}")
        Cache cache,

        @JsonPropertyDescription("Origin the edge fetches misses from. Without it the server serves only contentPath.")
        Origin origin,

        @JsonPropertyDescription("Directory on the node with video objects served by path (a hostPath, read-only).")
        @Default("/var/lib/videoedge/content")
        @Pattern(Patterns.ABSOLUTE_PATH)
        @Size(max = 1024)
        String contentPath,

        @JsonPropertyDescription("Edge server image. Default: the image the operator was installed with.")
        @Size(max = 512)
        @Pattern(Patterns.IMAGE)
        String image,

        @JsonPropertyDescription(
                "Deprecated: use rollout.maxUnavailable, which wins when both are set. Nodes that may be out "
                        + "of service during a rollout: a count or a percentage.")
        @Default("1")
        @Pattern(Patterns.MAX_UNAVAILABLE)
        String maxUnavailable,

        @JsonPropertyDescription("Access log: one JSON line per response on the edge server's standard output (the "
                + "container log): time, client, method, path without the query, status, body bytes that left, "
                + "milliseconds until the last byte left, whether it completed, cache status, TLS version and kTLS. "
                + "Written off the event loops through a bounded queue; lines that do not fit are dropped and counted "
                + "(videoedge_access_log_lines_total{result=\"dropped\"}).")
        @Default("{}")
        AccessLog accessLog,

        @JsonPropertyDescription(
                "Signed URLs against hotlinking: paths under a rule's prefix need a token in the query "
                        + "(an HMAC-SHA256 under a key of secretName over an expiry, the path or a path prefix, and optionally the "
                        + "client address); a missing, forged or expired one is answered 403 and counted by reason "
                        + "(videoedge_signed_url_checks_total). Tokens and how to make them: edge-server/README.md, Signed URLs.")
        SignedUrls signedUrls,

        @JsonPropertyDescription(
                "Defences against clients that hold connections without using them (slowloris, "
                        + "stalled TLS handshakes, slow readers, many connections from one address, deep pipelining) and, when "
                        + "set, too many requests from one address. Each refusal is counted in "
                        + "videoedge_connections_refused_total{reason}, a request refused for its rate in "
                        + "videoedge_requests_refused_total{reason}. A change reaches the running edge servers without a restart "
                        + "(the config file is re-read): connections opened after it get the new limits, open ones keep theirs.")
        @Default("{}")
        Limits limits) {

    public ServerSpec withSocket(Socket socket) {
        return edit(c -> c.socket = socket);
    }

    public ServerSpec withCpus(Integer cpus) {
        return edit(c -> c.cpus = cpus);
    }

    public ServerSpec withSelectors(Integer selectors) {
        return edit(c -> c.selectors = selectors);
    }

    public ServerSpec withAccessLog(AccessLog accessLog) {
        return edit(c -> c.accessLog = accessLog);
    }

    public ServerSpec withOrigin(Origin origin) {
        return edit(c -> c.origin = origin);
    }

    public ServerSpec withSignedUrls(SignedUrls signedUrls) {
        return edit(c -> c.signedUrls = signedUrls);
    }

    public ServerSpec withLimits(Limits limits) {
        return edit(c -> c.limits = limits);
    }

    public ServerSpec withMemory(String memory) {
        return edit(c -> c.memory = memory);
    }

    public ServerSpec withHttp(Port http) {
        return edit(c -> c.http = http);
    }

    public ServerSpec withCache(Cache cache) {
        return edit(c -> c.cache = cache);
    }

    public ServerSpec withImage(String image) {
        return edit(c -> c.image = image);
    }

    public ServerSpec withMaxUnavailable(String maxUnavailable) {
        return edit(c -> c.maxUnavailable = maxUnavailable);
    }

    public ServerSpec withHttps(Port https) {
        return edit(c -> c.https = https);
    }

    /** A copy with the fields {@code change} sets changed: the withers above, one line each. */
    private ServerSpec edit(java.util.function.Consumer<Copy> change) {
        Copy c = new Copy(this);
        change.accept(c);
        return c.build();
    }

    private static final class Copy {
        Integer cpus;
        String memory;
        Integer selectors;
        Boolean affinity;
        Boolean pinAcceptors;
        Boolean multiAcceptor;
        Port http;
        Port https;
        Socket socket;
        Cache cache;
        Origin origin;
        String contentPath;
        String image;
        String maxUnavailable;
        AccessLog accessLog;
        SignedUrls signedUrls;
        Limits limits;

        Copy(ServerSpec s) {
            cpus = s.cpus;
            memory = s.memory;
            selectors = s.selectors;
            affinity = s.affinity;
            pinAcceptors = s.pinAcceptors;
            multiAcceptor = s.multiAcceptor;
            http = s.http;
            https = s.https;
            socket = s.socket;
            cache = s.cache;
            origin = s.origin;
            contentPath = s.contentPath;
            image = s.image;
            maxUnavailable = s.maxUnavailable;
            accessLog = s.accessLog;
            signedUrls = s.signedUrls;
            limits = s.limits;
        }

        ServerSpec build() {
            return new ServerSpec(
                    cpus,
                    memory,
                    selectors,
                    affinity,
                    pinAcceptors,
                    multiAcceptor,
                    http,
                    https,
                    socket,
                    cache,
                    origin,
                    contentPath,
                    image,
                    maxUnavailable,
                    accessLog,
                    signedUrls,
                    limits);
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(
            value = "has(self.secretName) || !has(self.rules) || self.rules.all(r, has(r.mode) && r.mode == 'off')",
            fieldPath = ".secretName",
            message = "signedUrls.secretName is required when a rule is required or optional: the Secret with the "
                    + "signing keys (key 'current', optionally 'previous')")
    @ValidationRule(
            value = "!has(self.rules) || self.rules.all(a, self.rules.exists_one(b, b.prefix == a.prefix))",
            fieldPath = ".rules",
            message = "signedUrls.rules: each prefix at most once")
    public record SignedUrls(
            @JsonPropertyDescription(
                    "A Secret in the VideoEdge's namespace with the signing keys as raw bytes, at least 16 each: 'current', "
                            + "and optionally 'previous'; a token made with either is accepted. To rotate without refusing "
                            + "anyone, put the new key under 'previous' first, then swap the two once the edge servers have it. "
                            + "The Secret is mounted into the edge pods (read-only); the server reads the keys again within "
                            + "10s of the kubelet updating the files (about a minute after the Secret changes), without a "
                            + "restart. A missing Secret or key is reported in the Ready condition and nothing is rolled out.")
            @Size(min = 1, max = 253)
            @Pattern(Patterns.DNS_SUBDOMAIN)
            String secretName,

            @JsonPropertyDescription(
                    "Path prefixes and their mode; the longest prefix that starts a request's path (percent-decoded, "
                            + "with '.' and empty segments removed) decides; a path no rule matches needs no token.")
            @Size(max = 64)
            List<SignedUrlRule> rules) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(
            value = "!self.prefix.matches('(^|/)[.][.]?(/|$)')",
            fieldPath = ".prefix",
            message =
                    "a signed-URL prefix has no '.' or '..' segments: the server compares it with the normalised path")
    public record SignedUrlRule(
            @JsonPropertyDescription("A path prefix, starting with /: /vod/ covers /vod/a/b.m4s.")
            @Required
            @Size(min = 1, max = 1024)
            @Pattern(Patterns.URL_PATH_PREFIX)
            String prefix,

            @JsonPropertyDescription(
                    "required: 403 without a valid token; optional: a token the request carries is checked, none is "
                            + "fine; off: no check (to open a part of a required prefix).")
            @Default("required")
            SignedUrlMode mode) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(
            value = Patterns.HEADER_TIMEOUT_BOUNDS,
            fieldPath = ".headerTimeout",
            message = "headerTimeout must be between 1s and 1h")
    @ValidationRule(
            value = Patterns.HANDSHAKE_TIMEOUT_BOUNDS,
            fieldPath = ".handshakeTimeout",
            message = "handshakeTimeout must be between 1s and 1h")
    @ValidationRule(
            value = Patterns.MIN_SEND_PERIOD_BOUNDS,
            fieldPath = ".minSendPeriod",
            message = "minSendPeriod must be between 1s and 1h")
    @ValidationRule(
            value = Patterns.MIN_SEND_BYTES_FITS,
            fieldPath = ".minSendBytes",
            message = "minSendBytes must be at most 2147483647 bytes (2047m): the edge server holds it as an int")
    public record Limits(
            @JsonPropertyDescription(
                    "Deadline for a whole request head (request line and headers), one-nio time (30s): the first "
                            + "request's counts from the accept (TLS handshake included), a later one's from its first byte. A "
                            + "client that has not sent a complete head by then is disconnected however it trickles bytes "
                            + "(slowloris; like nginx client_header_timeout). 1s to 1h.")
            @Default("30s")
            @Pattern(Patterns.ONE_NIO_TIME)
            String headerTimeout,

            @JsonPropertyDescription("Deadline for the TLS handshake from the accept, one-nio time (10s). 1s to 1h.")
            @Default("10s")
            @Pattern(Patterns.ONE_NIO_TIME)
            String handshakeTimeout,

            @JsonPropertyDescription(
                    "Open connections one client address may have; more are closed when accepted. Viewers behind "
                            + "one carrier-grade NAT share an address: keep it well above their number.")
            @Default("1000")
            @Min(1)
            @Max(1000000)
            Integer maxConnectionsPerAddress,

            @JsonPropertyDescription(
                    "Slow readers: a connection with a response pending that takes fewer than minSendBytes in "
                            + "minSendPeriod is disconnected, one-nio size (64k); 0 turns the rule off. Video players read far "
                            + "faster; a client that does not read at all is also closed once it has made no progress for 60s (the idle "
                            + "timeout), found by a sweep that runs every 2 minutes: 60s to 3m after its last progress.")
            @Default("64k")
            @Pattern(Patterns.ONE_NIO_SIZE)
            String minSendBytes,

            @JsonPropertyDescription("The period of the slow-reader rule (minSendBytes), one-nio time (30s). 1s to 1h.")
            @Default("30s")
            @Pattern(Patterns.ONE_NIO_TIME)
            String minSendPeriod,

            @JsonPropertyDescription(
                    "Pipelined requests that may wait while earlier responses have not left; the next one is "
                            + "answered 429 with Retry-After after them and the connection closed. 1 to 255.")
            @Default("32")
            @Min(1)
            @Max(255)
            Integer maxPipelined,

            @JsonPropertyDescription(
                    "Requests per second one client address may make on average (a token bucket requestBurst deep); "
                            + "above it a request is answered 429 with Retry-After and the connection stays open (unless the request asked "
                            + "to close it). 0 (the "
                            + "default): no cap. Viewers behind one carrier-grade NAT share an address: a player asks for a "
                            + "segment every few seconds, so allow their number times a few requests a second.")
            @Default("0")
            @Min(0)
            @Max(1000000)
            Integer maxRequestRate,

            @JsonPropertyDescription(
                    "Requests one client address may make at once above maxRequestRate (the bucket's depth). 1 to "
                            + "1000000.")
            @Default("100")
            @Min(1)
            @Max(1000000)
            Integer requestBurst) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record AccessLog(
            @JsonPropertyDescription("Write the access log.") @Default("true")
            Boolean enabled,

            @JsonPropertyDescription("Log one response in this many (1: every response).")
            @Default("1")
            @Min(1)
            @Max(1000000)
            Integer sample) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(
            value = "(has(self.enabled) && !self.enabled) || has(self.port)",
            fieldPath = ".port",
            message = "an enabled acceptor needs a port")
    @ValidationRule(
            value = "(has(self.enabled) && !self.enabled) || !has(self.port) || self.port != "
                    + Patterns.EDGE_ADMIN_PORT,
            fieldPath = ".port",
            message = "port " + Patterns.EDGE_ADMIN_PORT + " is the edge server's admin port (metrics, probes): "
                    + "choose another")
    @ValidationRule(
            value = "(has(self.enabled) && !self.enabled) || !has(self.port) || self.port != "
                    + Patterns.NODE_AGENT_METRICS_PORT,
            fieldPath = ".port",
            message = "port " + Patterns.NODE_AGENT_METRICS_PORT
                    + " is the node agent's metrics port on every tuned node "
                    + "(host network; the chart's nodeAgent.metricsPort): choose another")
    public record Port(
            @JsonPropertyDescription("TCP port on the node's host network.") @Min(1) @Max(65535)
            Integer port,

            @JsonPropertyDescription("Whether this acceptor listens.") @Default("true")
            Boolean enabled) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(
            value = Patterns.RECV_BUF_FITS,
            fieldPath = ".recvBuf",
            message = "recvBuf must be at most 2147483647 bytes (2047m): the edge server holds socket sizes as an int")
    @ValidationRule(
            value = Patterns.SEND_BUF_FITS,
            fieldPath = ".sendBuf",
            message = "sendBuf must be at most 2147483647 bytes (2047m): the edge server holds socket sizes as an int")
    @ValidationRule(
            value = Patterns.NOTSENT_LOWAT_FITS,
            fieldPath = ".notsentLowat",
            message =
                    "notsentLowat must be at most 2147483647 bytes (2047m): the edge server holds socket sizes as an int")
    @ValidationRule(
            value = "!has(self.acceptorThreads) || self.acceptorThreads == 1 || !has(self.reusePort) || self.reusePort",
            fieldPath = ".acceptorThreads",
            message = "acceptorThreads above 1 needs reusePort: each acceptor thread listens on a socket of its own on "
                    + "the same port")
    public record Socket(
            @JsonPropertyDescription(
                    "SO_RCVBUF of accepted sockets, one-nio size (64k, 4m). Linux caps it at net.core.rmem_max: the agent raises "
                            + "the node's rmem_max to at least this size, and at least 212992 (the NodeTuning's sysctlMinimums), "
                            + "unless tuning.sysctls sets it (then at least this size). Live: new connections get it without a "
                            + "restart (a change to or from 0, the kernel's default, restarts the servers); a size above 208k changes the nodes' tuning too (rolled out node by node).")
            @Default("64k")
            @Pattern(Patterns.ONE_NIO_SIZE)
            String recvBuf,

            @JsonPropertyDescription(
                    "SO_SNDBUF of accepted sockets, one-nio size. 4m lets one connection reach ~32 Mbps at 1 s RTT. Linux caps it "
                            + "at net.core.wmem_max (208 KiB by default): the agent raises the node's wmem_max to at least this size, "
                            + "and at least 4194304 (the NodeTuning's sysctlMinimums), unless tuning.sysctls sets it (then at least "
                            + "this size). Live: new connections get it without a restart (a change to or from 0 restarts the servers); a size above 4m changes the nodes' tuning "
                            + "too (rolled out node by node).")
            @Default("4m")
            @Pattern(Patterns.ONE_NIO_SIZE)
            String sendBuf,

            @JsonPropertyDescription(
                    "TCP_NOTSENT_LOWAT per socket, one-nio size: caps unsent data the kernel holds per connection. Live: new "
                            + "connections get it without a restart (a change to or from 0 restarts the servers).")
            @Default("512k")
            @Pattern(Patterns.ONE_NIO_SIZE)
            String notsentLowat,

            @JsonPropertyDescription("SO_REUSEPORT: one listening socket per acceptor thread, balanced by the kernel.")
            @Default("true")
            Boolean reusePort,

            @JsonPropertyDescription("Acceptor threads per port (one-nio 'threads'); above 1 needs reusePort.")
            @Default("1")
            @Min(1)
            @Max(1024)
            Integer acceptorThreads,

            @JsonPropertyDescription(
                    "Listen backlog per socket. The kernel caps it at the node's net.core.somaxconn (4096 by default since Linux 5.4), which tuning.sysctls can raise.")
            @Default("1024")
            @Min(1)
            @Max(65535)
            Integer backlog) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Cache(
            @JsonPropertyDescription(
                    "Off-heap memory LRU for hot objects and manifests (a Kubernetes quantity). 0 disables it.")
            @Default("256Mi")
            @Pattern(Patterns.K8S_QUANTITY)
            String memory,

            @JsonPropertyDescription("Disk FIFO on the node (SSD/NVMe), served with sendfile.") @Default("{}")
            Disk disk,

            @JsonPropertyDescription(
                    "How long past its expiry a cached object is still served (X-Cache: stale) while the origin fails "
                            + "to revalidate it (a connection error, a timeout, a 5xx, a 429 or another answer it cannot use; never after the "
                            + "origin's 401, 403, 404, 410 or 451, which remove the cached copy), one-nio time "
                            + "(30s, 1h). 0s: the origin's failure is the client's. Never for an object whose "
                            + "Cache-Control forbids serving it stale (no-cache, must-revalidate, proxy-revalidate).")
            @Default("1h")
            @Pattern(Patterns.ONE_NIO_TIME)
            String staleIfError,

            @JsonPropertyDescription(
                    "How long past its expiry a cached object is served at once (X-Cache: updating) while one "
                            + "revalidation with the origin runs in the background for all requests, one-nio time. 0s: a "
                            + "request for an expired object waits for its revalidation, as it always does for an object "
                            + "whose Cache-Control forbids serving it stale (no-cache, must-revalidate, proxy-revalidate).")
            @Default("0s")
            @Pattern(Patterns.ONE_NIO_TIME)
            String staleWhileRevalidate,

            @JsonPropertyDescription(
                    "Slice caching (a Kubernetes quantity, 64Ki to 1Gi; 0 turns it off): objects are fetched from the origin "
                            + "in slices of this size with Range requests and cached per slice, so a request for the start "
                            + "of a large file waits for one slice, not the whole file (as nginx's slice module). Every "
                            + "slice must carry the first one's ETag, Last-Modified and length: an object that changes at "
                            + "the origin between slices is never stitched together. The origin must answer Range "
                            + "requests. 4Mi suits video files.")
            @Default("0")
            @Pattern(Patterns.K8S_QUANTITY)
            String slice) {

        @JsonInclude(JsonInclude.Include.NON_NULL)
        public record Disk(
                @JsonPropertyDescription("Directory on the node for the disk cache (a hostPath).")
                @Default("/var/cache/videoedge")
                @Pattern(Patterns.ABSOLUTE_PATH)
                @Size(max = 1024)
                String path,

                @JsonPropertyDescription("Byte budget of the disk cache (a Kubernetes quantity). 0 disables it.")
                @Default("10Gi")
                @Pattern(Patterns.K8S_QUANTITY)
                String size) {}
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(
            value = "!has(self.url) || self.url.matches(\"" + Patterns.ORIGIN_URL + "\")",
            fieldPath = ".url",
            message =
                    "origin.url must be http:// or https:// with a host name or IPv4 address, an optional port 1-65535 "
                            + "and an optional path, no user, query or fragment; e.g. http://origin.example:8080/video")
    @ValidationRule(
            value = "!has(self.caSecretName) || (has(self.url) && self.url.startsWith('https://'))",
            fieldPath = ".caSecretName",
            message = "origin.caSecretName is only for an https:// origin.url (a CA bundle verifies "
                    + "the origin's TLS certificate): use https:// or remove caSecretName")
    @ValidationRule(
            value = "!has(self.failover) || size(self.failover) == 0 || (has(self.url) "
                    + "&& !self.failover.exists(f, f.url == self.url) "
                    + "&& self.failover.all(a, self.failover.exists_one(b, b.url == a.url)))",
            fieldPath = ".failover",
            message = "origin.failover needs origin.url and must not name an origin twice (nor origin.url)")
    @ValidationRule(
            value = Patterns.DOWN_FOR_BOUNDS,
            fieldPath = ".downFor",
            message = "downFor must be from 100ms to 2147483647ms (about 24 days)")
    @ValidationRule(
            value = Patterns.CONNECT_TIMEOUT_FITS,
            fieldPath = ".connectTimeout",
            message = "connectTimeout must be at most 2147483647ms (about 24 days)")
    @ValidationRule(
            value = Patterns.READ_TIMEOUT_FITS,
            fieldPath = ".readTimeout",
            message = "readTimeout must be at most 2147483647ms (about 24 days)")
    @ValidationRule(
            value = "!has(self.connectTimeout) || !self.connectTimeout.matches('^0+(ms|s|m|h|d)$')",
            fieldPath = ".connectTimeout",
            message = "connectTimeout must be at least 1ms")
    @ValidationRule(
            value = "!has(self.readTimeout) || !self.readTimeout.matches('^0+(ms|s|m|h|d)$')",
            fieldPath = ".readTimeout",
            message = "readTimeout must be at least 1ms")
    public record Origin(
            @JsonPropertyDescription(
                    "Origin base URL, http:// or https://; an object /a/b.mp4 is fetched from URL/a/b.mp4. With "
                            + "https:// the origin's certificate chain is verified (against caSecretName, else the image's system CAs) and its "
                            + "subjectAltName must name the URL's host.")
            @Size(min = 1, max = 2048)
            String url,

            @JsonPropertyDescription(
                    "https:// only: a Secret in the VideoEdge's namespace whose key ca.crt holds the PEM bundle of the "
                            + "CAs the origin's certificate must chain to (the key cert-manager and kubernetes.io/tls Secrets use); only that "
                            + "bundle is trusted then. Unset: the edge-server image's system CA store (/etc/ssl/certs/ca-certificates.crt). "
                            + "Either way the URL's host must be in the certificate's subjectAltName. Only ca.crt is mounted (read-only). The "
                            + "server loads the bundle when it starts: the operator reads the Secret again every recheck interval (30s by "
                            + "default) and a changed ca.crt restarts the edge servers through a rollout.")
            @Size(min = 1, max = 253)
            @Pattern(Patterns.DNS_SUBDOMAIN)
            String caSecretName,

            @JsonPropertyDescription("Connect timeout, one-nio time (500ms, 1s).")
            @Default("1s")
            @Pattern(Patterns.ONE_NIO_TIME)
            String connectTimeout,

            @JsonPropertyDescription(
                    "How long the edge waits for the next bytes of an origin response (its head or its body), "
                            + "one-nio time; it does not limit the whole response: an origin that keeps sending is never cut.")
            @Default("10s")
            @Pattern(Patterns.ONE_NIO_TIME)
            String readTimeout,

            @JsonPropertyDescription(
                    "Concurrent connections to the origin; each takes a 128Ki I/O buffer out of server.memory.")
            @Default("64")
            @Min(1)
            @Max(65535)
            Integer maxConnections,

            @JsonPropertyDescription(
                    "More origins, tried in order after url when the ones before are down (at most 7). An origin that fails "
                            + "(connection refused, timeout, TLS failure, a 5xx) is skipped for downFor, doubled for each further "
                            + "failure in a row up to 8 times downFor, and the same request goes on to the next origin. https:// ones "
                            + "are verified against caSecretName when url is https://, else against the image's system CAs. "
                            + "Metrics per origin are labelled host:port.")
            @Size(max = 7)
            List<FailoverOrigin> failover,

            @JsonPropertyDescription(
                    "How long an origin that failed is skipped before it is tried again (passive health), one-nio time; at "
                            + "least 100ms.")
            @Default("5s")
            @Pattern(Patterns.ONE_NIO_TIME)
            String downFor) {

        /** The fields before failover existed: no failover origins, the default downFor. */
        public Origin(
                String url, String caSecretName, String connectTimeout, String readTimeout, Integer maxConnections) {
            this(url, caSecretName, connectTimeout, readTimeout, maxConnections, null, null);
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(
            value = "self.url.matches(\"" + Patterns.ORIGIN_URL + "\")",
            fieldPath = ".url",
            message =
                    "a failover origin's url must be http:// or https:// with a host name or IPv4 address, an optional "
                            + "port 1-65535 and an optional path, no user, query or fragment")
    @ValidationRule(
            value = "!self.url.contains(',')",
            fieldPath = ".url",
            message = "a failover origin's url must not hold a comma (the edge server's config lists the failover "
                    + "origins separated by commas): write it %2C")
    public record FailoverOrigin(
            @JsonPropertyDescription("Base URL of a failover origin, as origin.url.")
            @Required
            @Size(min = 1, max = 2048)
            String url) {}
}
