package io.videoedge.api;

/** Formats the CRD enforces at admission. */
final class Patterns {
    /**
     * one-nio's size converter: bytes with an optional k, m or g suffix (64k, 4m). At most 10 digits, 9
     * with a suffix, so that the CEL rules below compute the bytes without overflowing.
     */
    static final String ONE_NIO_SIZE = "^([0-9]{1,10}|[0-9]{1,9}[kKmMgG])$";
    /** The largest size or time the edge server holds in a Java int (bytes, milliseconds). */
    static final String INT_MAX = "2147483647";

    static final String RECV_BUF_FITS =
            "!has(self.recvBuf) || (self.recvBuf.matches('[kK]$') ? int(self.recvBuf.substring(0, size(self.recvBuf) - 1)) * 1024 : self.recvBuf.matches('[mM]$') ? int(self.recvBuf.substring(0, size(self.recvBuf) - 1)) * 1048576 : self.recvBuf.matches('[gG]$') ? int(self.recvBuf.substring(0, size(self.recvBuf) - 1)) * 1073741824 : int(self.recvBuf)) <= "
                    + INT_MAX;
    static final String SEND_BUF_FITS =
            "!has(self.sendBuf) || (self.sendBuf.matches('[kK]$') ? int(self.sendBuf.substring(0, size(self.sendBuf) - 1)) * 1024 : self.sendBuf.matches('[mM]$') ? int(self.sendBuf.substring(0, size(self.sendBuf) - 1)) * 1048576 : self.sendBuf.matches('[gG]$') ? int(self.sendBuf.substring(0, size(self.sendBuf) - 1)) * 1073741824 : int(self.sendBuf)) <= "
                    + INT_MAX;
    static final String NOTSENT_LOWAT_FITS =
            "!has(self.notsentLowat) || (self.notsentLowat.matches('[kK]$') ? int(self.notsentLowat.substring(0, size(self.notsentLowat) - 1)) * 1024 : self.notsentLowat.matches('[mM]$') ? int(self.notsentLowat.substring(0, size(self.notsentLowat) - 1)) * 1048576 : self.notsentLowat.matches('[gG]$') ? int(self.notsentLowat.substring(0, size(self.notsentLowat) - 1)) * 1073741824 : int(self.notsentLowat)) <= "
                    + INT_MAX;
    static final String CONNECT_TIMEOUT_FITS =
            "!has(self.connectTimeout) || (self.connectTimeout.endsWith('ms') ? int(self.connectTimeout.substring(0, size(self.connectTimeout) - 2)) : self.connectTimeout.endsWith('s') ? int(self.connectTimeout.substring(0, size(self.connectTimeout) - 1)) * 1000 : self.connectTimeout.endsWith('m') ? int(self.connectTimeout.substring(0, size(self.connectTimeout) - 1)) * 60000 : self.connectTimeout.endsWith('h') ? int(self.connectTimeout.substring(0, size(self.connectTimeout) - 1)) * 3600000 : int(self.connectTimeout.substring(0, size(self.connectTimeout) - 1)) * 86400000) <= "
                    + INT_MAX;
    static final String READ_TIMEOUT_FITS =
            "!has(self.readTimeout) || (self.readTimeout.endsWith('ms') ? int(self.readTimeout.substring(0, size(self.readTimeout) - 2)) : self.readTimeout.endsWith('s') ? int(self.readTimeout.substring(0, size(self.readTimeout) - 1)) * 1000 : self.readTimeout.endsWith('m') ? int(self.readTimeout.substring(0, size(self.readTimeout) - 1)) * 60000 : self.readTimeout.endsWith('h') ? int(self.readTimeout.substring(0, size(self.readTimeout) - 1)) * 3600000 : int(self.readTimeout.substring(0, size(self.readTimeout) - 1)) * 86400000) <= "
                    + INT_MAX;
    /** origin.downFor: 100ms to the int range of milliseconds the server holds. */
    static final String DOWN_FOR_BOUNDS =
            "!has(self.downFor) || ((self.downFor.endsWith('ms') ? int(self.downFor.substring(0, size(self.downFor) - 2)) : self.downFor.endsWith('s') ? int(self.downFor.substring(0, size(self.downFor) - 1)) * 1000 : self.downFor.endsWith('m') ? int(self.downFor.substring(0, size(self.downFor) - 1)) * 60000 : self.downFor.endsWith('h') ? int(self.downFor.substring(0, size(self.downFor) - 1)) * 3600000 : int(self.downFor.substring(0, size(self.downFor) - 1)) * 86400000) >= 100 && (self.downFor.endsWith('ms') ? int(self.downFor.substring(0, size(self.downFor) - 2)) : self.downFor.endsWith('s') ? int(self.downFor.substring(0, size(self.downFor) - 1)) * 1000 : self.downFor.endsWith('m') ? int(self.downFor.substring(0, size(self.downFor) - 1)) * 60000 : self.downFor.endsWith('h') ? int(self.downFor.substring(0, size(self.downFor) - 1)) * 3600000 : int(self.downFor.substring(0, size(self.downFor) - 1)) * 86400000) <= "
                    + INT_MAX
                    + ")";

