package io.videoedge.server.admin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The check of an admin request's bearer token (pure). Both tokens are hashed (SHA-256) and the
 * digests compared with {@link MessageDigest#isEqual} (constant time), so neither the content nor the
 * length of the expected token leaks through timing.
 */
public final class AdminToken {
    private AdminToken() {}

    public enum Verdict {
        /** The token matches. */
        ALLOWED(null),
        /** No {@code Authorization: Bearer} header: 401. */
        MISSING("401 Unauthorized"),
        /** A token, not the right one: 403. */
        WRONG("403 Forbidden"),
        /** The server has no token (admin.tokenFile unset, missing or empty): every request is refused, 403. */
        NOT_CONFIGURED("403 Forbidden");

        public final String status;

        Verdict(String status) {
            this.status = status;
        }
    }

    /**
     * @param authorization the Authorization header's value, or null
     * @param expected the server's token, or null when it has none
     */
    public static Verdict check(String authorization, String expected) {
        if (expected == null || expected.isEmpty()) return Verdict.NOT_CONFIGURED;
        if (authorization == null) return Verdict.MISSING;
        String a = authorization.strip();
        if (a.length() < 7 || !a.regionMatches(true, 0, "Bearer ", 0, 7)) return Verdict.MISSING;
        String given = a.substring(7).strip();
        if (given.isEmpty()) return Verdict.MISSING;
        return MessageDigest.isEqual(sha256(given), sha256(expected)) ? Verdict.ALLOWED : Verdict.WRONG;
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
