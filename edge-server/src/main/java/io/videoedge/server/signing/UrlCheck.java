package io.videoedge.server.signing;

import java.net.InetAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import java.util.function.Supplier;

/**
 * The pure check of a request's token ({@link UrlSignature}) against the keys in effect: a result per
 * request, with the reason for a refusal. Signatures are compared in constant time. A forged token is
 * a bad signature whatever else is wrong with it; a genuine one can still be expired, used for a path
 * outside its prefix, or by another client.
 */
public final class UrlCheck {
    /** The outcome; the label is the metric's {@code result}. */
    public enum Result {
        OK("ok", true),
        /** An optional path requested without a token. */
        UNSIGNED("unsigned", true),
        MISSING("missing", false),
        MALFORMED("malformed", false),
        BAD_SIGNATURE("bad_signature", false),
        EXPIRED("expired", false),
        OUT_OF_SCOPE("out_of_scope", false),
        OTHER_CLIENT("other_client", false);

        public final String label;
        public final boolean allowed;

        Result(String label, boolean allowed) {
            this.label = label;
            this.allowed = allowed;
        }
    }

    private UrlCheck() {}

    /**
     * @param path the path as the server sees it (leading "/", decoded, normalised)
     * @param query the raw query string, null when none
     * @param client the client's address as text, asked for only when the token names one
     * @param keys the keys accepted, current first
     */
    public static Result check(
            UrlPolicy.Mode mode,
            String path,
            String query,
            Supplier<String> client,
            List<byte[]> keys,
            long nowSeconds) {
        if (mode == UrlPolicy.Mode.OFF) return Result.OK;
        Token t;
        try {
            t = Token.parse(query);
        } catch (IllegalArgumentException e) {
            return Result.MALFORMED;
        }
        if (t == null) return mode == UrlPolicy.Mode.OPTIONAL ? Result.UNSIGNED : Result.MISSING;
        String scope = t.prefix != null ? t.prefix : path;
        if (!anyKeySigned(keys, t, scope)) return Result.BAD_SIGNATURE;
        if (nowSeconds > t.expires) return Result.EXPIRED;
        if (t.prefix != null && !path.startsWith(t.prefix)) return Result.OUT_OF_SCOPE;
        if (t.client != null && !sameAddress(t.client, client.get())) return Result.OTHER_CLIENT;
        return Result.OK;
    }

    private static boolean anyKeySigned(List<byte[]> keys, Token t, String scope) {
        boolean ok = false;
        for (byte[] key : keys) { // every key, so the time does not say which one matched
            ok |= MessageDigest.isEqual(UrlSignature.mac(key, t.expires, scope, t.client), t.signature);
        }
        return ok;
    }

    private static boolean sameAddress(String tokenClient, String client) {
        if (client == null) return false;
        try {
            return InetAddress.ofLiteral(tokenClient).equals(InetAddress.ofLiteral(client));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The token's parameters; other parameters of the query are the application's and ignored. */
    record Token(long expires, String prefix, String client, byte[] signature) {
        private static final java.util.Set<String> TOKEN_PARAMETERS = java.util.Set.of(
                UrlSignature.EXPIRES, UrlSignature.PREFIX, UrlSignature.CLIENT, UrlSignature.SIGNATURE);

        /** Null when the query has none of the token's parameters; IllegalArgumentException when malformed. */
        static Token parse(String query) {
            if (query == null || query.isEmpty()) return null;
            String exp = null, prefix = null, client = null, sig = null;
            boolean any = false;
            for (String pair : query.split("&", -1)) {
                int eq = pair.indexOf('=');
                String name = eq < 0 ? pair : pair.substring(0, eq);
                if (!TOKEN_PARAMETERS.contains(name)) continue; // the application's own, whatever they hold
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                switch (name) {
                    case UrlSignature.EXPIRES -> exp = once(exp, value);
                    case UrlSignature.PREFIX -> prefix = once(prefix, value);
                    case UrlSignature.CLIENT -> client = once(client, value);
                    case UrlSignature.SIGNATURE -> sig = once(sig, value);
                    default -> throw new IllegalStateException(name);
                }
                any = true;
            }
            if (!any) return null;
            if (exp == null || sig == null || !exp.matches("[0-9]{1,18}")) {
                throw new IllegalArgumentException("exp and sig are required, exp in seconds");
            }
            if (prefix != null && !prefix.startsWith("/")) throw new IllegalArgumentException("prefix: not a path");
            return new Token(
                    Long.parseLong(exp), prefix, client, Base64.getUrlDecoder().decode(sig));
        }

        private static String once(String seen, String value) {
            if (seen != null) throw new IllegalArgumentException("a token parameter given twice");
            return value;
        }
    }
}
