package io.videoedge.operator.render;

import io.videoedge.api.ServerSpec;
import io.videoedge.api.TlsMode;
import io.videoedge.api.TlsSpec;
import io.videoedge.api.VideoEdgeSpec;
import java.util.List;

/**
 * VideoEdge spec to the edge server's config file (one-nio ConfigParser format: one-nio's
 * HttpServerConfig fields plus the edge server's own sections). Pure: the same spec gives the same
 * text, byte for byte, so its checksum only changes when the config does. The format is owned by
 * the edge server (edge-server/README.md); testdata/edge-server/edge-server.yaml is the rendering of
 * examples/videoedge.yaml, tested on both sides.
 */
public final class EdgeServerConfigRenderer {
  /** Fixed settings of ours, not (yet) in the VideoEdge API: the edge server's recommended values. */
  static final String KEEP_ALIVE = "120s";
  static final String MAX_HEADER_SIZE = "8k";
  static final int MAX_CONNECTIONS = 100_000;
  static final String IDLE_TIMEOUT = "60s";

  /**
   * VideoEdge fields the edge server applies at run time (edge-server/README.md, "Live
   * reconfigure"): a change of only these reaches the running servers through the mounted ConfigMap,
   * with no restart and no connection dropped (new connections get the new values). A change to or
   * from 0 (the kernel's default: one-nio does not set it) and every other server field restart the
   * pods, node by node within rollout.maxUnavailable.
   */
  public static final List<String> LIVE_FIELDS =
      List.of("server.socket.recvBuf", "server.socket.sendBuf", "server.socket.notsentLowat");

  private EdgeServerConfigRenderer() {
  }

  /**
   * SHA-256 of the config with its live fields left out: it changes only when a field that needs a
   * restart does, and goes into the pod template (a change of it replaces the pods).
   */
  public static String restartChecksum(String source, VideoEdgeSpec spec) {
    ServerSpec.Socket s = spec.server().socket();
    ServerSpec.Socket withoutLive = new ServerSpec.Socket(live(s.recvBuf()), live(s.sendBuf()), live(s.notsentLowat()),
        s.reusePort(), s.acceptorThreads(), s.backlog());
    return Hashes.sha256(render(source, spec.withServer(spec.server().withSocket(withoutLive))));
  }

  /** A live socket size, for the restart checksum: any value but 0 (one-nio leaves a 0 unset: that needs a restart). */
  private static String live(String size) {
    return size == null || size.matches("0+[kKmMgG]?") ? "0" : "(live)";
  }

  /** Whether the spec asks for an HTTPS acceptor: TLS on and https enabled. */
  public static boolean servesHttps(VideoEdgeSpec spec) {
    TlsSpec tls = spec.tls();
    ServerSpec.Port https = spec.server() == null ? null : spec.server().https();
    return tls != null && tls.mode() != null && tls.mode() != TlsMode.NONE
        && https != null && https.port() != null && !Boolean.FALSE.equals(https.enabled());
  }

  /** Whether the HTTPS acceptor uses kernel TLS: the node needs the tls module, the status reports kTLS. */
  public static boolean usesKernelTls(VideoEdgeSpec spec) {
    return servesHttps(spec) && spec.tls().mode().usesKernelTls();
  }

  /** Whether the server fills its caches from an origin: the config has an origin block, the disk cache is written. */
  public static boolean fetchesFromOrigin(ServerSpec server) {
    return server != null && server.origin() != null && server.origin().url() != null;
  }

  public static boolean servesHttp(VideoEdgeSpec spec) {
    ServerSpec.Port http = spec.server() == null ? null : spec.server().http();
    return http != null && http.port() != null && !Boolean.FALSE.equals(http.enabled());
  }

