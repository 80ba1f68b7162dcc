package io.videoedge.server.config;

import one.nio.config.Config;
import one.nio.config.Converter;

/** The upstream HTTP server that cache misses are fetched from. Optional. */
@Config
public class OriginConfig {
    public String url;
    @Converter(method = "time")
    public int connectTimeout = 1_000;
    @Converter(method = "time")
    public int readTimeout = 10_000;
    public int maxConnections = 64;
}
