package io.videoedge.server.config;

import one.nio.config.Config;
import one.nio.config.Converter;

/** The two cache tiers in front of the origin: an off-heap memory LRU and a disk FIFO. */
@Config
public class CacheConfig {
    @Converter(method = "longSize")
    public long memory = 128L * 1024 * 1024;
    public DiskCacheConfig disk = new DiskCacheConfig();

    @Config
    public static class DiskCacheConfig {
        public String path;
        @Converter(method = "longSize")
        public long size = 1024L * 1024 * 1024;
    }
}
