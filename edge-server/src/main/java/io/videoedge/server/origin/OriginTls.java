package io.videoedge.server.origin;

import io.videoedge.server.config.OriginConfig;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLPeerUnverifiedException;
import one.nio.net.Socket;
import one.nio.net.SslConfig;
import one.nio.net.SslContext;
import one.nio.net.SslOption;

/**
 * TLS to an https:// origin with one-nio's native (OpenSSL) client: one-nio's {@code SocketPool}
 * connects, wraps the socket in an {@code SSL} of the context made here and runs the handshake with
 * the origin's host as SNI. The context verifies the chain ({@code SSL_VERIFY_PEER}, the handshake
 * fails otherwise) against exactly one CA bundle file: {@code origin.caFile}, or the system bundle
 * {@link OriginConfig#SYSTEM_CA_FILE}; one-nio 2.3.0 has no call that loads OpenSSL's default verify paths.
 * one-nio does not check the host name ({@code SSL_set1_host} is never called), so
 * {@link #verifyHost} does it after the handshake, before the connection is used: the certificate's
 * subjectAltName must name the host (DNS names, a wildcard only as the whole left-most label, or an
 * IP address for an IP host); the subject CN is not used (RFC 9110 4.3.4, RFC 6125).
 */
public final class OriginTls {
    private OriginTls() {}

    /** A client context that verifies the origin's chain against {@code caFile} (null: the system bundle). */
    public static SslContext context(String caFile) throws IOException {
        SslConfig c = new SslConfig();
        c.protocols = "TLSv1.2 TLSv1.3";
        c.caFile = caFile != null ? caFile : OriginConfig.SYSTEM_CA_FILE;
        c.verifyMode = SslContext.VERIFY_PEER;
        c.sessionId = "videoedge-origin"; // one-nio requires one whenever verifyMode is set
        c.cacheMode = "none";
        return SslContext.create().configure(c);
    }

    /** Throws unless the certificate the origin presented on {@code socket} names {@code host}. */
    public static void verifyHost(Socket socket, String host) throws IOException {
        byte[] der = socket.getSslOption(SslOption.PEER_CERTIFICATE);
        if (der == null) {
            throw new SSLPeerUnverifiedException("origin " + host + " presented no certificate");
        }
        X509Certificate cert;
        Collection<List<?>> names;
        try {
            cert = (X509Certificate)
                    CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der));
            names = cert.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            throw new SSLPeerUnverifiedException(
                    "origin certificate: cannot read its subjectAltName: " + e.getMessage());
        } catch (CertificateException e) {
            throw new SSLPeerUnverifiedException("origin certificate: " + e.getMessage());
        }
        if (!matches(names, host)) {
            throw new SSLPeerUnverifiedException("origin certificate does not name " + host + " (subjectAltName: "
                    + (names == null
                            ? "none"
                            : names.stream().map(n -> String.valueOf(n.get(1))).toList()) + ", subject "
                    + cert.getSubjectX500Principal().getName() + ")");
        }
    }

    /** subjectAltName entries as {@link X509Certificate#getSubjectAlternativeNames()} gives them: [type, value]. */
    static boolean matches(Collection<List<?>> names, String host) {
        if (names == null || host == null || host.isEmpty()) {
            return false;
        }
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        InetAddress ip = ipLiteral(h);
        for (List<?> name : names) {
            int type = (Integer) name.get(0);
            Object value = name.get(1);
            if (ip != null && type == 7 && value instanceof String s && ip.equals(ipLiteral(s))) {
                return true;
            }
            if (ip == null && type == 2 && value instanceof String s && dnsMatches(s, h)) {
                return true;
            }
        }
        return false;
    }

    /** One DNS name of the certificate against the host: exact (case-insensitive), or {@code *.rest} for one more label. */
    static boolean dnsMatches(String pattern, String host) {
        String p = stripDot(pattern.toLowerCase(Locale.ROOT));
        String h = stripDot(host.toLowerCase(Locale.ROOT));
        if (!p.startsWith("*.")) {
            return !p.contains("*") && p.equals(h);
        }
        String rest = p.substring(1); // ".example.com"
        if (rest.contains("*") || rest.indexOf('.', 1) < 0) {
            return false; // a wildcard elsewhere, or "*.com": never
        }
        int dot = h.indexOf('.');
        return dot > 0 && h.substring(dot).equals(rest);
    }

    private static String stripDot(String name) {
        return name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    }

    /** The address when {@code s} is an IPv4 or IPv6 literal, else null (no name lookup). */
    static InetAddress ipLiteral(String s) {
        boolean v4 = s.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean v6 = s.indexOf(':') >= 0 && s.matches("[0-9A-Fa-f:.]+");
        if (!v4 && !v6) {
            return null;
        }
        try {
            return InetAddress.getByName(s); // a literal: parsed, never resolved
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