  /** The config text; {@code source} (namespace/name) goes into the header comment only. */
  public static String render(String source, VideoEdgeSpec spec) {
    ServerSpec server = spec.server();
    Text out = new Text();
    out.line("# Edge server configuration, one-nio ConfigParser format.");
    out.line("# Rendered by the VideoEdge operator from VideoEdge " + source + ": edit the VideoEdge, not this file.");
    out.line("selectors: " + server.selectors());
    out.line("affinity: " + bool(server.affinity()));
    out.line("pinAcceptors: " + bool(server.pinAcceptors()));
    out.line("multiAcceptor: " + bool(server.multiAcceptor()));
    out.line("keepAlive: " + KEEP_ALIVE);
    out.line("acceptors:");
    if (servesHttp(spec)) {
      acceptor(out, server.http().port(), server.socket());
    }
    if (servesHttps(spec)) {
      acceptor(out, server.https().port(), server.socket());
      ssl(out, spec.tls());
    }
    out.line("admin:");
    out.line("  port: " + EdgeServerLayout.ADMIN_PORT);
    out.line("content:");
    out.line("  root: " + EdgeServerLayout.CONTENT_DIR);
    out.line("limits:");
    out.line("  maxHeaderSize: " + MAX_HEADER_SIZE);
    out.line("  maxConnections: " + MAX_CONNECTIONS);
    out.line("  idleTimeout: " + IDLE_TIMEOUT);
    cache(out, server.cache());
    if (fetchesFromOrigin(server)) {
      ServerSpec.Origin origin = server.origin();
      out.line("origin:");
      out.line("  url: " + origin.url());
      out.line("  connectTimeout: " + origin.connectTimeout());
      out.line("  readTimeout: " + origin.readTimeout());
      out.line("  maxConnections: " + origin.maxConnections());
    }
    return out.toString();
  }

  private static void acceptor(Text out, int port, ServerSpec.Socket socket) {
    out.line("- port: " + port);
    out.line("  recvBuf: " + socket.recvBuf());
    out.line("  sendBuf: " + socket.sendBuf());
    out.line("  notsentLowat: " + socket.notsentLowat());
    out.line("  reusePort: " + bool(socket.reusePort()));
    out.line("  threads: " + socket.acceptorThreads());
    out.line("  backlog: " + socket.backlog());
  }

  private static void ssl(Text out, TlsSpec tls) {
    out.line("  ssl:");
    out.line("    protocols: " + String.join(" ", tls.protocols()));
    out.line("    certFile: " + EdgeServerLayout.TLS_CERT);
    out.line("    privateKeyFile: " + EdgeServerLayout.TLS_KEY);
    if (Boolean.TRUE.equals(tls.sessionTickets())) {
      // sessionTickets false renders no ticketDir: one-nio then sets no ticket keys of ours
      out.line("    ticketDir: " + EdgeServerLayout.TICKET_DIR);
    }
    // the server falls back to userspace OpenSSL where the kernel cannot (status: KernelTlsUnavailable)
    out.line("    kernelTlsEnabled: " + tls.mode().usesKernelTls());
    boolean earlyData = tls.earlyData() != null && Boolean.TRUE.equals(tls.earlyData().enabled());
    out.line("    maxEarlyDataSize: " + (earlyData ? tls.earlyData().maxSize() : 0));
    out.line("    antiReplayEnabled: false");
    // stateless resumption by tickets only: a server-side session cache locks under load (seed 000)
    out.line("    cacheMode: none");
  }

  private static void cache(Text out, ServerSpec.Cache cache) {
    out.line("cache:");
    out.line("  memory: " + Quantities.oneNioSize(cache.memory()));
    out.line("  disk:");
    out.line("    path: " + EdgeServerLayout.CACHE_DIR);
    out.line("    size: " + Quantities.oneNioSize(cache.disk().size()));
  }

  private static String bool(Boolean b) {
    return Boolean.toString(Boolean.TRUE.equals(b));
  }

  private static final class Text {
    private final StringBuilder sb = new StringBuilder();

    void line(String s) {
      sb.append(s).append('\n');
    }

    @Override
    public String toString() {
      return sb.toString();
    }
  }
}
