package io.videoedge.server.origin;

import io.videoedge.server.http.HttpDates;
import java.util.Locale;

/**
 * Whether an origin response may be stored and until when it is fresh (RFC 9111, the shared-cache
 * subset an edge needs): only 200 is stored; Cache-Control no-store or private forbid it, and so do
 * Set-Cookie and Vary: *; no-cache
 * stores it already expired (revalidated on every use); s-maxage, then max-age, then Expires give
 * the lifetime; without any, the configured default TTL. no-cache, must-revalidate and
 * proxy-revalidate forbid serving the object stale ({@link #mustRevalidate}: no stale-while-revalidate,
 * no stale-if-error); s-maxage gives the lifetime only (as nginx's and most CDNs' caches take it).
 */
public record Freshness(boolean storable, long expiresAt, boolean mustRevalidate) {
    public static final Freshness NOT_STORABLE = new Freshness(false, 0);

    /** Storable or not, with a lifetime, and servable stale once expired. */
    public Freshness(boolean storable, long expiresAt) {
        this(storable, expiresAt, false);
    }

    /**
     * The freshness of an origin body (a 200, or a 206 slice of one). A response that sets a cookie is
     * not stored (as nginx's proxy_cache by default): the edge relays no cookie, but a body that came
     * with one may be that client's alone. Nor is one with {@code Vary: *}: a stored response that
     * varies on everything matches no later request (RFC 9111 4.1). Other Vary values are not looked at:
     * the edge stores and serves one representation per path.
     */
    public static Freshness ofBody(OriginHead head, long now, long defaultTtl) {
        if (head.header("set-cookie") != null || variesOnEverything(head.header("vary"))) {
            return NOT_STORABLE;
        }
        return of(200, head.header("cache-control"), head.header("expires"), dateMillis(head, now), now, defaultTtl);
    }

    /**
     * The answer's Date in epoch milliseconds; for one without a Date that parses, the time the edge asked ({@code
     * now}, when it was current, plus its Age), which stands for it (RFC 9110 6.6.1: a recipient records the time it
     * received a message without one). So an Expires lifetime is counted against the Age it came with either way.
     */
    private static long dateMillis(OriginHead head, long now) {
        String date = head.header("date");
        long sent = date != null ? HttpDates.parseSeconds(date) : -1;
        return sent >= 0 ? sent * 1000 : now + head.ageSeconds() * 1000;
    }

    /** A Vary list (several headers are joined with commas) with {@code *} among its members. */
    static boolean variesOnEverything(String vary) {
        if (vary == null) return false;
        for (String member : vary.split(",")) {
            if (member.trim().equals("*")) return true;
        }
        return false;
    }

    /**
     * What a 304 makes of the stored object it confirms: its header fields update the stored response's
     * (RFC 9111 4.3.4). Its own Cache-Control or Expires decides as for a body, and Cache-Control also
     * says anew whether the object may be served stale. With neither, the stored response's own
     * directives still decide; the cache keeps only what they gave, the object's lifetime, so it is fresh
     * for that lifetime again: max-age=N for N seconds, no-cache not at all, cache.ttl when the origin
     * sent none. An Expires date gives again the lifetime it gave (by the RFC that date, now past, would
     * leave the object stale and revalidated on every use). When the lifetime is not known (-1: stored
     * by an older edge), cache.ttl, as that edge gave it.
     *
     * A 304 that carries one of the two is judged with both as they are after it ({@code cacheControl},
     * {@code expires}: the stored ones updated by the 304's, null when there is none or it is not known), so a
     * stored field the 304 does not repeat still counts.
     *
     * @param storedLifetime the stored object's {@code lifetime()}, or -1
     */
    public static Freshness ofNotModified(
            OriginHead head,
            long now,
            long defaultTtl,
            long storedLifetime,
            boolean storedMustRevalidate,
            String cacheControl,
            String expires) {
        if (head.header("cache-control") == null && head.header("expires") == null) {
            return new Freshness(true, now + (storedLifetime >= 0 ? storedLifetime : defaultTtl), storedMustRevalidate);
        }
        Freshness f = of(200, cacheControl, expires, dateMillis(head, now), now, defaultTtl);
        return cacheControl != null ? f : new Freshness(f.storable(), f.expiresAt(), storedMustRevalidate);
    }

    /** As {@link #of(int, String, String, String, long, long)} for an answer without a Date. */
    public static Freshness of(int status, String cacheControl, String expires, long now, long defaultTtl) {
        return of(status, cacheControl, expires, null, now, defaultTtl);
    }

    /**
     * The freshness of an answer current at its source at {@code now}. An {@code Expires} lifetime is Expires less
     * the answer's {@code Date} (RFC 9111 4.2.1: two times of the origin's clock, so a clock that differs from the
     * edge's does not change it), counted from {@code now}; an answer without a Date that parses is fresh until
     * Expires as the edge's clock reads it (the bodies and 304s of {@link #ofBody} and {@link #ofNotModified} have
     * the time the edge asked in its place).
     */
    public static Freshness of(
            int status, String cacheControl, String expires, String date, long now, long defaultTtl) {
        long sent = date != null ? HttpDates.parseSeconds(date) : -1;
        return of(status, cacheControl, expires, sent >= 0 ? sent * 1000 : -1, now, defaultTtl);
    }

    /** As above with the Date in epoch milliseconds, -1 for none. */
    private static Freshness of(int status, String cacheControl, String expires, long date, long now, long defaultTtl) {
        if (status != 200) {
            return NOT_STORABLE;
        }
        long maxAge = -1;
        long sMaxAge = -1;
        boolean noCache = false;
        boolean mustRevalidate = false;
        if (cacheControl != null) {
            // every directive is read before deciding: no-store or private anywhere forbids storing,
            // whatever comes before it ("no-cache, no-store, must-revalidate" is a common header)
            for (String directive : cacheControl.toLowerCase(Locale.ROOT).split(",")) {
                String d = directive.trim();
                if (d.equals("no-store") || d.equals("private") || d.startsWith("private=")) {
                    return NOT_STORABLE;
                } else if (d.equals("no-cache")) {
                    noCache = true;
                } else if (d.equals("must-revalidate") || d.equals("proxy-revalidate")) {
                    mustRevalidate = true;
                } else if (d.startsWith("s-maxage=")) {
                    sMaxAge = seconds(d.substring(9));
                } else if (d.startsWith("max-age=")) {
                    maxAge = seconds(d.substring(8));
                }
            }
        }
        if (noCache) return new Freshness(true, now, true);
        if (sMaxAge >= 0) return new Freshness(true, now + sMaxAge * 1000, mustRevalidate);
        if (maxAge >= 0) return new Freshness(true, now + maxAge * 1000, mustRevalidate);
        if (expires != null) {
            long at = HttpDates.parseSeconds(expires);
            if (at < 0) return new Freshness(true, now, mustRevalidate); // an invalid Expires means already expired
            return new Freshness(true, date < 0 ? at * 1000 : now + Math.max(0, at * 1000 - date), mustRevalidate);
        }
        return new Freshness(true, now + defaultTtl, mustRevalidate);
    }

    private static long seconds(String v) {
        try {
            return Math.max(0, Long.parseLong(v.replace("\"", "").trim()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
