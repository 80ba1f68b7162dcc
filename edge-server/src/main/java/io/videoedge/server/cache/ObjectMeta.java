package io.videoedge.server.cache;

import io.videoedge.server.http.HttpDates;
import io.videoedge.server.http.Validators;
import java.util.Objects;

/**
 * What the cache keeps about an object besides its bytes. {@code etag} and {@code lastModified} are
 * the origin's (either may be null); {@code crc32c} covers the body. {@code length} is the stored
 * body's; {@code objectLength} the whole object's, which differ for a slice (a stored part of a large
 * object, see {@link SliceHandler}) and are equal otherwise.
 */
public record ObjectMeta(
        String key,
        String contentType,
        String etag,
        String lastModified,
        long length,
        long fetchedAt,
        long expiresAt,
        int crc32c,
        long objectLength) {

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

    /** Without the origin's Last-Modified no date validates (If-Modified-Since, If-Range), as in nginx. */
    public Validators validators() {
        long lm = HttpDates.parseSeconds(lastModified);
        return new Validators(objectLength, lm >= 0 ? lm * 1000 : -1, etag);
    }

    public boolean fresh(long now) {
        return now < expiresAt;
    }

    public ObjectMeta withExpiry(long newExpiresAt) {
        return new ObjectMeta(
                key, contentType, etag, lastModified, length, fetchedAt, newExpiresAt, crc32c, objectLength);
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
}
