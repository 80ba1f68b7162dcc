package io.videoedge.server.content;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A request path turned into a relative path under the content root, or rejected: percent-decoding
 * (invalid escapes rejected), UTF-8 check, no control characters or backslashes, "." and empty
 * segments dropped, and any ".." segment refused, whether written plainly or encoded (%2e%2e, %2f).
 * Decoding happens once, before the segment checks, so no encoded form slips past them. Symlinks
 * are dealt with when the file is opened ({@link ContentStore}).
 */
public final class ContentPath {
    private ContentPath() {}

    /** The normalised relative path ("" for the root), or null when the path must be refused (400). */
    public static String normalize(String rawPath) {
        if (rawPath == null || rawPath.isEmpty() || rawPath.charAt(0) != '/') {
            return null;
        }
        String decoded = percentDecode(rawPath);
        if (decoded == null) {
            return null;
        }
        return isNormal(decoded) ? decoded.substring(1) : normalizeSegments(decoded);
    }

    /**
     * No empty, "." or ".." segment (so no trailing slash either): the decoded path is its own normal
     * form, as nearly every request's is, and needs no splitting.
     */
    static boolean isNormal(String decoded) {
        int n = decoded.length();
        for (int i = 0; i < n; i++) {
            if (decoded.charAt(i) != '/') continue;
            int s = i + 1; // a segment starts here
            if (s == n || decoded.charAt(s) == '/') return false; // empty
            if (decoded.charAt(s) == '.') {
                if (s + 1 == n || decoded.charAt(s + 1) == '/') return false; // "."
                if (decoded.charAt(s + 1) == '.' && (s + 2 == n || decoded.charAt(s + 2) == '/')) return false; // ".."
            }
        }
        return true;
    }

    /** The segment by segment normal form of a decoded path starting with '/', or null for "..". */
    static String normalizeSegments(String decoded) {
        StringBuilder out = new StringBuilder(decoded.length());
        int start = 1;
        while (start <= decoded.length()) {
            int slash = decoded.indexOf('/', start);
            int end = slash < 0 ? decoded.length() : slash;
            String segment = decoded.substring(start, end);
            if (segment.equals("..")) {
                return null;
            }
            if (!segment.isEmpty() && !segment.equals(".")) {
                if (!out.isEmpty()) out.append('/');
                out.append(segment);
            }
            start = end + 1;
        }
        return out.toString();
    }

    static String percentDecode(String s) {
        boolean plain = true;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%' || c >= 0x80) {
                plain = false;
            } else if (c < 0x20 || c == 0x7f || c == '\\') {
                return null;
            }
        }
        if (plain) {
            return s;
        }
        byte[] raw = s.getBytes(StandardCharsets.UTF_8);
        byte[] bytes = new byte[raw.length];
        int n = 0;
        for (int i = 0; i < raw.length; i++) {
            byte b = raw[i];
            if (b == '%') {
                if (i + 2 >= raw.length) return null;
                int hi = Character.digit(raw[i + 1], 16);
                int lo = Character.digit(raw[i + 2], 16);
                if (hi < 0 || lo < 0) return null;
                b = (byte) (hi << 4 | lo);
                i += 2;
            }
            if ((b >= 0 && b < 0x20) || b == 0x7f || b == '\\') {
                return null;
            }
            bytes[n++] = b;
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, 0, n))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
