package io.videoedge.agent.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.Supplier;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Where the API server is and who the agent is: in the cluster, the pod's ServiceAccount (token
 * re-read on every request, since bound tokens rotate); outside, a kubeconfig (server, CA,
 * client certificate or token, and the `as`/`as-groups` impersonation kubectl knows).
 */
public record KubeConfig(URI server, SSLContext ssl, Supplier<String> token, String impersonateUser,
    List<String> impersonateGroups) {

  private static final Path SA = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

  /** In-cluster when the pod has a ServiceAccount, else $KUBECONFIG or ~/.kube/config. */
  public static KubeConfig load() {
    String host = System.getenv("KUBERNETES_SERVICE_HOST");
    if (host != null && Files.exists(SA.resolve("token"))) {
      String port = System.getenv().getOrDefault("KUBERNETES_SERVICE_PORT", "443");
      try {
        SSLContext ssl = context(Files.readAllBytes(SA.resolve("ca.crt")), null, null);
        Path token = SA.resolve("token");
        return new KubeConfig(URI.create("https://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port), ssl,
            () -> read(token), null, List.of());
      } catch (IOException | GeneralSecurityException e) {
        throw new IllegalStateException("cannot read the pod's ServiceAccount credentials under " + SA, e);
      }
    }
    String env = System.getenv("KUBECONFIG");
    Path file = env != null && !env.isBlank() ? Path.of(env.split(":")[0]) : Path.of(System.getProperty("user.home"), ".kube", "config");
    return fromKubeconfig(file);
  }

  /** The current context of a kubeconfig file. */
  public static KubeConfig fromKubeconfig(Path file) {
    try {
      JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
      String ctxName = root.path("current-context").asText();
      JsonNode ctx = named(root.path("contexts"), ctxName).path("context");
      JsonNode cluster = named(root.path("clusters"), ctx.path("cluster").asText()).path("cluster");
      JsonNode user = named(root.path("users"), ctx.path("user").asText()).path("user");
      byte[] ca = bytes(cluster, "certificate-authority", file);
      byte[] cert = bytes(user, "client-certificate", file);
      byte[] key = bytes(user, "client-key", file);
      String token = user.path("token").asText(null);
      List<String> groups = new ArrayList<>();
      user.path("as-groups").forEach(g -> groups.add(g.asText()));
      return new KubeConfig(URI.create(cluster.path("server").asText()), context(ca, cert, key),
          token == null ? null : () -> token, user.path("as").asText(null), List.copyOf(groups));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read kubeconfig " + file, e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("bad credentials in kubeconfig " + file + ": " + e.getMessage(), e);
    }
  }

  /** The same connection, acting as another user (RBAC tests: a ServiceAccount). */
  public KubeConfig impersonating(String user, List<String> groups) {
    return new KubeConfig(server, ssl, token, user, List.copyOf(groups));
  }

  private static JsonNode named(JsonNode list, String name) {
    for (JsonNode n : list) {
      if (name.equals(n.path("name").asText())) {
        return n;
      }
    }
    throw new IllegalArgumentException("kubeconfig has no entry named " + name);
  }

  /** field-data (base64) or field (a path, relative to the kubeconfig). */
  private static byte[] bytes(JsonNode node, String field, Path kubeconfig) throws IOException {
    if (node.hasNonNull(field + "-data")) {
      return Base64.getDecoder().decode(node.get(field + "-data").asText());
    }
    if (node.hasNonNull(field)) {
      Path p = Path.of(node.get(field).asText());
      return Files.readAllBytes(p.isAbsolute() ? p : kubeconfig.toAbsolutePath().getParent().resolve(p));
    }
    return null;
  }

  private static String read(Path p) {
    try {
      return Files.readString(p).strip();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static SSLContext context(byte[] caPem, byte[] certPem, byte[] keyPem) throws IOException, GeneralSecurityException {
    CertificateFactory cf = CertificateFactory.getInstance("X.509");
    TrustManagerFactory tmf = null;
    if (caPem != null) {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      int i = 0;
      for (Certificate c : cf.generateCertificates(new ByteArrayInputStream(caPem))) {
        trust.setCertificateEntry("ca" + i++, c);
      }
      tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
    }
    KeyManagerFactory kmf = null;
    if (certPem != null && keyPem != null) {
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(null, null);
      Certificate[] chain = cf.generateCertificates(new ByteArrayInputStream(certPem)).toArray(Certificate[]::new);
      ks.setKeyEntry("client", privateKey(new String(keyPem, StandardCharsets.US_ASCII)), new char[0], chain);
      kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, new char[0]);
    }
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
    return ctx;
  }

  /** PKCS#8 ("PRIVATE KEY") or PKCS#1 RSA ("RSA PRIVATE KEY", what kubeadm and kube-api-test write). */
  static PrivateKey privateKey(String pem) throws GeneralSecurityException {
    boolean pkcs1 = pem.contains("BEGIN RSA PRIVATE KEY");
    if (!pkcs1 && !pem.contains("BEGIN PRIVATE KEY")) {
      throw new GeneralSecurityException("client key must be PKCS#8 or PKCS#1 RSA PEM");
    }
    byte[] der = Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", "").strip());
    if (pkcs1) {
      // wrap: SEQUENCE { INTEGER 0, SEQUENCE { OID rsaEncryption, NULL }, OCTET STRING { key } }
      byte[] algorithm = {0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      body.writeBytes(new byte[] {0x02, 0x01, 0x00});
      body.writeBytes(algorithm);
      body.writeBytes(tlv(0x04, der));
      der = tlv(0x30, body.toByteArray());
    }
    return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
  }

  private static byte[] tlv(int tag, byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int n = value.length;
    if (n < 128) {
      out.write(n);
    } else {
      int bytes = n > 0xffffff ? 4 : n > 0xffff ? 3 : n > 0xff ? 2 : 1;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write((n >>> (8 * i)) & 0xff);
      }
    }
    out.writeBytes(value);
    return out.toByteArray();
  }
}
