package io.videoedge.server.cache;

import io.videoedge.server.http.HttpDates;
import io.videoedge.server.http.Validators;

/**
 * What the cache keeps about an object besides its bytes. {@code etag} and {@code lastModified} are
 * the origin's (either may be null); {@code crc32c} covers the body.
 */
public record ObjectMeta(
        String key,
        String contentType,
        String etag,
        String lastModified,
        long length,
        long fetchedAt,
        long expiresAt,
        int crc32c) {

    /** Without the origin's Last-Modified no date validates (If-Modified-Since, If-Range), as in nginx. */
    public Validators validators() {
        long lm = HttpDates.parseSeconds(lastModified);
        return new Validators(length, lm >= 0 ? lm * 1000 : -1, etag);
    }

    public boolean fresh(long now) {
        return now < expiresAt;
    }

    public ObjectMeta withExpiry(long newExpiresAt) {
        return new ObjectMeta(key, contentType, etag, lastModified, length, fetchedAt, newExpiresAt, crc32c);
    }
}
