package io.videoedge.server.http;

import one.nio.http.Request;

/**
 * The pure part of answering a GET/HEAD for a stored object, by RFC 9110 section 13: conditional
 * requests first (If-None-Match, else If-Modified-Since: 304), then Range guarded by If-Range
 * (206 or 416), else the whole object (200). No I/O, no clock.
 */
public final class Negotiation {
    private Negotiation() {
    }

    /** The decision for a request's If-None-Match, If-Modified-Since, Range and If-Range headers. */
    public static Decision decide(Validators v, Request request) {
        return decide(v, request.getHeader("If-None-Match:"), request.getHeader("If-Modified-Since:"),
                request.getHeader("Range:"), request.getHeader("If-Range:"));
    }

    public static Decision decide(Validators v, String ifNoneMatch, String ifModifiedSince, String range, String ifRange) {
        if (ifNoneMatch != null) {
            if (matchesAny(ifNoneMatch, v.etag(), true)) {
                return Decision.NOT_MODIFIED;
            }
        } else if (ifModifiedSince != null) {
            long since = HttpDates.parseSeconds(ifModifiedSince);
            if (since >= 0 && v.lastModifiedSeconds() <= since) {
                return Decision.NOT_MODIFIED;
            }
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

    /** If-Range: a strong ETag that matches, or exactly the Last-Modified date; otherwise send it all. */
    static boolean ifRangeHolds(String ifRange, Validators v) {
        if (ifRange == null) {
            return true;
        }
        String value = ifRange.trim();
        if (value.startsWith("\"") || value.startsWith("W/")) {
            return v.etag() != null && value.equals(v.etag());
        }
        long date = HttpDates.parseSeconds(value);
        return date >= 0 && date == v.lastModifiedSeconds();
    }

    /** If-None-Match list membership; weak comparison, so W/"x" matches "x". */
    static boolean matchesAny(String header, String etag, boolean weak) {
        String value = header.trim();
        if (value.equals("*")) {
            return true;
        }
        for (String candidate : value.split(",")) {
            String c = candidate.trim();
            if (weak && c.startsWith("W/")) {
                c = c.substring(2);
            }
            if (etag != null && c.equals(etag)) {
                return true;
            }
        }
        return false;
    }
}
