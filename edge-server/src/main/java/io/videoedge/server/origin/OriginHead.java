package io.videoedge.server.origin;

import java.net.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The status line and headers of an origin response (RFC 9112), parsed from bytes copied out of the
 * read buffer. Only the head lands on the heap; the body stays in pooled direct memory.
 */
public record OriginHead(int status, Map<String, String> headers, int headLength) {

    /** The head from the first {@code length} bytes, or null when the blank line has not arrived yet. */
    public static OriginHead parse(byte[] b, int length) throws ProtocolException {
        int end = -1;
        for (int i = 3; i < length; i++) {
            if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') {
                end = i + 1;
                break;
            }
        }
        if (end < 0) {
            return null;
        }
        String[] lines = new String(b, 0, end - 4, StandardCharsets.ISO_8859_1).split("\r\n");
        String statusLine = lines[0];
        if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12 || statusLine.charAt(8) != ' ') {
            throw new ProtocolException("bad status line from origin: " + statusLine);
        }
        int status;
        try {
            status = Integer.parseInt(statusLine.substring(9, 12));
        } catch (NumberFormatException e) {
            throw new ProtocolException("bad status from origin: " + statusLine);
        }
        Map<String, String> headers = new HashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon <= 0) throw new ProtocolException("bad header from origin: " + lines[i]);
            String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = lines[i].substring(colon + 1).trim();
            headers.merge(name, value, (a, v) -> a + ", " + v);
        }
        return new OriginHead(status, headers, end);
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

    public boolean chunked() {
        String te = headers.get("transfer-encoding");
        return te != null && te.toLowerCase(Locale.ROOT).contains("chunked");
    }

    public boolean keepAlive() {
        String c = headers.get("connection");
        return c == null || !c.toLowerCase(Locale.ROOT).contains("close");
    }
}
