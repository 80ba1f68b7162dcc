package io.videoedge.server.http;

import one.nio.http.Request;

/**
 * The pure part of answering a GET/HEAD for a stored object, by RFC 9110 section 13: conditional
 * requests first (If-None-Match, else If-Modified-Since: 304), then Range guarded by If-Range
 * (206 or 416), else the whole object (200). No I/O; the clock is a parameter.
 *
 * <p>If-Modified-Since gives 304 when its date is exactly the object's Last-Modified (what nginx's
 * default {@code if_modified_since exact} accepts, also when that date is ahead of our clock), or
 * when it lies between Last-Modified and now (RFC 9110 13.1.3, as Apache and nginx's
 * {@code if_modified_since before}). A date in the future that is not the object's own is not a
 * valid validator (RFC 2616 14.25; nginx by default and Apache answer 200): no client saw a
 * representation at a time that has not come, and a 304 would pin its copy. An object without a
 * Last-Modified (a cached origin object the origin sent none for) never matches a date, as in nginx.
 */
public final class Negotiation {
    private Negotiation() {}

    /**
     * The decision for a request's If-None-Match, If-Modified-Since, Range and If-Range headers.
     *
     * @param nowMillis the server's clock (If-Modified-Since dates after it are not valid)
     */
    public static Decision decide(Validators v, Request request, long nowMillis) {
        return decide(
                v,
                request.getHeader("If-None-Match:"),
                request.getHeader("If-Modified-Since:"),
                request.getHeader("Range:"),
                request.getHeader("If-Range:"),
                nowMillis);
    }

    public static Decision decide(
            Validators v, String ifNoneMatch, String ifModifiedSince, String range, String ifRange, long nowMillis) {
        if (ifNoneMatch != null) {
            if (matchesAny(ifNoneMatch, v.etag(), true)) {
                return Decision.NOT_MODIFIED;
            }
        } else if (ifModifiedSince != null && notModifiedSince(ifModifiedSince, v, nowMillis)) {
            return Decision.NOT_MODIFIED;
        }
        if (range == null || !ifRangeHolds(ifRange, v)) {
            return Decision.full(v.length());
        }
        ByteRange r = ByteRange.parse(range, v.length());
        if (r == ByteRange.IGNORE) {
            return Decision.full(v.length());
        }
        return r == ByteRange.UNSATISFIABLE ? Decision.RANGE_NOT_SATISFIABLE : Decision.partial(r);
    }

    /** If-Modified-Since holds: exactly Last-Modified, or a valid date from Last-Modified up to now. */
    static boolean notModifiedSince(String ifModifiedSince, Validators v, long nowMillis) {
        long since = HttpDates.parseSeconds(ifModifiedSince);
        if (since < 0 || !v.hasLastModified()) {
            return false; // not an HTTP date, or nothing to compare with: send the object
        }
        long modified = v.lastModifiedSeconds();
        if (since == modified) {
            return true;
        }
        return modified < since && since <= Math.floorDiv(nowMillis, 1000);
    }

    /** If-Range: a strong ETag that matches, or exactly the Last-Modified date; otherwise send it all. */
    static boolean ifRangeHolds(String ifRange, Validators v) {
        if (ifRange == null) {
            return true;
        }
        String value = ifRange.trim();
        if (value.startsWith("\"") || value.startsWith("W/")) {
            // strong comparison (RFC 9110 13.1.5): a weak tag on either side never matches
            return v.etag() != null && !value.startsWith("W/") && !v.etag().startsWith("W/") && value.equals(v.etag());
        }
        long date = HttpDates.parseSeconds(value);
        return date >= 0 && v.hasLastModified() && date == v.lastModifiedSeconds();
    }

    /**
     * If-None-Match list membership; weak comparison, so W/"x" matches "x" whichever side is weak
     * (an origin's weak ETag is stored and sent as it is).
     */
    static boolean matchesAny(String header, String etag, boolean weak) {
        String value = header.trim();
        if (value.equals("*")) {
            return true;
        }
        if (etag == null) {
            return false;
        }
        String own = weak ? opaque(etag) : etag;
        for (String candidate : value.split(",")) {
            String c = candidate.trim();
            if ((weak ? opaque(c) : c).equals(own)) {
                return true;
            }
        }
        return false;
    }

    private static String opaque(String etag) {
        return etag.startsWith("W/") ? etag.substring(2) : etag;
    }
}
