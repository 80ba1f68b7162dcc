package io.videoedge.server.config;

import one.nio.config.Config;
import one.nio.config.Converter;

/**
 * Per-request and per-process limits. {@code maxHeaderSize} bounds the whole request head (request
 * line and header lines, 431 above it), {@code maxUriLength} the request target (414),
 * {@code idleTimeout} how long a connection with a response in flight may make no progress.
 */
@Config
public class LimitsConfig {
    @Converter(method = "size")
    public int maxHeaderSize = 8 * 1024;

    @Converter(method = "size")
    public int maxUriLength = 4 * 1024;

    public int maxConnections = 100_000;

    @Converter(method = "time")
    public int idleTimeout = 60_000;
}
