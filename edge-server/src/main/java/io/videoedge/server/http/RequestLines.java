package io.videoedge.server.http;

import java.nio.charset.StandardCharsets;
import one.nio.http.Request;
import one.nio.http.Response;

/**
 * Byte-level checks of an HTTP/1.1 request head (RFC 9112), pure functions over the read buffer:
 * the request line ("METHOD SP request-target SP HTTP/1.x") and header field lines. Everything the
 * edge does not accept becomes a {@link RejectedRequest} with the status to answer.
 */
public final class RequestLines {
    private static final String[] METHOD_NAMES = {
        null, "GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE", "CONNECT", "PATCH"
    };
    private static final boolean[] TCHAR = new boolean[128];

    static {
        for (char c = '0'; c <= '9'; c++) TCHAR[c] = true;
        for (char c = 'a'; c <= 'z'; c++) TCHAR[c] = true;
        for (char c = 'A'; c <= 'Z'; c++) TCHAR[c] = true;
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) TCHAR[c] = true;
    }

    private RequestLines() {}

    /** Parses a request line (without CR LF). Unknown methods are method 0, answered with 405. */
    public static Request parseRequestLine(byte[] b, int start, int length, int maxUriLength) {
        int end = start + length;
        int sp1 = indexOf(b, (byte) ' ', start, end);
        int sp2 = lastIndexOf(b, (byte) ' ', start, end);
        if (sp1 <= start || sp2 <= sp1 + 1) {
            return reject(Response.BAD_REQUEST, "malformed request line", true);
        }
        for (int i = start; i < sp1; i++) {
            if (!isTchar(b[i])) {
                return reject(Response.BAD_REQUEST, "malformed method", true);
            }
        }
        int method = methodOf(b, start, sp1 - start);
        int versionLength = end - sp2 - 1;
        if (versionLength != 8
                || !startsWith(b, sp2 + 1, "HTTP/")
                || !isDigit(b[sp2 + 6])
                || b[sp2 + 7] != '.'
                || !isDigit(b[sp2 + 8])) {
            return reject(Response.BAD_REQUEST, "malformed HTTP version", true);
        }
        if (b[sp2 + 6] != '1' || (b[sp2 + 8] != '0' && b[sp2 + 8] != '1')) {
            return reject(Response.HTTP_VERSION_NOT_SUPPORTED, "HTTP version not supported", true);
        }
        boolean http11 = b[sp2 + 8] == '1';
        int targetStart = sp1 + 1;
        int targetLength = sp2 - targetStart;
        if (targetLength > maxUriLength) {
            return new RejectedRequest(
                    method, Response.REQUEST_URI_TOO_LONG, "request target longer than " + maxUriLength, true, http11);
        }
        for (int i = targetStart; i < sp2; i++) {
            int c = b[i] & 0xff;
            if (c <= 0x20 || c == 0x7f) {
                return new RejectedRequest(
                        method, Response.BAD_REQUEST, "invalid character in request target", true, http11);
            }
        }
        String target = new String(b, targetStart, targetLength, StandardCharsets.UTF_8);
        String path = originForm(target);
        if (path == null) {
            return new RejectedRequest(method, Response.BAD_REQUEST, "unsupported request target form", true, http11);
        }
        return new Request(method, path, http11);
    }

    /** origin-form as is; absolute-form ("http://host/p") reduced to its path; anything else null. */
    static String originForm(String target) {
        if (target.charAt(0) == '/') {
            return target;
        }
        int schemeEnd = target.indexOf("://");
        if (schemeEnd > 0
                && (target.regionMatches(true, 0, "http", 0, schemeEnd)
                        || target.regionMatches(true, 0, "https", 0, schemeEnd))
                && (schemeEnd == 4 || schemeEnd == 5)) {
            int slash = target.indexOf('/', schemeEnd + 3);
            int query = target.indexOf('?', schemeEnd + 3);
            if (slash < 0 || (query >= 0 && query < slash)) {
                return query >= 0 ? "/" + target.substring(query) : "/";
            }
            return target.substring(slash);
        }
        return null;
    }

    /**
     * Checks one header field line (without CR LF): "name: value", name a token right before the
     * colon, no obsolete line folding, no control characters in the value. Null when fine.
     */
    public static String checkHeaderLine(byte[] b, int start, int length) {
        int end = start + length;
        if (b[start] == ' ' || b[start] == '\t') {
            return "obsolete line folding";
        }
        int colon = indexOf(b, (byte) ':', start, end);
        if (colon <= start) {
            return "header line without a name";
        }
        for (int i = start; i < colon; i++) {
            if (!isTchar(b[i])) {
                return "invalid header name";
            }
        }
        for (int i = colon + 1; i < end; i++) {
            int c = b[i] & 0xff;
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                return "control character in header value";
            }
        }
        return null;
    }

    /** Content-Length value: a non-negative decimal, or -1 when it is not one (400). */
    public static long contentLength(String value) {
        if (value == null || value.isEmpty() || value.length() > 18) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') return -1;
            v = v * 10 + (c - '0');
        }
        return v;
    }

    private static int methodOf(byte[] b, int start, int length) {
        for (int m = 1; m < METHOD_NAMES.length; m++) {
            String name = METHOD_NAMES[m];
            if (name.length() == length && startsWith(b, start, name)) {
                return m;
            }
        }
        return 0;
    }

    private static RejectedRequest reject(String status, String reason, boolean close) {
        return new RejectedRequest(0, status, reason, close, true);
    }

    private static boolean isTchar(byte c) {
        return c > 0 && TCHAR[c];
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static boolean startsWith(byte[] b, int at, String s) {
        if (at + s.length() > b.length) return false;
        for (int i = 0; i < s.length(); i++) {
            if (b[at + i] != s.charAt(i)) return false;
        }
        return true;
    }

    static int indexOf(byte[] b, byte c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] == c) return i;
        }
        return -1;
    }

    private static int lastIndexOf(byte[] b, byte c, int from, int to) {
        for (int i = to - 1; i >= from; i--) {
            if (b[i] == c) return i;
        }
        return -1;
    }
}
