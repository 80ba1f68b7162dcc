package io.videoedge.server.http;

/**
 * What a stored object says about its version: length, modification time (negative: none, for cached
 * origin objects the origin sent no Last-Modified for), entity tag (may be null for cached origin
 * objects without one). For local files the ETag is strong and derived like
 * nginx's: hex modification seconds and hex length.
 */
public record Validators(long length, long lastModifiedMillis, String etag) {

    public static Validators of(long length, long lastModifiedMillis) {
        return new Validators(
                length,
                lastModifiedMillis,
                "\"" + Long.toHexString(lastModifiedMillis / 1000) + "-" + Long.toHexString(length) + "\"");
    }

    public boolean hasLastModified() {
        return lastModifiedMillis >= 0;
    }

    public long lastModifiedSeconds() {
        return lastModifiedMillis / 1000;
    }
}
