package io.videoedge.server.cache;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The layout of a disk cache file: a fixed header, the object's metadata as UTF-8 lines, then the
 * body. The checksum, the times and the flags live at fixed offsets so they can be written in place (the
 * checksum once the body is complete, the times and flags on revalidation).
 * <pre>
 *  0  magic "VEC1"
 *  4  u32 header length (offset of the body)
 *  8  u64 body length
 * 16  u32 CRC32C of the body
 * 20  u32 flags (1 = complete, 2 = must revalidate: never served stale, 4 = lifetime known: set by
 *     edges that move "fetched at" on revalidation; older ones moved only "expires at")
 * 24  u64 fetched at (epoch ms): when the origin last sent or confirmed (304) the body, less that
 *     answer's Age ({@link ObjectMeta})
 * 32  u64 expires at (epoch ms)
 * 40  key \n content-type \n etag \n last-modified \n   (empty line for an absent value)
 *     then either nothing (a whole object without directives),
 *     or object length \n   (a slice, a part of a larger object, without directives),
 *     or [object length] \n cache-control \n expires \n   (any object the origin sent either header
 *     for; the object length only for a slice; more lines after these are left to later edges)
 * </pre>
 * Files with the directives' lines are dropped by edges older than them (a miss again), which read
 * five or six lines only; files without them are read by both. A 304 that changes the directives
 * writes them in place when they fit in the header's room, the rest of it empty lines
 * ({@link #textInPlace}).
 */
public final class DiskFormat {
    static final int MAGIC = 0x56454331; // "VEC1"
    static final int FIXED = 40;
    static final int CRC_OFFSET = 16;
    /** The flags, the two times and the text follow each other: a refresh writes them in one go (DiskTier). */
    static final int FLAGS_OFFSET = 20;

    static final int FETCHED_OFFSET = 24;
    static final int EXPIRES_OFFSET = 32;
    static final int COMPLETE = 1;
    static final int MUST_REVALIDATE = 2;
    static final int LIFETIME_KNOWN = 4;
    static final int MAX_HEADER = 16 * 1024;
    /** The lines' count with the directives (split keeps the empty string after the last line end). */
    private static final int DIRECTIVES_FIELDS = 8;

    private DiskFormat() {}

    public static byte[] encode(ObjectMeta m, boolean complete) {
        byte[] text = text(m, m.directives());
        if (FIXED + text.length > MAX_HEADER && !m.directives().none()) {
            text = text(m, Directives.NONE); // directives too long to keep: relayed until a restart only
        }
        ByteBuffer b = ByteBuffer.allocate(FIXED + text.length);
        b.putInt(MAGIC)
                .putInt(FIXED + text.length)
                .putLong(m.length())
                .putInt(m.crc32c())
                .putInt(flags(complete, m))
                .putLong(m.fetchedAt())
                .putLong(m.expiresAt())
                .put(text);
        return b.array();
    }

    /**
     * The metadata lines for {@code m} in the room of a header already written ({@code headerLength} bytes
     * in all: the body stays where it is), padded with line ends (empty lines past the directives, which
     * readers leave alone), or null when they do not fit or carry no directives: a 304 whose new
     * directives are longer than the stored ones leaves the file's as they were.
     */
    static byte[] textInPlace(ObjectMeta m, int headerLength) {
        if (m.directives().none()) return null;
        byte[] text = text(m, m.directives());
        int room = headerLength - FIXED;
        if (text.length > room) return null;
        byte[] padded = Arrays.copyOf(text, room);
        Arrays.fill(padded, text.length, room, (byte) '\n');
        return padded;
    }

    private static byte[] text(ObjectMeta m, Directives d) {
        // the object length's line is empty for a whole object: the header written before a chunked
        // body (length 0) and the one after it (its length) must be as long as each other
        String objectLength = m.objectLength() != m.length() ? m.objectLength() + "\n" : "";
        String tail = d.none()
                ? objectLength
                : (objectLength.isEmpty() ? "\n" : objectLength) + orEmpty(d.cacheControl()) + "\n"
                        + orEmpty(d.expires()) + "\n";
        return (m.key() + "\n" + orEmpty(m.contentType()) + "\n" + orEmpty(m.etag()) + "\n" + orEmpty(m.lastModified())
                        + "\n" + tail)
                .getBytes(StandardCharsets.UTF_8);
    }

    static int flags(boolean complete, ObjectMeta m) {
        return (complete ? COMPLETE : 0)
                | (m.mustRevalidate() ? MUST_REVALIDATE : 0)
                | (m.lifetimeKnown() ? LIFETIME_KNOWN : 0);
    }

    /** Header length from the first 8 bytes, or -1 when they are not a cache file's. */
    public static int headerLength(ByteBuffer first8) {
        if (first8.getInt(0) != MAGIC) return -1;
        int len = first8.getInt(4);
        return len >= FIXED && len <= MAX_HEADER ? len : -1;
    }

    /** Metadata from a whole header, or null when it is malformed or the file was never completed. */
    public static ObjectMeta decode(ByteBuffer h) {
        if (h.limit() < FIXED
                || h.getInt(0) != MAGIC
                || h.getInt(4) != h.limit()
                || (h.getInt(FLAGS_OFFSET) & COMPLETE) == 0) {
            return null;
        }
        byte[] text = new byte[h.limit() - FIXED];
        h.get(FIXED, text);
        String[] f = new String(text, StandardCharsets.UTF_8).split("\n", -1);
        boolean withDirectives = f.length >= DIRECTIVES_FIELDS;
        if ((f.length != 5 && f.length != 6 && !withDirectives) || f[0].isEmpty()) {
            return null;
        }
        long length = h.getLong(8);
        long objectLength = length;
        if (f.length >= 6 && !f[4].isEmpty()) {
            try {
                objectLength = Long.parseLong(f[4]);
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return new ObjectMeta(
                f[0],
                orNull(f[1]),
                orNull(f[2]),
                orNull(f[3]),
                length,
                h.getLong(FETCHED_OFFSET),
                h.getLong(EXPIRES_OFFSET),
                h.getInt(CRC_OFFSET),
                objectLength,
                (h.getInt(FLAGS_OFFSET) & MUST_REVALIDATE) != 0,
                (h.getInt(FLAGS_OFFSET) & LIFETIME_KNOWN) != 0,
                withDirectives ? Directives.of(orNull(f[5]), orNull(f[6])) : Directives.NONE);
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }

    private static String orNull(String s) {
        return s.isEmpty() ? null : s;
    }
}
