package io.videoedge.server.cache;

import io.videoedge.server.http.HttpDates;
import io.videoedge.server.http.Validators;
import io.videoedge.server.origin.OriginHead;
import java.util.Objects;

/**
 * What the cache keeps about an object besides its bytes. {@code etag} and {@code lastModified} are
 * the origin's (either may be null); {@code crc32c} covers the body. {@code length} is the stored
 * body's; {@code objectLength} the whole object's, which differ for a slice (a stored part of a large
 * object, see {@link SliceHandler}) and are equal otherwise. {@code fetchedAt} is when the edge asked for
 * the origin's answer that last sent or confirmed (304) the body (it may have aged while the origin took
 * to give it), less the {@code Age} that answer came with (a cache between the edge
 * and the origin had held it that long; {@link OriginHead#currentAt}), so that {@code expiresAt - fetchedAt}
 * is the lifetime the origin gave it ({@link #lifetime}) and {@code now - fetchedAt} its age
 * ({@link #ageSeconds}).
 *
 * <p>Its values never change. Last-Modified is parsed once, at the first hit, not on every request (it was about a
 * seventh of a memory hit's request handling); nothing else is kept per object, since the disk tier's
 * index holds one of these for every stored object.
 */
public final class ObjectMeta {
    private final String key;
    private final String contentType;
    private final String etag;
    private final String lastModified;
    private final long length;
    private final long fetchedAt;
    private final long expiresAt;
    private final int crc32c;
    private final long objectLength;
    private final boolean mustRevalidate;
    private final boolean lifetimeKnown;
    private final Directives directives;

    /** "Date: " and fetchedAt, made at the first answer that asks (a race makes it twice, the same). */
    private volatile String dateHeader;

    /** Last-Modified in milliseconds, -1 without one; {@link #UNPARSED} until the first hit asks. */
    private volatile long lastModifiedMillis = UNPARSED;

    private static final long UNPARSED = Long.MIN_VALUE;

    public ObjectMeta(
            String key,
            String contentType,
            String etag,
            String lastModified,
            long length,
            long fetchedAt,
            long expiresAt,
            int crc32c,
            long objectLength) {
        this(key, contentType, etag, lastModified, length, fetchedAt, expiresAt, crc32c, objectLength, false);
    }

    /**
     * {@code mustRevalidate}: the origin forbade serving it stale (no-cache, must-revalidate,
     * proxy-revalidate); once expired it answers only after the origin confirmed it.
     */
    public ObjectMeta(
            String key,
            String contentType,
            String etag,
            String lastModified,
            long length,
            long fetchedAt,
            long expiresAt,
            int crc32c,
            long objectLength,
            boolean mustRevalidate) {
        this(
                key,
                contentType,
                etag,
                lastModified,
                length,
                fetchedAt,
                expiresAt,
                crc32c,
                objectLength,
                mustRevalidate,
                true,
                Directives.NONE);
    }

    /**
     * {@code lifetimeKnown} false: a disk file of an older edge, which moved the expiry on a 304 but not
     * {@code fetchedAt}, so that the two no longer tell the lifetime. {@code directives}: the origin's
     * Cache-Control and Expires, relayed downstream.
     */
    ObjectMeta(
            String key,
            String contentType,
            String etag,
            String lastModified,
            long length,
            long fetchedAt,
            long expiresAt,
            int crc32c,
            long objectLength,
            boolean mustRevalidate,
            boolean lifetimeKnown,
            Directives directives) {
        this.key = key;
        this.contentType = contentType;
        this.etag = etag;
        this.lastModified = lastModified;
        this.length = length;
        this.fetchedAt = fetchedAt;
        this.expiresAt = expiresAt;
        this.crc32c = crc32c;
        this.objectLength = objectLength;
        this.mustRevalidate = mustRevalidate;
        this.lifetimeKnown = lifetimeKnown;
        this.directives = directives;
    }

    /** A whole object. */
    public ObjectMeta(
            String key,
            String contentType,
            String etag,
            String lastModified,
            long length,
            long fetchedAt,
            long expiresAt,
            int crc32c) {
        this(key, contentType, etag, lastModified, length, fetchedAt, expiresAt, crc32c, length);
    }

    public String key() {
        return key;
    }

    public String contentType() {
        return contentType;
    }

    public String etag() {
        return etag;
    }

    public String lastModified() {
        return lastModified;
    }

    public long length() {
        return length;
    }

    public long fetchedAt() {
        return fetchedAt;
    }

    public long expiresAt() {
        return expiresAt;
    }

    public int crc32c() {
        return crc32c;
    }

    public long objectLength() {
        return objectLength;
    }

    public boolean mustRevalidate() {
        return mustRevalidate;
    }

    /**
     * How long the origin made the object fresh for when it last sent or confirmed it (0: no-cache, or
     * expired when it came); -1 when that is not known ({@code lifetimeKnown}).
     */
    public long lifetime() {
        return lifetimeKnown ? Math.max(0, expiresAt - fetchedAt) : -1;
    }

    boolean lifetimeKnown() {
        return lifetimeKnown;
    }

