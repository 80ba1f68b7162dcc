package io.videoedge.server.origin;

import java.net.ProtocolException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The status line and headers of an origin response (RFC 9112), parsed from bytes copied out of the
 * read buffer. Only the head lands on the heap; the body stays in pooled direct memory.
 */
public record OriginHead(int status, Map<String, String> headers, int headLength) {

    /**
     * Where the head in {@code b[0, to)} ends (just past its blank line), or -1 when the blank line is not
     * there yet. {@code scanned}: bytes an earlier call already looked at (the line may straddle them).
     */
    public static int endOfHead(ByteBuffer b, int scanned, int to) {
        for (int i = Math.max(3, scanned); i < to; i++) {
            if (b.get(i) == '\n' && b.get(i - 1) == '\r' && b.get(i - 2) == '\n' && b.get(i - 3) == '\r') {
                return i + 1;
            }
        }
        return -1;
    }

    /** The head in {@code b[0, end)}, which ends with its blank line ({@link #endOfHead} found it). */
    static OriginHead parse(byte[] b, int end) throws ProtocolException {
        String head = new String(b, 0, end - 4, StandardCharsets.ISO_8859_1);
        int lineEnd = lineEnd(head, 0);
        String statusLine = head.substring(0, lineEnd);
        if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12 || statusLine.charAt(8) != ' ') {
            throw new ProtocolException("bad status line from origin: " + statusLine);
        }
        int status;
        try {
            status = Integer.parseInt(statusLine, 9, 12, 10);
        } catch (NumberFormatException e) {
            throw new ProtocolException("bad status from origin: " + statusLine);
        }
        Map<String, String> headers = new HashMap<>();
        for (int from = lineEnd + 2; from < head.length(); from = lineEnd + 2) {
            lineEnd = lineEnd(head, from);
            int colon = head.indexOf(':', from);
            if (colon <= from || colon >= lineEnd) {
                throw new ProtocolException("bad header from origin: " + head.substring(from, lineEnd));
            }
            String name = head.substring(from, colon).trim().toLowerCase(Locale.ROOT);
            String value = head.substring(colon + 1, lineEnd).trim();
            if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0 || value.indexOf('\0') >= 0) {
                // a bare CR or LF inside a value (RFC 9112 5.5): relayed, it would split the edge's own head
                throw new ProtocolException("bad header value from origin: " + name);
            }
            if (SINGLETONS.contains(name)) {
                headers.putIfAbsent(name, value);
            } else {
                headers.merge(name, value, (a, v) -> a + ", " + v);
            }
        }
        return new OriginHead(status, headers, end);
    }

    /**
     * Fields of one value (RFC 9110 5.5) whose lines, sent twice, would join into no valid value (an
     * {@code Expires} date holds a comma itself): the first line counts, as RFC 9111 5.1 asks of a list in
     * {@code Age}. The framing fields are not here: two {@code Content-Length} lines join into a value the
     * head refuses, as they must (RFC 9112 6.3), and two {@code Content-Range} lines into a slice mismatch.
     */
    private static final java.util.Set<String> SINGLETONS = java.util.Set.of(
            "age", "content-type", "date", "etag", "expires", "last-modified", "location", "retry-after");

    /** Where the line starting at {@code from} ends: its CR LF, or the end of the head (no regex: split's was compiled per call). */
    private static int lineEnd(String head, int from) {
        int crlf = head.indexOf("\r\n", from);
        return crlf < 0 ? head.length() : crlf;
    }

    public String header(String lowerCaseName) {
        return headers.get(lowerCaseName);
    }

    /** Content-Length, or -1 when absent (chunked or close-delimited). */
    public long contentLength() throws ProtocolException {
        String v = headers.get("content-length");
        if (v == null) return -1;
        try {
            long n = Long.parseLong(v.trim());
            if (n < 0) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            throw new ProtocolException("bad Content-Length from origin: " + v);
        }
    }

    /**
     * When this answer was current at its source, for one asked for at {@code requestedAt} (epoch ms):
     * that time less its {@code Age}. This is RFC 9111 4.2.3's corrected age (the {@code Age} plus the
     * time from the request to the answer: the answer may have aged that long on the way) without the
     * Date header's apparent age, which would need the two clocks to agree. Of a list in Age the first
     * member counts (RFC 9111 5.1); one that is not a delta-seconds value is ignored; one above 2^31
     * seconds counts as 2^31 (RFC 9111 1.2.2).
     */
    public long currentAt(long requestedAt) {
        return requestedAt - ageSeconds() * 1000;
    }

    /** The answer's {@code Age} in seconds: 0 when absent or not a delta-seconds value, at most 2^31. */
    public long ageSeconds() {
        return ageSeconds(headers.get("age"));
    }

    static long ageSeconds(String age) {
        if (age == null) return 0;
        int comma = age.indexOf(',');
        String v = (comma < 0 ? age : age.substring(0, comma)).trim();
        if (v.isEmpty() || v.length() > 18) return v.length() > 18 && digits(v) ? MAX_AGE : 0; // no long overflow
        if (!digits(v)) return 0;
        return Math.min(Long.parseLong(v), MAX_AGE);
    }

    private static final long MAX_AGE = 1L << 31;

    private static boolean digits(String v) {
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9') return false;
        }
        return true;
    }

    public boolean chunked() {
        String te = headers.get("transfer-encoding");
        return te != null && te.toLowerCase(Locale.ROOT).contains("chunked");
    }

    public boolean keepAlive() {
        String c = headers.get("connection");
        return c == null || !c.toLowerCase(Locale.ROOT).contains("close");
    }
}
