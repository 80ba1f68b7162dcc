package io.videoedge.server.http;

/**
 * A single byte range of a representation of known length, per RFC 9110 section 14: "bytes=a-b",
 * "bytes=a-" and the suffix form "bytes=-n". Anything we do not serve as one range (other units,
 * several ranges, bad syntax) is {@link #IGNORE}: the server then sends the whole object with 200,
 * which RFC 9110 allows. A syntactically valid range that selects nothing is {@link #UNSATISFIABLE} (416).
 */
public record ByteRange(long start, long length) {
    public static final ByteRange IGNORE = new ByteRange(-1, -1);
    public static final ByteRange UNSATISFIABLE = new ByteRange(-2, -2);

    public static ByteRange parse(String header, long size) {
        if (header == null || !header.regionMatches(true, 0, "bytes=", 0, 6)) {
            return IGNORE;
        }
        String spec = header.substring(6).trim();
        if (spec.indexOf(',') >= 0) {
            return IGNORE; // multiple ranges: served whole, no multipart/byteranges
        }
        int dash = spec.indexOf('-');
        if (dash < 0) {
            return IGNORE;
        }
        String first = spec.substring(0, dash).trim();
        String last = spec.substring(dash + 1).trim();
        if (first.isEmpty()) {
            long suffix = digits(last);
            if (suffix < 0) return IGNORE;
            if (suffix == 0 || size == 0) return UNSATISFIABLE;
            long n = Math.min(suffix, size);
            return new ByteRange(size - n, n);
        }
        long start = digits(first);
        long end = last.isEmpty() ? Long.MAX_VALUE : digits(last);
        if (start < 0 || end < 0 || end < start) {
            return IGNORE; // invalid range-spec: the header is ignored
        }
        if (start >= size) {
            return UNSATISFIABLE;
        }
        return new ByteRange(start, Math.min(end, size - 1) - start + 1);
    }

    /** Non-negative decimal, or -1; 19 digits at most so it cannot overflow. */
    private static long digits(String s) {
        if (s.isEmpty() || s.length() > 18) {
            return s.length() > 18 && s.chars().allMatch(Character::isDigit) ? Long.MAX_VALUE : -1;
        }
        long v = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') return -1;
            v = v * 10 + (c - '0');
        }
        return v;
    }
}
