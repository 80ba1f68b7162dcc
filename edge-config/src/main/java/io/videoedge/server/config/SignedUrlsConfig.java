package io.videoedge.server.config;

import one.nio.config.Config;
import one.nio.config.Converter;

/**
 * Signed URLs: which paths need a token (HMAC-SHA256 over an expiry, the path or a path prefix, and
 * optionally the client address, carried in the query) and where the keys are. Absent: no path needs
 * one. {@code keyDir} holds the file {@code current} and optionally {@code previous} (the raw key
 * bytes, at least 16; a Kubernetes Secret mounted as a directory); a token made with either is
 * accepted, and the files are read again every {@code keyPoll} when their content changed, so a key
 * rotates without a restart. {@code rules}: the longest matching {@code prefix} decides the
 * {@code mode} of a path ({@code required}, {@code optional}: checked only when the request has a
 * token, {@code off}); a path no rule matches needs none.
 */
@Config
public class SignedUrlsConfig {
    public static final String CURRENT_KEY = "current";
    public static final String PREVIOUS_KEY = "previous";
    /** The shortest key accepted, in bytes (a 128-bit secret). */
    public static final int MIN_KEY_BYTES = 16;

    public String keyDir;

    @Converter(method = "time")
    public int keyPoll = 10_000;

    public Rule[] rules = {};

    /** One path prefix and its mode. */
    @Config
    public static class Rule {
        public String prefix;
        public String mode = "required";

        public Rule() {}

        public Rule(String prefix, String mode) {
            this.prefix = prefix;
            this.mode = mode;
        }
    }
}
