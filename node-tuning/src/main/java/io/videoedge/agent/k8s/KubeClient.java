package io.videoedge.agent.k8s;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The few API calls the agent makes (get, list, watch, JSON patch, create), on the JDK's HTTP
 * client. Deliberately not the Fabric8 client runtime: the agent idles on every node, and that
 * client with its DSL, handlers and model registry doubled the agent's resident memory
 * (node-tuning/README.md, footprint). The Fabric8 model classes are still the types.
 */
public final class KubeClient implements AutoCloseable {
  public static final ObjectMapper JSON = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private final KubeConfig config;
  private final ExecutorService executor;
  private final HttpClient http;

  public KubeClient(KubeConfig config) {
    this.config = config;
    this.executor = Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "kube-http");
      t.setDaemon(true);
      return t;
    });
    this.http = HttpClient.newBuilder().sslContext(config.ssl()).executor(executor)
        .connectTimeout(Duration.ofSeconds(10)).version(HttpClient.Version.HTTP_1_1).build();
  }

  /** A non-2xx answer, with the API server's message. */
  public static final class KubeException extends IOException {
    private final int code;

    KubeException(int code, String message) {
      super(message);
      this.code = code;
    }

    public int code() {
      return code;
    }
  }

  public JsonNode get(String path) throws IOException {
    return send(request(path, Duration.ofSeconds(30)).GET().build());
  }

  public JsonNode patch(String path, String contentType, String body) throws IOException {
    return send(request(path, Duration.ofSeconds(30)).header("Content-Type", contentType)
        .method("PATCH", HttpRequest.BodyPublishers.ofString(body)).build());
  }

  public JsonNode post(String path, String body) throws IOException {
    return send(request(path, Duration.ofSeconds(30)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build());
  }

  /** A watch stream: one JSON event per line, until the server ends it. */
  public InputStream stream(String path) throws IOException {
    HttpResponse<InputStream> r = call(request(path, Duration.ofMinutes(10)).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
    if (r.statusCode() / 100 != 2) {
      String body;
      try (InputStream in = r.body()) {
        body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      throw new KubeException(r.statusCode(), "GET " + path + ": " + r.statusCode() + " " + message(body));
    }
    return r.body();
  }

  private HttpRequest.Builder request(String path, Duration timeout) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(config.server().toString().replaceAll("/$", "") + path))
        .timeout(timeout).header("Accept", "application/json");
    if (config.token() != null) {
      b.header("Authorization", "Bearer " + config.token().get());
    }
    if (config.impersonateUser() != null) {
      b.header("Impersonate-User", config.impersonateUser());
      config.impersonateGroups().forEach(g -> b.header("Impersonate-Group", g));
    }
    return b;
  }

  private JsonNode send(HttpRequest req) throws IOException {
    HttpResponse<String> r = call(req, HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() / 100 != 2) {
      throw new KubeException(r.statusCode(), req.method() + " " + req.uri().getRawPath() + ": " + r.statusCode() + " "
          + message(r.body()));
    }
    return r.body().isEmpty() ? JSON.nullNode() : JSON.readTree(r.body());
  }

  private <T> HttpResponse<T> call(HttpRequest req, HttpResponse.BodyHandler<T> handler) throws IOException {
    try {
      return http.send(req, handler);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  private static String message(String body) {
    try {
      JsonNode n = JSON.readTree(body);
      return n.path("message").asText(body);
    } catch (IOException e) {
      return body;
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
    http.shutdownNow();
  }
}