    /** limits.* times the edge server accepts: 1s to 1h (the server itself takes 100ms and more). */
    static final String HEADER_TIMEOUT_BOUNDS =
            "!has(self.headerTimeout) || ((self.headerTimeout.endsWith('ms') ? int(self.headerTimeout.substring(0, size(self.headerTimeout) - 2)) : self.headerTimeout.endsWith('s') ? int(self.headerTimeout.substring(0, size(self.headerTimeout) - 1)) * 1000 : self.headerTimeout.endsWith('m') ? int(self.headerTimeout.substring(0, size(self.headerTimeout) - 1)) * 60000 : self.headerTimeout.endsWith('h') ? int(self.headerTimeout.substring(0, size(self.headerTimeout) - 1)) * 3600000 : int(self.headerTimeout.substring(0, size(self.headerTimeout) - 1)) * 86400000) >= 1000 && (self.headerTimeout.endsWith('ms') ? int(self.headerTimeout.substring(0, size(self.headerTimeout) - 2)) : self.headerTimeout.endsWith('s') ? int(self.headerTimeout.substring(0, size(self.headerTimeout) - 1)) * 1000 : self.headerTimeout.endsWith('m') ? int(self.headerTimeout.substring(0, size(self.headerTimeout) - 1)) * 60000 : self.headerTimeout.endsWith('h') ? int(self.headerTimeout.substring(0, size(self.headerTimeout) - 1)) * 3600000 : int(self.headerTimeout.substring(0, size(self.headerTimeout) - 1)) * 86400000) <= 3600000)";

    static final String HANDSHAKE_TIMEOUT_BOUNDS =
            "!has(self.handshakeTimeout) || ((self.handshakeTimeout.endsWith('ms') ? int(self.handshakeTimeout.substring(0, size(self.handshakeTimeout) - 2)) : self.handshakeTimeout.endsWith('s') ? int(self.handshakeTimeout.substring(0, size(self.handshakeTimeout) - 1)) * 1000 : self.handshakeTimeout.endsWith('m') ? int(self.handshakeTimeout.substring(0, size(self.handshakeTimeout) - 1)) * 60000 : self.handshakeTimeout.endsWith('h') ? int(self.handshakeTimeout.substring(0, size(self.handshakeTimeout) - 1)) * 3600000 : int(self.handshakeTimeout.substring(0, size(self.handshakeTimeout) - 1)) * 86400000) >= 1000 && (self.handshakeTimeout.endsWith('ms') ? int(self.handshakeTimeout.substring(0, size(self.handshakeTimeout) - 2)) : self.handshakeTimeout.endsWith('s') ? int(self.handshakeTimeout.substring(0, size(self.handshakeTimeout) - 1)) * 1000 : self.handshakeTimeout.endsWith('m') ? int(self.handshakeTimeout.substring(0, size(self.handshakeTimeout) - 1)) * 60000 : self.handshakeTimeout.endsWith('h') ? int(self.handshakeTimeout.substring(0, size(self.handshakeTimeout) - 1)) * 3600000 : int(self.handshakeTimeout.substring(0, size(self.handshakeTimeout) - 1)) * 86400000) <= 3600000)";
    static final String MIN_SEND_PERIOD_BOUNDS =
            "!has(self.minSendPeriod) || ((self.minSendPeriod.endsWith('ms') ? int(self.minSendPeriod.substring(0, size(self.minSendPeriod) - 2)) : self.minSendPeriod.endsWith('s') ? int(self.minSendPeriod.substring(0, size(self.minSendPeriod) - 1)) * 1000 : self.minSendPeriod.endsWith('m') ? int(self.minSendPeriod.substring(0, size(self.minSendPeriod) - 1)) * 60000 : self.minSendPeriod.endsWith('h') ? int(self.minSendPeriod.substring(0, size(self.minSendPeriod) - 1)) * 3600000 : int(self.minSendPeriod.substring(0, size(self.minSendPeriod) - 1)) * 86400000) >= 1000 && (self.minSendPeriod.endsWith('ms') ? int(self.minSendPeriod.substring(0, size(self.minSendPeriod) - 2)) : self.minSendPeriod.endsWith('s') ? int(self.minSendPeriod.substring(0, size(self.minSendPeriod) - 1)) * 1000 : self.minSendPeriod.endsWith('m') ? int(self.minSendPeriod.substring(0, size(self.minSendPeriod) - 1)) * 60000 : self.minSendPeriod.endsWith('h') ? int(self.minSendPeriod.substring(0, size(self.minSendPeriod) - 1)) * 3600000 : int(self.minSendPeriod.substring(0, size(self.minSendPeriod) - 1)) * 86400000) <= 3600000)";
    static final String MIN_SEND_BYTES_FITS =
            "!has(self.minSendBytes) || (self.minSendBytes.matches('[kK]$') ? int(self.minSendBytes.substring(0, size(self.minSendBytes) - 1)) * 1024 : self.minSendBytes.matches('[mM]$') ? int(self.minSendBytes.substring(0, size(self.minSendBytes) - 1)) * 1048576 : self.minSendBytes.matches('[gG]$') ? int(self.minSendBytes.substring(0, size(self.minSendBytes) - 1)) * 1073741824 : int(self.minSendBytes)) <= "
                    + INT_MAX;

