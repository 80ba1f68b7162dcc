package io.videoedge.server.cache;

import java.nio.file.Path;

/**
 * The edge's page-cache probe ({@link PageCache}), for tests outside this package: what the running
 * edge found, and a probe again that starts with mincore, as on a kernel (before 6.5) or a seccomp
 * profile without cachestat. The probe's answer is process-wide: a test that changes it probes again
 * with {@link #restore} when done.
 */
public final class PageCacheProbe {
    private PageCacheProbe() {}

    /** How the edge asks the page cache ("cachestat", "mincore"); null when it cannot ask. */
    public static String method() {
        PageCache.Method m = PageCache.method();
        return m == null ? null : m.name().toLowerCase();
    }

    /** Why the edge cannot ask the page cache; null when it can. */
    public static String unavailable() {
        return PageCache.unavailable();
    }

    /** Probes {@code dir} as a kernel without cachestat would have the edge do: mincore only. */
    public static String mincoreOnly(Path dir) {
        return PageCache.probe(dir, PageCache.Method.MINCORE);
    }

    /** Probes {@code dir} as the edge does at start. */
    public static String restore(Path dir) {
        return PageCache.probe(dir);
    }
}
