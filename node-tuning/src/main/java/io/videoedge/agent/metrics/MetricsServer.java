package io.videoedge.agent.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/** /metrics (Prometheus text) and /healthz on the JDK's HTTP server: no extra threads or libraries. */
public final class MetricsServer implements AutoCloseable {
    private final HttpServer server;

    public MetricsServer(int port, AgentMetrics metrics, BooleanSupplier healthy) throws IOException {
        server = HttpServer.create(new InetSocketAddress(port), 8);
        server.createContext("/metrics", ex -> {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            metrics.write(buf);
            send(ex, 200, "text/plain; version=0.0.4; charset=utf-8", buf.toByteArray());
        });
        server.createContext("/healthz", ex -> {
            boolean ok = healthy.getAsBoolean();
            send(
                    ex,
                    ok ? 200 : 503,
                    "text/plain",
                    (ok ? "ok\n" : "not watching its NodeTuning\n").getBytes(StandardCharsets.UTF_8));
        });
        server.setExecutor(null); // the server's own single dispatcher thread
        server.start();
    }

    private static void send(HttpExchange ex, int code, String type, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(code, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
