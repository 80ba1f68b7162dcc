package io.videoedge.server.origin;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.videoedge.server.config.OriginConfig;
import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.resources.BufferPool;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The origins a miss may be fetched from: {@code origin.url}, then {@code origin.failover}, each with
 * its own client and {@link OriginHealth}. A request goes to the first origin that is up; a connection
 * failure, timeout, TLS failure or 5xx marks that origin down and the request goes on to the next one
 * (GET is idempotent, and nothing of the response has been used). When every origin is down they are
 * all tried, in order, so recovery needs no probe. Per origin, labelled {@code origin="host:port"}
 * (bounded by the config: at most eight): requests by result, up/down, time to the response head.
 */
public final class Origins implements AutoCloseable {
    record Upstream(String name, OriginClient client, OriginHealth health) {}

    private final List<Upstream> upstreams;
    private final Counter requests;
    private final Histogram headSeconds;

    private Origins(List<Upstream> upstreams, EdgeMetrics metrics) {
        this.upstreams = upstreams;
        var registry = metrics.registry();
        requests = EdgeMetrics.counterBuilder()
                .name("videoedge_origin_upstream_requests_total")
                .help(
                        "Requests to each origin (origin.url and origin.failover) by result: ok (a response head below 500), "
                                + "status_5xx, timeout, tls, connect")
                .labelNames("origin", "result")
                .register(registry);
        headSeconds = EdgeMetrics.histogramBuilder()
                .name("videoedge_origin_upstream_head_seconds")
                .help("Time from the request to an origin to its response head, by origin")
                .labelNames("origin")
                .classicOnly()
                .classicUpperBounds(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
                .register(registry);
        for (Upstream u : upstreams) {
            requests.initLabelValues(u.name(), "ok");
            headSeconds.initLabelValues(u.name());
        }
        metrics.gauges(
                "videoedge_origin_upstream_up",
                "1 while an origin is used, 0 while it is skipped after a failure (passive health, origin.downFor)",
                List.of("origin"),
                () -> {
                    long now = System.currentTimeMillis();
                    Map<List<String>, Double> samples = new LinkedHashMap<>();
                    for (Upstream u : upstreams)
                        samples.put(List.of(u.name()), u.health().up(now) ? 1.0 : 0.0);
                    return samples;
                });
    }

    public static Origins create(OriginConfig config, BufferPool buffers, EdgeMetrics metrics) throws IOException {
        List<Upstream> list = new ArrayList<>();
        for (String url : config.urls()) {
            list.add(new Upstream(name(url), new OriginClient(config, url, buffers), new OriginHealth(config.downFor)));
        }
        return new Origins(list, metrics);
    }

    /** {@code host:port} of a URL: the metrics' label. */
    static String name(String url) {
        URI uri = URI.create(url);
        int port = uri.getPort() > 0 ? uri.getPort() : "https".equals(uri.getScheme()) ? 443 : 80;
        return uri.getHost() + ":" + port;
    }

    /**
     * GET from the first origin that is up, failing over to the next on a connection failure, timeout,
     * TLS failure or 5xx; the last origin's 5xx is returned as it is, the last failure thrown.
     */
    public OriginClient.Exchange get(String path, List<String> headers) throws IOException, InterruptedException {
        return get(path, headers, null);
    }

    /** As above; {@code whileWaiting} as in {@link OriginClient#get(String, List, Runnable)}, on every attempt. */
    public OriginClient.Exchange get(String path, List<String> headers, Runnable whileWaiting)
            throws IOException, InterruptedException {
        long now = System.currentTimeMillis();
        List<Upstream> order = new ArrayList<>(upstreams.size());
        for (Upstream u : upstreams) if (u.health().up(now)) order.add(u);
        if (order.isEmpty()) order.addAll(upstreams); // all down: all tried, in order
        IOException last = null;
        for (int i = 0; i < order.size(); i++) {
            Upstream u = order.get(i);
            boolean more = i < order.size() - 1;
            long started = System.nanoTime();
            OriginClient.Exchange x;
            try {
                x = u.client().get(path, headers, whileWaiting);
            } catch (IOException e) {
                String result = e instanceof SocketTimeoutException
                        ? "timeout"
                        : e instanceof javax.net.ssl.SSLException ? "tls" : "connect";
                failed(u, result);
                last = e;
                continue;
            }
            headSeconds.labelValues(u.name()).observe((System.nanoTime() - started) / 1e9);
            if (x.head().status() >= 500) {
                failed(u, "status_5xx");
                if (more) {
                    x.abandon();
                    x.close();
                    continue;
                }
                return x;
            }
            requests.labelValues(u.name(), "ok").inc();
            u.health().success();
            return x;
        }
        throw last;
    }

    private void failed(Upstream u, String result) {
        requests.labelValues(u.name(), result).inc();
        u.health().failure(System.currentTimeMillis());
    }

    public int busyConnections() {
        int n = 0;
        for (Upstream u : upstreams) n += u.client().busyConnections();
        return n;
    }

    @Override
    public void close() {
        for (Upstream u : upstreams) u.client().close();
    }
}
