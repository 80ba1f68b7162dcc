package io.videoedge.server.cache;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.videoedge.server.metrics.EdgeMetrics;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Cache and origin metrics, registered next to the server's. The usual label values exist at 0 from
 * the start: Prometheus' rate() cannot see the increment that creates a series, so a cache or origin
 * panel would stay empty (or NaN) after a pod's first miss.
 */
public final class CacheMetrics {
    /** X-Cache values (CacheHandler), each a {@code videoedge_cache_responses_total} series. */
    static final List<String> RESPONSE_RESULTS =
            List.of("hit-memory", "hit-disk", "miss", "coalesced", "revalidated", "updating", "stale", "error");
    /** Origin fetch results that are not errors (the rest also count in videoedge_origin_errors_total). */
    static final Set<String> ORIGIN_OK_RESULTS = Set.of("ok", "not_modified", "not_found", "range_not_satisfiable");
    /** The result of an origin fetch whose answer the edge could not write to its cache: not an origin error. */
    static final String CACHE_WRITE = "cache_write";

    private final CounterDataPoint memoryHit;
    private final CounterDataPoint memoryMiss;
    private final CounterDataPoint diskHit;
    private final CounterDataPoint diskMiss;
    private final Counter results;
    /** The series of each X-Cache value, looked up once (a label lookup per response showed in profiles). */
    private final Map<String, CounterDataPoint> resultPoints;

    private final CounterDataPoint coalesced;
    private final Counter originErrors;
    private final CounterDataPoint cacheWriteErrors;
    private final Histogram originSeconds;
    private final CounterDataPoint verified;
    private final Counter purged;
    private final CounterDataPoint sliceCuts;

    CacheMetrics(EdgeMetrics metrics) {
        var registry = metrics.registry();
        Counter lookups = EdgeMetrics.counterBuilder()
                .name("videoedge_cache_lookups_total")
                .help("Cache lookups by tier and result (disk is consulted after a memory miss)")
                .labelNames("tier", "result")
                .register(registry);
        memoryHit = lookups.labelValues("memory", "hit");
        memoryMiss = lookups.labelValues("memory", "miss");
        diskHit = lookups.labelValues("disk", "hit");
        diskMiss = lookups.labelValues("disk", "miss");
        results = EdgeMetrics.counterBuilder()
                .name("videoedge_cache_responses_total")
                .help("Cache responses by X-Cache value: " + String.join(", ", RESPONSE_RESULTS))
                .labelNames("result")
                .register(registry);
        resultPoints = RESPONSE_RESULTS.stream().collect(Collectors.toUnmodifiableMap(r -> r, results::labelValues));
        coalesced = EdgeMetrics.counterBuilder()
                .name("videoedge_cache_coalesced_total")
                .help("Requests that joined an origin fetch already in flight instead of starting one")
                .register(registry);
        originErrors = EdgeMetrics.counterBuilder()
                .name("videoedge_origin_errors_total")
                .help("Origin fetches that produced no object, by kind")
                .labelNames("kind")
                .register(registry);
        cacheWriteErrors = EdgeMetrics.counterBuilder()
                .name("videoedge_cache_write_errors_total")
                .help("Fills whose origin answer the edge could not write to its cache (disk full, out of descriptors,"
                        + " an I/O error, no buffer): answered 500, or cut short when the answer's head was out; not counted as"
                        + " origin errors")
                .register(registry);
        originSeconds = EdgeMetrics.histogramBuilder()
                .name("videoedge_origin_request_seconds")
                .help("Origin fetch duration, from request to end of body (or failure), by result")
                .labelNames("result")
                .classicOnly()
                .classicUpperBounds(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
                .register(registry);
        for (String r : ORIGIN_OK_RESULTS) originSeconds.initLabelValues(r);
        verified = EdgeMetrics.counterBuilder()
                .name("videoedge_cache_verified_total")
                .help("Disk entries whose checksum was verified before first use after a restart")
                .register(registry);
        purged = EdgeMetrics.counterBuilder()
                .name("videoedge_cache_purged_total")
                .help("Objects removed by purges (POST /admin/purge), by tier: memory, disk, and fill (an"
                        + " origin fetch in flight that is not stored)")
                .labelNames("tier")
                .register(registry);
        for (String t : List.of("memory", "disk", "fill")) purged.initLabelValues(t);
        sliceCuts = EdgeMetrics.counterBuilder()
                .name("videoedge_cache_slice_cuts_total")
                .help("Sliced responses cut short after their head was sent (the connection is closed): a later"
                        + " slice failed at the origin, or came from another version of the object")
                .register(registry);
    }

    void memory(boolean hit) {
        (hit ? memoryHit : memoryMiss).inc();
    }

    void disk(boolean hit) {
        (hit ? diskHit : diskMiss).inc();
    }

    void result(String xcache) {
        CounterDataPoint p = resultPoints.get(xcache);
        (p != null ? p : results.labelValues(xcache)).inc();
    }

    void coalesced() {
        coalesced.inc();
    }

    void originRequest(String result, double seconds) {
        originSeconds.labelValues(result).observe(seconds);
        if (result.equals(CACHE_WRITE)) {
            cacheWriteErrors.inc();
        } else if (!ORIGIN_OK_RESULTS.contains(result)) {
            originErrors.labelValues(result).inc();
        }
    }

    void purged(PurgeResult r) {
        purged.labelValues("memory").inc(r.memory());
        purged.labelValues("disk").inc(r.disk());
        purged.labelValues("fill").inc(r.fills());
    }

    void sliceCut() {
        sliceCuts.inc();
    }

    void verified() {
        verified.inc();
    }
}
