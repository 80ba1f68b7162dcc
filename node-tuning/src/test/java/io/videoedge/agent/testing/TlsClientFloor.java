package io.videoedge.agent.testing;

import java.io.FileInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The least any node agent on this JVM must do: verify the API server's certificate and speak
 * HTTP/1.1 over TLS to it (the JDK client, as Fabric8 uses it here). No JSON, no watch, no
 * metrics server, no tuning. AgentFootprintIT runs it with the agent's flags to measure the
 * floor under the agent's resident memory.
 *
 * <p>Usage: TlsClientFloor API_SERVER_URL CA_PEM_FILE; prints "idle" after 20 requests.
 */
public final class TlsClientFloor {
    private TlsClientFloor() {}

    public static void main(String[] args) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream ca = new FileInputStream(args[1])) {
            trust.setCertificateEntry(
                    "ca", CertificateFactory.getInstance("X.509").generateCertificate(ca));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, tmf.getTrustManagers(), null);
        HttpClient http = HttpClient.newBuilder()
                .sslContext(tls)
                .version(HttpClient.Version.HTTP_1_1)
                .build();
        HttpRequest version =
                HttpRequest.newBuilder(URI.create(args[0] + "/version")).build();
        for (int i = 0; i < 20; i++) {
            // any status will do (anonymous requests may be refused): the handshake and exchange happened
            System.out.println(
                    http.send(version, HttpResponse.BodyHandlers.ofString()).statusCode());
            Thread.sleep(50);
        }
        System.out.println("idle");
        Thread.sleep(Long.MAX_VALUE);
    }
}