    /**
     * A socket size and the sysctl that caps it (net.core.wmem_max for SO_SNDBUF, rmem_max for SO_RCVBUF): when
     * tuning.sysctls sets the sysctl (one integer), it is at least the size in bytes. Without it the operator
     * renders the NodeTuning's sysctlMinimums instead.
     */
    static final String WMEM_MAX_HOLDS_SEND_BUF =
            "!has(self.tuning) || !has(self.tuning.sysctls) || !('net.core.wmem_max' in self.tuning.sysctls)"
                    + " || !has(self.server) || !has(self.server.socket) || !has(self.server.socket.sendBuf)"
                    + " || !self.tuning.sysctls['net.core.wmem_max'].matches(" + TuningSpec.ONE_INTEGER
                    + ") || !self.server.socket.sendBuf.matches('"
                    + ONE_NIO_SIZE + "')"
                    + " || int(self.tuning.sysctls['net.core.wmem_max'].findAll('-?[0-9]+')[0]) >= (self.server.socket.sendBuf.matches('[kK]$') ? int(self.server.socket.sendBuf.substring(0, size(self.server.socket.sendBuf) - 1)) * 1024 : self.server.socket.sendBuf.matches('[mM]$') ? int(self.server.socket.sendBuf.substring(0, size(self.server.socket.sendBuf) - 1)) * 1048576 : self.server.socket.sendBuf.matches('[gG]$') ? int(self.server.socket.sendBuf.substring(0, size(self.server.socket.sendBuf) - 1)) * 1073741824 : int(self.server.socket.sendBuf))";

    static final String RMEM_MAX_HOLDS_RECV_BUF =
            "!has(self.tuning) || !has(self.tuning.sysctls) || !('net.core.rmem_max' in self.tuning.sysctls)"
                    + " || !has(self.server) || !has(self.server.socket) || !has(self.server.socket.recvBuf)"
                    + " || !self.tuning.sysctls['net.core.rmem_max'].matches(" + TuningSpec.ONE_INTEGER
                    + ") || !self.server.socket.recvBuf.matches('"
                    + ONE_NIO_SIZE + "')"
                    + " || int(self.tuning.sysctls['net.core.rmem_max'].findAll('-?[0-9]+')[0]) >= (self.server.socket.recvBuf.matches('[kK]$') ? int(self.server.socket.recvBuf.substring(0, size(self.server.socket.recvBuf) - 1)) * 1024 : self.server.socket.recvBuf.matches('[mM]$') ? int(self.server.socket.recvBuf.substring(0, size(self.server.socket.recvBuf) - 1)) * 1048576 : self.server.socket.recvBuf.matches('[gG]$') ? int(self.server.socket.recvBuf.substring(0, size(self.server.socket.recvBuf) - 1)) * 1073741824 : int(self.server.socket.recvBuf))";

    /** A label key as Kubernetes takes it: an optional DNS-subdomain prefix and '/', then a name of up to 63. */
    static final String LABEL_KEY = VideoEdgeApi.LABEL_KEY_PATTERN;
    /** A label value as Kubernetes takes it: empty, or up to 63 characters starting and ending alphanumeric. */
    static final String LABEL_VALUE = VideoEdgeApi.LABEL_VALUE_PATTERN;