    public Directives directives() {
        return directives;
    }

    /**
     * The response's age in whole seconds at {@code now} (RFC 9111 4.2.3), sent downstream as {@code Age}:
     * {@code fetchedAt} already counts the Age the origin's answer came with.
     */
    public long ageSeconds(long now) {
        return Math.max(0, (now - fetchedAt) / 1000);
    }

    /**
     * The Date header of the stored answer: when the origin was asked for the answer that last sent or
     * confirmed it, less its Age (the
     * origin's own Date is not kept; this is that Date as far as the edge's clock tells).
     */
    public String dateHeader() {
        String h = dateHeader;
        if (h == null) {
            dateHeader = h = "Date: " + HttpDates.format(fetchedAt);
        }
        return h;
    }

    /** The same response with the body as it was stored: its length, checksum and the whole object's length. */
    public ObjectMeta withBody(long newLength, int newCrc32c, long newObjectLength) {
        return new ObjectMeta(
                key,
                contentType,
                etag,
                lastModified,
                newLength,
                fetchedAt,
                expiresAt,
                newCrc32c,
                newObjectLength,
                mustRevalidate,
                lifetimeKnown,
                directives);
    }

    public ObjectMeta withDirectives(Directives newDirectives) {
        return new ObjectMeta(
                key,
                contentType,
                etag,
                lastModified,
                length,
                fetchedAt,
                expiresAt,
                crc32c,
                objectLength,
                mustRevalidate,
                lifetimeKnown,
                newDirectives);
    }

    /** Without the origin's Last-Modified no date validates (If-Modified-Since, If-Range), as in nginx. */
    public Validators validators() {
        long lm = lastModifiedMillis;
        if (lm == UNPARSED) {
            long seconds = HttpDates.parseSeconds(lastModified);
            lastModifiedMillis = lm = seconds >= 0 ? seconds * 1000 : -1; // a race parses twice, same value
        }
        return new Validators(objectLength, lm, etag);
    }

    public boolean fresh(long now) {
        return now < expiresAt;
    }

    public ObjectMeta withExpiry(long newExpiresAt) {
        return withTimes(fetchedAt, newExpiresAt, mustRevalidate, lifetimeKnown);
    }

    /**
     * After the origin confirmed the object (304) at {@code now}: a new expiry, whether it may be served
     * stale, and its Cache-Control and Expires as they are after the 304 ({@link Directives#updatedBy}).
     * {@code fetchedAt} moves to {@code now}, so that {@link #lifetime} is the one given now.
     */
    public ObjectMeta revalidated(long now, long newExpiresAt, boolean newMustRevalidate, Directives newDirectives) {
        return withTimes(now, newExpiresAt, newMustRevalidate, true).withDirectives(newDirectives);
    }

    /** The same stored bytes with other times and stale rule. */
    private ObjectMeta withTimes(
            long newFetchedAt, long newExpiresAt, boolean newMustRevalidate, boolean newLifetimeKnown) {
        return new ObjectMeta(
                key,
                contentType,
                etag,
                lastModified,
                length,
                newFetchedAt,
                newExpiresAt,
                crc32c,
                objectLength,
                newMustRevalidate,
                newLifetimeKnown,
                directives);
    }

    /**
     * Whether this (a slice) and {@code other} are parts of the same version of an object: the same
     * entity tag, Last-Modified and whole length. Parts that differ are never stitched into one response.
     */
    public boolean sameVersion(ObjectMeta other) {
        return objectLength == other.objectLength
                && Objects.equals(etag, other.etag)
                && Objects.equals(lastModified, other.lastModified);
    }

    /**
     * Whether {@code other} describes the same stored bytes (one fetch, one checksum, last confirmed at the
     * same time: a 304 refreshes both tiers alike), whatever the expiry of each.
     */
    public boolean sameBytes(ObjectMeta other) {
        return length == other.length
                && fetchedAt == other.fetchedAt
                && crc32c == other.crc32c
                && objectLength == other.objectLength
                && Objects.equals(key, other.key)
                && Objects.equals(etag, other.etag)
                && Objects.equals(lastModified, other.lastModified);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ObjectMeta m
                && sameBytes(m)
                && expiresAt == m.expiresAt
                && mustRevalidate == m.mustRevalidate
                && lifetimeKnown == m.lifetimeKnown
                && Objects.equals(contentType, m.contentType)
                && Objects.equals(directives, m.directives);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                key,
                contentType,
                etag,
                lastModified,
                length,
                fetchedAt,
                expiresAt,
                crc32c,
                objectLength,
                mustRevalidate,
                lifetimeKnown,
                directives);
    }

    @Override
    public String toString() {
        return "ObjectMeta[key=" + key + ", contentType=" + contentType + ", etag=" + etag + ", lastModified="
                + lastModified + ", length=" + length + ", fetchedAt=" + fetchedAt + ", expiresAt=" + expiresAt
                + ", crc32c=" + crc32c + ", objectLength=" + objectLength + ", mustRevalidate=" + mustRevalidate
                + ", lifetimeKnown=" + lifetimeKnown + ", directives=" + directives + "]";
    }
}
