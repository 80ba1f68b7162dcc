package io.videoedge.operator;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.javaoperatorsdk.operator.RuntimeInfo;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The operator's own HTTP endpoints: /metrics (Prometheus text format: JOSDK's Micrometer metrics
 * and the JVM's) on one port, /healthz and /readyz on another, so probes never wait behind a scrape.
 */
public final class OpsEndpoints implements AutoCloseable {
    private final HttpServer metrics;
    private final HttpServer health;

    /** @param runtime the operator's runtime info, null until it has been created */
    public OpsEndpoints(
            int metricsPort, int healthPort, PrometheusMeterRegistry registry, Supplier<RuntimeInfo> runtime)
            throws IOException {
        metrics = HttpServer.create(new InetSocketAddress(metricsPort), 16);
        metrics.createContext("/metrics", ex -> {
            if (only(ex, "/metrics")) {
                respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape());
            }
        });
        health = HttpServer.create(new InetSocketAddress(healthPort), 16);
        // liveness: fails only when a started operator has lost an informer (a restart may cure it)
        health.createContext("/healthz", ex -> {
            if (only(ex, "/healthz")) {
                RuntimeInfo info = runtime.get();
                boolean broken = info != null && info.isStarted() && !info.allEventSourcesAreHealthy();
                respond(
                        ex,
                        broken ? 503 : 200,
                        "text/plain",
                        broken ? "unhealthy: " + info.unhealthyEventSources().keySet() : "ok");
            }
        });
        // readiness: started (caches synced) and every informer watching
        health.createContext("/readyz", ex -> {
            if (only(ex, "/readyz")) {
                RuntimeInfo info = runtime.get();
                boolean ready = info != null && info.isStarted() && info.allEventSourcesAreHealthy();
                respond(ex, ready ? 200 : 503, "text/plain", ready ? "ready" : "not ready");
            }
        });
        for (HttpServer s : new HttpServer[] {metrics, health}) {
            s.setExecutor(Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "ops-http");
                t.setDaemon(true);
                return t;
            }));
            s.start();
        }
    }

    public int metricsPort() {
        return metrics.getAddress().getPort();
    }

    public int healthPort() {
        return health.getAddress().getPort();
    }

    private static boolean only(HttpExchange ex, String path) throws IOException {
        if (!ex.getRequestURI().getPath().equals(path)) {
            respond(ex, 404, "text/plain", "not found");
            return false;
        }
        return true;
    }

    private static void respond(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        boolean head = "HEAD".equals(ex.getRequestMethod());
        ex.sendResponseHeaders(status, head ? -1 : bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            if (!head) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        metrics.stop(0);
        health.stop(0);
    }
}
