package io.videoedge.server.config;

import one.nio.config.Config;
import one.nio.config.Converter;

/**
 * The direct-memory buffer pool every file and network buffer of the request path comes from
 * (origin reads, cache file writes, TLS user-space copies). Allocated once at startup; run the JVM
 * with -XX:MaxDirectMemorySize at least {@code size} plus 16m for the JDK's own use.
 */
@Config
public class BufferPoolConfig {
    @Converter(method = "longSize")
    public long size = 32L * 1024 * 1024;

    @Converter(method = "size")
    public int chunkSize = 128 * 1024;
}
