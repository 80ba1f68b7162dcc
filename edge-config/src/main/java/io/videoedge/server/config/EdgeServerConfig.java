package io.videoedge.server.config;

import one.nio.config.Config;
import one.nio.config.Converter;
import one.nio.http.HttpServerConfig;

/**
 * The edge server configuration: one-nio's {@link HttpServerConfig} (selectors, affinity, pinAcceptors,
 * multiAcceptor, keepAlive, acceptors[] with their ssl section, all under one-nio's own field names)
 * plus the sections of our own below. Parsed by {@link ConfigLoader} with one-nio's ConfigParser.
 *
 * <pre>
 * selectors: 0                 # 0 = one selector per CPU this process may run on (sched_getaffinity)
 * affinity: true               # pin selector i to the i-th allowed CPU (not to CPU i)
 * pinAcceptors: true
 * multiAcceptor: true
 * keepAlive: 120s              # idle keep-alive connections are closed after this
 * acceptors:
 * - port: 8080
 *   recvBuf: 64k
 *   sendBuf: 4m
 *   notsentLowat: 512k
 *   reusePort: true
 *   threads: 1
 *   backlog: 1024
 * - port: 8443
 *   ...same socket fields...
 *   ssl:
 *     protocols: TLSv1.2 TLSv1.3
 *     certFile: /etc/videoedge/tls/tls.crt
 *     privateKeyFile: /etc/videoedge/tls/tls.key
 *     ticketDir: /var/run/videoedge/tickets   # 48-byte key files, the newest encrypts; rotated, see ticketKeys
 *     kernelTlsEnabled: true
 *     maxEarlyDataSize: 4096
 *     antiReplayEnabled: false
 *     cacheMode: none
 * admin:
 *   port: 9400                 # /metrics, /healthz, /readyz, plain HTTP
 * content:
 *   root: /var/lib/videoedge/content
 * limits:
 *   maxHeaderSize: 8k          # request line + headers; more gives 431
 *   maxUriLength: 4k           # request target; longer gives 414
 *   maxConnections: 100000
 *   idleTimeout: 60s           # a response that makes no progress for this long is dropped
 * cache:
 *   memory: 128m               # off-heap LRU budget (one-nio Malloc, outside the Java heap)
 *   memoryMaxObject: 4m        # larger objects live on disk only
 *   disk:
 *     path: /var/cache/videoedge
 *     size: 1g                 # disk FIFO budget
 *   ttl: 10m                   # freshness when the origin gives none
 *   staleWhileError: 1h        # serve expired objects this long while the origin fails
 * origin:                      # optional: fetch misses from here
 *   url: http://origin.example:8080  # or https://...: chain and host name verified
 *   caFile: /etc/videoedge/origin-ca.pem  # https only; default: the system bundle
 *   connectTimeout: 1s
 *   readTimeout: 10s
 *   maxConnections: 64
 * bufferPool:                  # all direct buffers of the request path
 *   size: 32m
 *   chunkSize: 128k
 * ticketKeys:
 *   rotation: 1h               # a new ticket key every hour, the previous one decrypts one more hour; 0: never
 * drainTimeout: 25s            # graceful shutdown deadline for in-flight responses
 * </pre>
 *
 * Values follow ConfigParser: {@code size} is a number with an optional k/m/g suffix (1024-based),
 * {@code time} a number with ms/s/m/h/d. A comment may follow a value after whitespace and '#'.
 */
@Config
public class EdgeServerConfig extends HttpServerConfig {
    public AdminConfig admin = new AdminConfig();
    public ContentConfig content = new ContentConfig();
    public LimitsConfig limits = new LimitsConfig();
    public CacheConfig cache = new CacheConfig();
    public OriginConfig origin;
    public BufferPoolConfig bufferPool = new BufferPoolConfig();
    public TicketKeysConfig ticketKeys = new TicketKeysConfig();
    @Converter(method = "time")
    public int drainTimeout = 25_000;
}
