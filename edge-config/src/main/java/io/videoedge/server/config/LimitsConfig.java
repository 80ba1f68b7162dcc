package io.videoedge.server.config;

import one.nio.config.Config;
import one.nio.config.Converter;

/**
 * Per-request and per-process limits, and the defences against clients that hold connections without
 * using them. {@code maxHeaderSize} bounds the whole request head (request line and header lines, 431
 * above it), {@code maxUriLength} the request target (414), {@code idleTimeout} how long a connection
 * with a response in flight may make no progress. The defences (edge-server/README.md, "Defences"):
 * {@code headerTimeout} bounds the time a whole request head may take to arrive, {@code handshakeTimeout}
 * the TLS handshake, {@code maxConnectionsPerAddress} the connections of one client address (refused at
 * accept above it), {@code minSendBytes} in {@code minSendPeriod} the slowest a client may take a pending
 * response (0 bytes: no such rule), {@code maxPipelined} the requests queued behind the one being answered
 * (429 and close above it), {@code maxRequestRate} the requests per second one client address may make
 * on average with bursts of {@code requestBurst} (429 with Retry-After above it, the connection kept unless
 * the request asked to close it; 0: no cap, the default).
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

    @Converter(method = "time")
    public int headerTimeout = 30_000;

    @Converter(method = "time")
    public int handshakeTimeout = 10_000;

    public int maxConnectionsPerAddress = 1000;

    @Converter(method = "size")
    public int minSendBytes = 64 * 1024;

    @Converter(method = "time")
    public int minSendPeriod = 30_000;

    public int maxPipelined = 32;

    public int maxRequestRate = 0;

    public int requestBurst = 100;
}
