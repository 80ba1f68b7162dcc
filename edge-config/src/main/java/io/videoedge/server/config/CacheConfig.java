package io.videoedge.server.config;

import one.nio.config.Config;
import one.nio.config.Converter;

/**
 * The two cache tiers in front of the origin: an off-heap memory LRU ({@code memory} bytes, objects up
 * to {@code memoryMaxObject}; objects over 256 KiB enter it on their second request) and a disk FIFO
 * ({@code disk.size} bytes under {@code disk.path}).
 * Freshness: the origin's Cache-Control max-age / s-maxage or Expires, else {@code ttl}. An expired
 * object is revalidated with the origin; if the origin fails, it is still served for
 * {@code staleWhileError} past its expiry. Within {@code staleWhileRevalidate} past its expiry it is
 * served at once (X-Cache {@code updating}) while one revalidation runs in the background (RFC 5861's
 * stale-while-revalidate for every object; 0: the request waits for the revalidation). Neither applies
 * to an object whose Cache-Control forbids serving it stale (no-cache, must-revalidate,
 * proxy-revalidate).
 * With {@code slice} (bytes, 0: off) objects are fetched from the origin in slices of that size with
 * Range requests and cached per slice, so a range at the start of a large object waits for one slice,
 * not for the whole object (nginx's {@code slice}).
 */
@Config
public class CacheConfig {
    @Converter(method = "longSize")
    public long memory = 128L * 1024 * 1024;

    @Converter(method = "size")
    public int memoryMaxObject = 4 * 1024 * 1024;

    public DiskCacheConfig disk = new DiskCacheConfig();

    @Converter(method = "longTime")
    public long ttl = 10 * 60_000L;

    @Converter(method = "longTime")
    public long staleWhileError = 60 * 60_000L;

    @Converter(method = "longTime")
    public long staleWhileRevalidate = 0;

    @Converter(method = "longSize")
    public long slice = 0;

    @Config
    public static class DiskCacheConfig {
        public String path;

        @Converter(method = "longSize")
        public long size = 1024L * 1024 * 1024;
    }
}
