package io.videoedge.server.cache;

/** Pure arithmetic of slices: which slice a request starts in, the Content-Range of an origin's 206. */
final class SliceRanges {
    private SliceRanges() {}

    /** The cache key of the slice of {@code key} starting at {@code start} (control characters never occur in keys). */
    static String key(String key, long start, long size) {
        return slicesOf(key) + start + '/' + size;
    }

    /** What the cache keys of every slice of {@code key} start with. */
    static String slicesOf(String key) {
        return key + '\u0001';
    }

    /**
     * The first byte a Range header asks for when it is one plain {@code bytes=N-} or {@code bytes=N-M}
     * range, else 0 (no range, a suffix range, several ranges, a malformed one: the first slice is
     * fetched, and it tells the object's length for {@link io.videoedge.server.http.Negotiation}).
     */
    static long firstByte(String range) {
        if (range == null || !range.regionMatches(true, 0, "bytes=", 0, 6) || range.indexOf(',') >= 0) {
            return 0;
        }
        int dash = range.indexOf('-', 6);
        if (dash <= 6) return 0;
        try {
            return Math.max(0, Long.parseLong(range.substring(6, dash).trim()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * {@code first, last, complete length} of a Content-Range {@code bytes first-last/length}, or null
     * when it is not one with a known length and {@code first <= last < length}.
     */
    static long[] contentRange(String value) {
        if (value == null || !value.regionMatches(true, 0, "bytes ", 0, 6)) return null;
        int dash = value.indexOf('-', 6);
        int slash = value.indexOf('/', 6);
        if (dash < 0 || slash < dash) return null;
        try {
            long first = Long.parseLong(value.substring(6, dash).trim());
            long last = Long.parseLong(value.substring(dash + 1, slash).trim());
            long length = Long.parseLong(value.substring(slash + 1).trim());
            if (first < 0 || last < first || length <= last) return null;
            return new long[] {first, last, length};
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
