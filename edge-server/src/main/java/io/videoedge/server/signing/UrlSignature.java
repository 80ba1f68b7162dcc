package io.videoedge.server.signing;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signed URL token, shared by the server's check and the minting tool ({@link SignUrl}). A token
 * is four query parameters: {@code exp} (expiry, Unix seconds), optionally {@code prefix} (the token
 * covers every path starting with it, e.g. an HLS rendition's directory; without it, exactly the
 * path), optionally {@code ip} (the one client address it is for), and {@code sig}: the unpadded
 * base64url HMAC-SHA256, under the key, of
 *
 * <pre>videoedge-url-v1 LF exp LF scope LF ip</pre>
 *
 * where scope is the prefix, or the path as the server sees it (percent-decoded, "." and empty
 * segments removed, with its leading "/"), and ip is empty when the token has none. The same with
 * openssl: {@code printf 'videoedge-url-v1\n%s\n%s\n%s' "$exp" "$path" "" | openssl dgst -sha256
 * -hmac "$(cat key)" -binary | basenc --base64url | tr -d '='} (for a key of printable bytes; the
 * tool takes any bytes).
 */
public final class UrlSignature {
    public static final String EXPIRES = "exp";
    public static final String PREFIX = "prefix";
    public static final String CLIENT = "ip";
    public static final String SIGNATURE = "sig";
    static final String VERSION = "videoedge-url-v1";
    private static final String HMAC = "HmacSHA256";
    private static final ThreadLocal<Mac> MACS = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance(HMAC);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("no " + HMAC + " in this JVM", e);
        }
    });

    private UrlSignature() {}

    /** The bytes signed: see the class comment. {@code client} may be null. */
    static byte[] message(long expires, String scope, String client) {
        return (VERSION + "\n" + expires + "\n" + scope + "\n" + (client == null ? "" : client))
                .getBytes(StandardCharsets.UTF_8);
    }

    /** The raw HMAC-SHA256 of the message under {@code key}. */
    static byte[] mac(byte[] key, long expires, String scope, String client) {
        Mac mac = MACS.get();
        try {
            mac.init(new SecretKeySpec(key, HMAC));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("unusable key: " + e.getMessage(), e);
        }
        return mac.doFinal(message(expires, scope, client));
    }

    /** The {@code sig} value: unpadded base64url of the HMAC. */
    public static String sign(byte[] key, long expires, String scope, String client) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(mac(key, expires, scope, client));
    }

    /**
     * The query string that signs a request for {@code path}: scoped to {@code prefix} when not null
     * (it must be a prefix of the path), bound to {@code client} when not null.
     */
    public static String query(byte[] key, long expires, String path, String prefix, String client) {
        if (prefix != null && !path.startsWith(prefix)) {
            throw new IllegalArgumentException("the prefix " + prefix + " does not cover " + path);
        }
        StringBuilder q = new StringBuilder(EXPIRES).append('=').append(expires);
        if (prefix != null) q.append('&').append(PREFIX).append('=').append(encode(prefix));
        if (client != null) q.append('&').append(CLIENT).append('=').append(encode(client));
        String scope = prefix != null ? prefix : path;
        return q.append('&')
                .append(SIGNATURE)
                .append('=')
                .append(sign(key, expires, scope, client))
                .toString();
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
