package io.videoedge.server.admin;

import java.io.IOException;
import java.util.function.BooleanSupplier;

import io.videoedge.server.config.AdminConfig;
import io.videoedge.server.metrics.EdgeMetrics;
import one.nio.http.HttpServer;
import one.nio.http.HttpServerConfig;
import one.nio.http.Path;
import one.nio.http.Response;
import one.nio.server.AcceptorConfig;

/** Plain-HTTP admin endpoints on their own port and selector: Prometheus scrape and kubelet probes. */
public final class AdminServer extends HttpServer {
    private final EdgeMetrics metrics;
    private final BooleanSupplier ready;
    private final String metricsContentType = EdgeMetrics.contentType();

    public AdminServer(AdminConfig config, EdgeMetrics metrics, BooleanSupplier ready) throws IOException {
        super(serverConfig(config));
        this.metrics = metrics;
        this.ready = ready;
    }

    private static HttpServerConfig serverConfig(AdminConfig admin) {
        AcceptorConfig acceptor = new AcceptorConfig();
        acceptor.address = admin.address;
        acceptor.port = admin.port;
        acceptor.reusePort = true;
        HttpServerConfig config = new HttpServerConfig();
        config.acceptors = new AcceptorConfig[]{acceptor};
        config.selectors = 1;
        config.keepAlive = 30_000;
        config.selectorThreadNameFormat = "admin-sel-%d";
        return config;
    }

    @Path("/metrics")
    public Response metrics() throws IOException {
        Response r = new Response(Response.OK, metrics.scrape());
        r.addHeader("Content-Type: " + metricsContentType);
        return r;
    }

    /** Liveness: the process answers. */
    @Path("/healthz")
    public Response healthz() {
        return Response.ok("ok\n");
    }

    /** Readiness: serving, and not draining. */
    @Path("/readyz")
    public Response readyz() {
        if (ready.getAsBoolean()) {
            return Response.ok("ready\n");
        }
        Response r = new Response(Response.SERVICE_UNAVAILABLE, "not ready\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        r.addHeader("Content-Type: text/plain; charset=utf-8");
        return r;
    }
}