    /** one-nio's time converter: a number with ms, s, m, h or d. */
    static final String ONE_NIO_TIME = "^[0-9]{1,9}(ms|s|m|h|d)$";
    /** A Kubernetes quantity as used for memory and disk (2Gi, 512Mi, 100G); CEL rules bound it below 1Ei. */
    static final String K8S_QUANTITY = "^[0-9]{1,15}(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$";
    /** A positive count or a percentage from 1% to 100% (0 would never let a rollout start). */
    static final String MAX_UNAVAILABLE = "^([1-9][0-9]{0,5}|[1-9][0-9]?%|100%)$";
    /** An absolute path of plain names (CEL rules also refuse '.' and '..' segments). */
    static final String ABSOLUTE_PATH = "^(/[A-Za-z0-9_.+@-]+)+/?$";
    /**
     * An origin URL the edge server can fetch from: http(s)://host[:port][/path], the host a DNS name
     * (its last label starting with a letter) or an IPv4 address, the port 1-65535, the path of URL
     * path characters; no user, query or fragment. The same expression as the server's
     * {@code OriginConfig.URL} (the admitted-runs property test holds the two together).
     */
    static final String ORIGIN_URL = "^https?://"
            + "(([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?[.])*[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
            + "|(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])([.](25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3})"
            + "(:([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?"
            + "(/([A-Za-z0-9._~!$&()*+,;=:@/-]|%[0-9A-Fa-f]{2})*)?$";
    /**
     * A path prefix as the edge server compares it (with the decoded path): "/" and segments of printable
     * characters without blanks, "?", "#", "%" or backslash; "." and ".." segments are refused by a CEL rule.
     */
    static final String URL_PATH_PREFIX = "^(/[^\\s\\p{Z}\\p{Cc}?#%\\\\/]+)*/?$";

    /**
     * Directories of a node the edge server's host paths must keep out of, in and above (a path that holds one
     * exposes it too): the server serves its contentPath over HTTP, and its pod takes ownership of its cache
     * directory. With a trailing '/', as {@link #CONTENT_DIR} and {@link #CACHE_DIR} compare them.
     */
    static final String HOST_SYSTEM_DIRS =
            "['/etc/', '/root/', '/proc/', '/sys/', '/dev/', '/boot/', '/usr/', '/bin/', "
                    + "'/sbin/', '/lib/', '/lib64/', '/run/', '/var/run/', '/var/lib/kubelet/', '/var/lib/containerd/', "
                    + "'/var/lib/docker/', '/var/lib/containers/', '/var/lib/rancher/', '/var/lib/cni/', '/var/lib/etcd/', "
                    + "'/var/lock/', '/var/log/']";
    /** server.contentPath with one trailing '/' (CEL), so that prefixes compare whole segments. */
    static final String CONTENT_DIR = "(self.contentPath.endsWith('/') ? self.contentPath : self.contentPath + '/')";
    /** server.cache.disk.path with one trailing '/' (CEL). */
    static final String CACHE_DIR =
            "(self.cache.disk.path.endsWith('/') ? self.cache.disk.path : self.cache.disk.path + '/')";
    /**
     * A container image reference: an optional registry host (and port), lower-case path components, an optional
     * tag and an optional sha256 digest; no blanks (the pod template would take them, every pod then refused).
     */
    static final String IMAGE = "^(([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)([.][A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*"
            + "(:[0-9]{1,5})?/)?[a-z0-9]+(([.]|_|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([.]|_|__|-+)[a-z0-9]+)*)*"
            + "(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$";

    /** A Kubernetes object name that is a DNS subdomain (Secrets, ConfigMaps): lower-case labels separated by dots. */
    static final String DNS_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
    /**
     * The memory cache fits in the edge server's pod beside the JVM: server.memory less the heap (a quarter, in
     * whole Mi, at most 4Gi), 192Mi of native memory and the I/O buffer pool (a 128Ki chunk per origin connection
     * and 8 spare, at least 32Mi). The operator's ServerMemory makes the same budget (the admitted-runs property
     * test holds the two together). Quantities that are not whole bytes are left to the operator, which rounds
     * them up.
     */
    static final String CACHE_FITS_BESIDE_JVM = "!has(self.cache) || !has(self.cache.memory) || !has(self.memory) "
            + "|| !quantity(self.cache.memory).isInteger() || !quantity(self.memory).isInteger() "
            + "|| quantity(self.cache.memory).asInteger() <= quantity(self.memory).asInteger() "
            + "- (quantity(self.memory).asInteger() / 4 / 1048576 * 1048576 > 4294967296 ? 4294967296 "
            + ": quantity(self.memory).asInteger() / 4 / 1048576 * 1048576) - 201326592 "
            + "- (has(self.origin) && has(self.origin.url) && has(self.origin.maxConnections) "
            + "&& (self.origin.maxConnections + 8) * 131072 > 33554432 ? (self.origin.maxConnections + 8) * 131072 "
            + ": 33554432)";
    /** The edge server's admin port (metrics, probes) on the node's host network; the acceptors must not take it. */
    static final int EDGE_ADMIN_PORT = VideoEdgeApi.EDGE_ADMIN_PORT;

    static final int NODE_AGENT_METRICS_PORT = VideoEdgeApi.NODE_AGENT_METRICS_PORT;

    private Patterns() {}
}
