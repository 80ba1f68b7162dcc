package io.videoedge.server.cache;

import io.videoedge.server.content.ContentPath;
import java.util.Objects;

/**
 * What one purge removes (pure): cache keys equal to a path, or starting with a prefix. Paths are
 * normalised as request paths are ({@link ContentPath}), so {@code /v/a%20b.mp4} purges what a request
 * for that path cached. A prefix that ends with {@code /} is a directory: {@code /live/} matches
 * {@code /live/a.ts} and not {@code /lively.ts}; otherwise it is a plain string prefix
 * ({@code /live/s1_} matches {@code /live/s1_001.ts}); {@code /} matches everything.
 */
public record Purge(Kind kind, String key) {
    public enum Kind {
        EXACT,
        PREFIX
    }

    public Purge {
        Objects.requireNonNull(kind);
        Objects.requireNonNull(key);
    }

    /** An exact path; null when the path is not a valid request path. */
    public static Purge exact(String rawPath) {
        String key = ContentPath.normalize(rawPath);
        return key == null || key.isEmpty() ? null : new Purge(Kind.EXACT, key);
    }

    /** A prefix; null when it is not a valid request path. */
    public static Purge prefix(String rawPrefix) {
        String key = ContentPath.normalize(rawPrefix);
        if (key == null) return null;
        if (rawPrefix.endsWith("/") && !key.isEmpty()) key = key + "/";
        return new Purge(Kind.PREFIX, key);
    }

    public boolean matches(String cacheKey) {
        // an exact path takes its slices too (a sliced object is cached as one entry per slice)
        return kind == Kind.EXACT
                ? cacheKey.equals(key) || cacheKey.startsWith(SliceRanges.slicesOf(key))
                : cacheKey.startsWith(key);
    }

    /** As a request path: {@code /v/a.mp4}, or {@code /live/*} for a prefix. */
    @Override
    public String toString() {
        return "/" + key + (kind == Kind.PREFIX ? "*" : "");
    }
}
