package io.videoedge.agent.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.VideoEdgeApi;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * List-then-watch of one NodeTuning, selected by field (metadata.name=NODE), so the agent never
 * sees another node's object. Keeps the latest copy and calls back on every change; relists
 * after an expired resourceVersion (410) or a broken stream, backing off while the server is away.
 */
public final class NodeTuningWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeTuningWatch.class);
  public static final String PATH = "/apis/" + VideoEdgeApi.GROUP + "/" + VideoEdgeApi.VERSION + "/nodetunings";

  private final KubeClient kube;
  private final String selector;
  private final Runnable onChange;
  private final AtomicReference<NodeTuning> current = new AtomicReference<>();
  private final AtomicBoolean synced = new AtomicBoolean();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Thread thread;
  private volatile InputStream stream;

  public NodeTuningWatch(KubeClient kube, String node, Runnable onChange) {
    this.kube = kube;
    this.selector = "fieldSelector=" + URLEncoder.encode("metadata.name=" + node, StandardCharsets.UTF_8);
    this.onChange = onChange;
    this.thread = new Thread(this::loop, "nodetuning-watch");
    this.thread.setDaemon(true);
  }

  public void start() {
    thread.start();
  }

  /** The object as last seen, null when there is none. */
  public NodeTuning current() {
    return current.get();
  }

  /** Listed at least once and watching. */
  public boolean synced() {
    return synced.get() && running.get() && thread.isAlive();
  }

  private void loop() {
    Duration backoff = Duration.ofSeconds(1);
    while (running.get()) {
      try {
        JsonNode list = kube.get(PATH + "?" + selector);
        JsonNode items = list.path("items");
        current.set(items.isEmpty() ? null : KubeClient.JSON.treeToValue(items.get(0), NodeTuning.class));
        synced.set(true);
        onChange.run();
        watch(list.path("metadata").path("resourceVersion").asText());
        backoff = Duration.ofSeconds(1);
      } catch (IOException | RuntimeException e) {
        if (!running.get()) {
          return;
        }
        LOG.warn("watch of NodeTuning interrupted ({}); relisting in {} s", e.getMessage(), backoff.toSeconds());
        synced.set(false);
        try {
          Thread.sleep(backoff.toMillis()); // backoff while the API server is unreachable
        } catch (InterruptedException ie) {
          return;
        }
        backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(30)) > 0 ? Duration.ofSeconds(30) : backoff.multipliedBy(2);
      }
    }
  }

  /** Follows the watch stream until it ends (server timeout) or tells us to relist. */
  private void watch(String resourceVersion) throws IOException {
    String rv = resourceVersion;
    while (running.get()) {
      try (InputStream in = kube.stream(PATH + "?" + selector + "&watch=true&allowWatchBookmarks=true&timeoutSeconds=300"
          + "&resourceVersion=" + URLEncoder.encode(rv, StandardCharsets.UTF_8))) {
        stream = in;
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        String line;
        while ((line = r.readLine()) != null) {
          JsonNode ev = KubeClient.JSON.readTree(line);
          String type = ev.path("type").asText();
          JsonNode obj = ev.path("object");
          if (type.equals("ERROR")) {
            return; // typically 410 Gone: the resourceVersion expired, relist
          }
          rv = obj.path("metadata").path("resourceVersion").asText(rv);
          switch (type) {
            case "ADDED", "MODIFIED" -> current.set(KubeClient.JSON.treeToValue(obj, NodeTuning.class));
            case "DELETED" -> current.set(null);
            default -> {
              continue; // BOOKMARK: only the resourceVersion moves
            }
          }
          onChange.run();
        }
      }
    }
  }

  @Override
  public void close() {
    running.set(false);
    thread.interrupt();
    InputStream s = stream;
    if (s != null) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing to unblock the reader
      }
    }
  }
}
