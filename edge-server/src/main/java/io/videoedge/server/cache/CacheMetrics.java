package io.videoedge.server.cache;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.videoedge.server.metrics.EdgeMetrics;

/** Cache and origin metrics, registered next to the server's. */
public final class CacheMetrics {
    private final CounterDataPoint memoryHit;
    private final CounterDataPoint memoryMiss;
    private final CounterDataPoint diskHit;
    private final CounterDataPoint diskMiss;
    private final Counter results;
    private final CounterDataPoint coalesced;
    private final Counter originErrors;
    private final Histogram originSeconds;
    private final CounterDataPoint verified;

    CacheMetrics(EdgeMetrics metrics) {
        var registry = metrics.registry();
        Counter lookups = Counter.builder()
                .name("videoedge_cache_lookups_total")
                .help("Cache lookups by tier and result (disk is consulted after a memory miss)")
                .labelNames("tier", "result")
                .register(registry);
        memoryHit = lookups.labelValues("memory", "hit");
        memoryMiss = lookups.labelValues("memory", "miss");
        diskHit = lookups.labelValues("disk", "hit");
        diskMiss = lookups.labelValues("disk", "miss");
        results = Counter.builder()
                .name("videoedge_cache_responses_total")
                .help("Cache responses by X-Cache value: hit-memory, hit-disk, miss, revalidated, stale, bypass, error")
                .labelNames("result")
                .register(registry);
        coalesced = Counter.builder()
                .name("videoedge_cache_coalesced_total")
                .help("Requests that joined an origin fetch already in flight instead of starting one")
                .register(registry);
        originErrors = Counter.builder()
                .name("videoedge_origin_errors_total")
                .help("Origin fetches that produced no object, by kind")
                .labelNames("kind")
                .register(registry);
        originSeconds = Histogram.builder()
                .name("videoedge_origin_request_seconds")
                .help("Origin fetch duration, from request to end of body (or failure), by result")
                .labelNames("result")
                .classicOnly()
                .classicUpperBounds(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
                .register(registry);
        verified = Counter.builder()
                .name("videoedge_cache_verified_total")
                .help("Disk entries whose checksum was verified before first use after a restart")
                .register(registry);
    }

    void memory(boolean hit) {
        (hit ? memoryHit : memoryMiss).inc();
    }

    void disk(boolean hit) {
        (hit ? diskHit : diskMiss).inc();
    }

    void result(String xcache) {
        results.labelValues(xcache).inc();
    }

    void coalesced() {
        coalesced.inc();
    }

    void originRequest(String result, double seconds) {
        originSeconds.labelValues(result).observe(seconds);
        if (!result.equals("ok") && !result.equals("not_modified") && !result.equals("not_found")) {
            originErrors.labelValues(result).inc();
        }
    }

    void verified() {
        verified.inc();
    }
}
