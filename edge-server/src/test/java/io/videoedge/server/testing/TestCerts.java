package io.videoedge.server.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** A self-signed certificate for localhost/127.0.0.1, made once per JVM with the openssl CLI. */
public final class TestCerts {
    private static Path dir;

    private TestCerts() {}

    public static synchronized Path dir() {
        if (dir == null) {
            try {
                Path d = TempDirs.create("edge-tls");
                Tools.Result r = Tools.run(List.of(
                        "openssl",
                        "req",
                        "-x509",
                        "-newkey",
                        "ec",
                        "-pkeyopt",
                        "ec_paramgen_curve:P-256",
                        "-nodes",
                        "-keyout",
                        d.resolve("tls.key").toString(),
                        "-out",
                        d.resolve("tls.crt").toString(),
                        "-days",
                        "2",
                        "-subj",
                        "/CN=localhost",
                        "-addext",
                        "subjectAltName=DNS:localhost,IP:127.0.0.1"));
                if (r.exitCode() != 0) throw new AssertionError("openssl req failed: " + r.all());
                dir = d;
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }
        return dir;
    }

    public static Path cert() {
        return dir().resolve("tls.crt");
    }

    public static Path key() {
        return dir().resolve("tls.key");
    }

    /** An SSLContext that trusts exactly the test certificate. */
    public static SSLContext trustingContext() {
        try (InputStream in = Files.newInputStream(cert())) {
            X509Certificate c =
                    (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
            KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
            ks.load(null, null);
            ks.setCertificateEntry("edge", c);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
