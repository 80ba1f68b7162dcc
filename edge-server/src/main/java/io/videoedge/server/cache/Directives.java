package io.videoedge.server.cache;

import io.videoedge.server.origin.OriginHead;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The origin's {@code Cache-Control} and {@code Expires}, kept with an object and relayed downstream as
 * they came (players, browsers and caches behind the edge need them as much as the edge did; a
 * {@code private} answer the edge does not keep must not be kept behind it either). A 304 that carries
 * either replaces it (RFC 9111 3.2).
 *
 * <p>Most objects of an origin share one {@code Cache-Control} value and no {@code Expires}: those are
 * one instance each (up to {@link #SHARED_MAX} values), so the disk tier's index does not hold a string
 * per object for them.
 */
public record Directives(String cacheControl, String expires) {
    public static final Directives NONE = new Directives(null, null);

    static final int SHARED_MAX = 1024;
    private static final ConcurrentHashMap<String, Directives> SHARED = new ConcurrentHashMap<>();

    public static Directives of(String cacheControl, String expires) {
        if (expires != null) return new Directives(cacheControl, expires);
        if (cacheControl == null) return NONE;
        Directives d = SHARED.get(cacheControl);
        if (d != null) return d;
        d = new Directives(cacheControl, null);
        if (SHARED.size() >= SHARED_MAX) return d;
        Directives raced = SHARED.putIfAbsent(cacheControl, d);
        return raced != null ? raced : d;
    }

    public static Directives of(OriginHead head) {
        return of(head.header("cache-control"), head.header("expires"));
    }

    /** These, with each field a 304 carries in its place. */
    public Directives updatedBy(Directives notModified) {
        if (notModified == NONE) return this;
        return of(
                notModified.cacheControl != null ? notModified.cacheControl : cacheControl,
                notModified.expires != null ? notModified.expires : expires);
    }

    public boolean none() {
        return cacheControl == null && expires == null;
    }
}
