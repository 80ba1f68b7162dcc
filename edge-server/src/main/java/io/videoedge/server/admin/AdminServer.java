package io.videoedge.server.admin;

import io.videoedge.server.config.AdminConfig;
import io.videoedge.server.metrics.EdgeMetrics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import one.nio.http.HttpServer;
import one.nio.http.HttpServerConfig;
import one.nio.http.Path;
import one.nio.http.Request;
import one.nio.http.Response;
import one.nio.server.AcceptorConfig;

/**
 * Plain-HTTP admin endpoints on their own port and selector: Prometheus scrape, kubelet probes, the
 * socket options of the edge's listening sockets and connections ({@link SocketsReport}), and the
 * authenticated cache purge ({@link PurgeEndpoint}).
 */
public final class AdminServer extends HttpServer {
    private final EdgeMetrics metrics;
    private final BooleanSupplier ready;
    private final IntFunction<String> socketsJson;
    private final PurgeEndpoint purge;
    private final String metricsContentType = EdgeMetrics.contentType();

    /**
     * @param socketsJson the /sockets document for a session limit
     * @param purge POST /admin/purge
     */
    public AdminServer(
            AdminConfig config,
            EdgeMetrics metrics,
            BooleanSupplier ready,
            IntFunction<String> socketsJson,
            PurgeEndpoint purge)
            throws IOException {
        super(serverConfig(config));
        this.metrics = metrics;
        this.ready = ready;
        this.socketsJson = socketsJson;
        this.purge = purge;
    }

    private static HttpServerConfig serverConfig(AdminConfig admin) {
        AcceptorConfig acceptor = new AcceptorConfig();
        acceptor.address = admin.address;
        acceptor.port = admin.port;
        acceptor.reusePort = true;
        HttpServerConfig config = new HttpServerConfig();
        config.acceptors = new AcceptorConfig[] {acceptor};
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

    /**
     * Effective socket options (getsockopt) of the listening sockets and of the first {@code limit}
     * connections (default 100, at most 10000), with the total number of connections.
     */
    @Path("/sockets")
    public Response sockets(Request request) {
        int limit = SocketsReport.DEFAULT_LIMIT;
        String p = request.getParameter("limit=");
        if (p != null) {
            try {
                limit = Math.clamp(Integer.parseInt(p), 0, SocketsReport.MAX_LIMIT);
            } catch (NumberFormatException e) {
                return text(Response.BAD_REQUEST, "limit must be a number\n");
            }
        }
        Response r = new Response(Response.OK, socketsJson.apply(limit).getBytes(StandardCharsets.UTF_8));
        r.addHeader("Content-Type: application/json");
        return r;
    }

    /** Removes a path or a prefix from the cache; bearer token required ({@link PurgeEndpoint}). */
    @Path("/admin/purge")
    public Response purge(Request request) {
        return purge.handle(request);
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
        return text(Response.SERVICE_UNAVAILABLE, "not ready\n");
    }

    private static Response text(String status, String body) {
        Response r = new Response(status, body.getBytes(StandardCharsets.UTF_8));
        r.addHeader("Content-Type: text/plain; charset=utf-8");
        return r;
    }
}
