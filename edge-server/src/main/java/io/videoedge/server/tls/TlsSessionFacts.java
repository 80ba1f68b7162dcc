package io.videoedge.server.tls;

import one.nio.net.Socket;
import one.nio.net.SslOption;

/**
 * What a TLS session actually got, read from OpenSSL through one-nio once the handshake is done:
 * protocol, cipher, whether it was resumed (ticket or cache) and whether the kernel took over the
 * record layer (kTLS: OpenSSL's BIO_get_ktls_send, which is also one-nio's CAN_USE_SENDFILE).
 */
public record TlsSessionFacts(String protocol, String cipher, boolean resumed, boolean kernelTls) {

    public static TlsSessionFacts of(Socket socket) {
        String cipher = socket.getSslOption(SslOption.CURRENT_CIPHER);
        boolean resumed = Boolean.TRUE.equals(socket.getSslOption(SslOption.SESSION_REUSED));
        boolean ktls = Boolean.TRUE.equals(socket.getSslOption(SslOption.CAN_USE_SENDFILE));
        return new TlsSessionFacts(protocolOf(cipher), cipher == null ? "" : cipher, resumed, ktls);
    }

    /** OpenSSL names TLS 1.3 suites "TLS_AES_128_GCM_SHA256" and TLS 1.2 ciphers "ECDHE-RSA-...". */
    static String protocolOf(String cipher) {
        if (cipher == null || cipher.isEmpty()) return "unknown";
        return cipher.startsWith("TLS_") ? "TLSv1.3" : "TLSv1.2";
    }
}
