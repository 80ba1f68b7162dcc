package io.videoedge.server.config;

import one.nio.config.Config;
import one.nio.config.Converter;

/**
 * The upstream HTTP server that cache misses are fetched from. Optional. {@code url}: {@code http://}
 * or {@code https://host[:port][/base]}. {@code caFile}: for https, the PEM bundle of the CAs the
 * origin's certificate must chain to (default: the system bundle, /etc/ssl/certs/ca-certificates.crt);
 * the host name of the URL must be in the certificate's subjectAltName.
 */
@Config
public class OriginConfig {
    /** Debian's bundle of the system's trusted CAs (package ca-certificates): the default {@code caFile}. */
    public static final String SYSTEM_CA_FILE = "/etc/ssl/certs/ca-certificates.crt";

    public String url;
    public String caFile;
    @Converter(method = "time")
    public int connectTimeout = 1_000;
    @Converter(method = "time")
    public int readTimeout = 10_000;
    public int maxConnections = 64;
}
