package io.videoedge.server.origin;

import io.videoedge.server.http.HttpDates;
import java.util.Locale;

/**
 * Whether an origin response may be stored and until when it is fresh (RFC 9111, the shared-cache
 * subset an edge needs): only 200 is stored; Cache-Control no-store or private forbid it; no-cache
 * stores it already expired (revalidated on every use); s-maxage, then max-age, then Expires give
 * the lifetime; without any, the configured default TTL.
 */
public record Freshness(boolean storable, long expiresAt) {
    public static final Freshness NOT_STORABLE = new Freshness(false, 0);

    public static Freshness of(int status, String cacheControl, String expires, long now, long defaultTtl) {
        if (status != 200) {
            return NOT_STORABLE;
        }
        long maxAge = -1;
        long sMaxAge = -1;
        boolean noCache = false;
        if (cacheControl != null) {
            // every directive is read before deciding: no-store or private anywhere forbids storing,
            // whatever comes before it ("no-cache, no-store, must-revalidate" is a common header)
            for (String directive : cacheControl.toLowerCase(Locale.ROOT).split(",")) {
                String d = directive.trim();
                if (d.equals("no-store") || d.equals("private") || d.startsWith("private=")) {
                    return NOT_STORABLE;
                } else if (d.equals("no-cache")) {
                    noCache = true;
                } else if (d.startsWith("s-maxage=")) {
                    sMaxAge = seconds(d.substring(9));
                } else if (d.startsWith("max-age=")) {
                    maxAge = seconds(d.substring(8));
                }
            }
        }
        if (noCache) return new Freshness(true, now);
        if (sMaxAge >= 0) return new Freshness(true, now + sMaxAge * 1000);
        if (maxAge >= 0) return new Freshness(true, now + maxAge * 1000);
        if (expires != null) {
            long at = HttpDates.parseSeconds(expires);
            return new Freshness(true, at < 0 ? now : at * 1000); // an invalid Expires means already expired
        }
        return new Freshness(true, now + defaultTtl);
    }

    private static long seconds(String v) {
        try {
            return Math.max(0, Long.parseLong(v.replace("\"", "").trim()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
