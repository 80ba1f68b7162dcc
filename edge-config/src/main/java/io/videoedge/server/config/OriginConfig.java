package io.videoedge.server.config;

import java.util.regex.Pattern;
import one.nio.config.Config;
import one.nio.config.Converter;

/**
 * The upstream HTTP server that cache misses are fetched from. Optional. {@code url}: {@code http://}
 * or {@code https://host[:port][/base]}. {@code caFile}: for https, the PEM bundle of the CAs the
 * origin's certificate must chain to (default: the system bundle, /etc/ssl/certs/ca-certificates.crt);
 * the host name of the URL must be in the certificate's subjectAltName. {@code failover}: more origins
 * (same URL form), tried in order when the ones before them are down: an origin that fails (connection
 * refused, timeout, TLS failure, a 5xx) is skipped for {@code downFor}, doubled for each further failure
 * in a row up to eight times, and tried again after that (passive health checks).
 */
@Config
public class OriginConfig {
    /** Debian's bundle of the system's trusted CAs (package ca-certificates): the default {@code caFile}. */
    public static final String SYSTEM_CA_FILE = "/etc/ssl/certs/ca-certificates.crt";
    /**
     * The URLs the client fetches from: http(s)://host[:port][/path], the host a DNS name (its last label
     * starting with a letter) or an IPv4 address, the port 1-65535, the path of URL path characters; no
     * user, query or fragment (the client would drop them). The VideoEdge CRD admits the same expression.
     */
    public static final Pattern URL = Pattern.compile("^https?://"
            + "(([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?[.])*[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
            + "|(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])([.](25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3})"
            + "(:([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?"
            + "(/([A-Za-z0-9._~!$&()*+,;=:@/-]|%[0-9A-Fa-f]{2})*)?$");

    /** At most this many failover origins besides {@code url}. */
    public static final int MAX_FAILOVER = 7;

    public String url;
    public String[] failover;
    public String caFile;

    @Converter(method = "time")
    public int downFor = 5_000;

    @Converter(method = "time")
    public int connectTimeout = 1_000;

    @Converter(method = "time")
    public int readTimeout = 10_000;

    public int maxConnections = 64;

    /** {@code url}, then the failover origins, in the order they are tried. */
    public java.util.List<String> urls() {
        java.util.List<String> all = new java.util.ArrayList<>();
        all.add(url);
        if (failover != null) all.addAll(java.util.List.of(failover));
        return all;
    }
}
