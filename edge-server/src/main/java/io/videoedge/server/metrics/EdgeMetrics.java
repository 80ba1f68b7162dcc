package io.videoedge.server.metrics;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * The server's Prometheus metrics, in a registry of its own (several servers may share a JVM in
 * tests). Request-path counters are resolved to data points once per label pair and kept in an array,
 * so counting a request is an array lookup and an add, not a label-map lookup.
 */
public final class EdgeMetrics {
    /** How response body bytes left the process. */
    public enum Via {
        SENDFILE("sendfile"),
        COPY("copy"),
        TLS_COPY("tls_copy"),
        MEMORY("memory");

        final String label;

        Via(String label) {
            this.label = label;
        }
    }

    /** Where response body bytes came from. */
    public enum Source {
        CONTENT("content"),
        MEMORY("memory"),
        DISK("disk"),
        ORIGIN("origin");

        final String label;

        Source(String label) {
            this.label = label;
        }
    }

    private static final String[] METHODS = {
        "OTHER", "GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE", "CONNECT", "PATCH"
    };

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Counter requests;
    private final CounterDataPoint[][] requestPoints = new CounterDataPoint[METHODS.length][600];
    private final CounterDataPoint[] bodyBytes = new CounterDataPoint[Via.values().length];
    private final CounterDataPoint[] sourceBytes = new CounterDataPoint[Source.values().length];
    private final Counter tlsSessions;
    private final CounterDataPoint earlyData;
    private final CounterDataPoint handshakeFailures;
    private final CounterDataPoint rejectedConnections;
    private final Counter refusedConnections;
    private final Counter refusedRequests;
    private final Info nativeLibrary;
    private final Info selectorCpus;
    private final Info ktls;
    private final Counter configReloads;
    private final Counter ticketKeyRotations;
    private final Info configInfo;

    /** Outcomes of reading a changed config file, the {@code result} label of videoedge_config_reloads_total. */
    public enum Reload {
        APPLIED("applied"),
        RESTART_REQUIRED("restart_required"),
        INVALID("invalid"),
        UNCHANGED("unchanged"),
        FAILED("failed");

        public final String label;

        Reload(String label) {
            this.label = label;
        }
    }

    /**
     * A counter's builder as every metric of the edge starts: without exemplars. Nothing in the edge
     * traces requests, so an exemplar would link to no trace, and sampling one cost every increment a
     * compare-and-set and a clock read, and now and then a task on the library's scheduler thread (about
     * 2% of the selector's and the fill threads' CPU on slice misses, async-profiler).
     */
    public static Counter.Builder counterBuilder() {
        return Counter.builder().withoutExemplars();
    }

    /** A histogram's builder as every metric of the edge starts: without exemplars ({@link #counterBuilder()}). */
    public static Histogram.Builder histogramBuilder() {
        return Histogram.builder().withoutExemplars();
    }

    public EdgeMetrics() {
        requests = counterBuilder()
                .name("videoedge_http_requests_total")
                .help("HTTP requests answered, by method and status")
                .labelNames("method", "status")
                .register(registry);
        Counter bytes = counterBuilder()
                .name("videoedge_http_response_body_bytes_total")
                .help(
                        "Response body bytes written to sockets, by path: sendfile (kernel copy; memory-cache hits of 256 KiB or more too, sent from the disk cache's file while the page cache holds it), copy (a small body sent with its head from one pooled buffer), tls_copy (read into a pooled buffer or the cache's memory and encrypted by OpenSSL), memory (plain send from the off-heap cache)")
                .labelNames("via")
                .register(registry);
        for (Via via : Via.values()) {
            bodyBytes[via.ordinal()] = bytes.labelValues(via.label);
        }
        Counter bySource = counterBuilder()
                .name("videoedge_http_response_body_source_bytes_total")
                .help(
                        "Response body bytes by where they came from: content (local root), memory and disk (cache hits), origin (streamed while filling)")
                .labelNames("source")
                .register(registry);
        for (Source source : Source.values()) {
            sourceBytes[source.ordinal()] = bySource.labelValues(source.label);
        }
        tlsSessions = counterBuilder()
                .name("videoedge_tls_sessions_total")
                .help(
                        "TLS sessions that sent a request, by protocol, resumption and whether the kernel took over TLS (kTLS, sendfile possible)")
                .labelNames("protocol", "resumed", "ktls")
                .register(registry);
        earlyData = counterBuilder()
                .name("videoedge_tls_early_data_requests_total")
                .help("Requests received as TLS 1.3 early data (0-RTT)")
                .register(registry);
        handshakeFailures = counterBuilder()
                .name("videoedge_tls_handshake_failures_total")
                .help(
                        "TLS connections that failed before the handshake completed with a TLS error (bad certificate alert, no common protocol or cipher, not TLS at all); clients that just close are not counted")
                .register(registry);
        rejectedConnections = counterBuilder()
                .name("videoedge_connections_rejected_total")
                .help("Connections answered 503 and closed because limits.maxConnections was reached")
                .register(registry);
        refusedConnections = counterBuilder()
                .name("videoedge_connections_refused_total")
                .help(
                        "Connections refused or cut by a defence, by reason: max_connections (503, limits.maxConnections), "
                                + "per_address (closed at accept, limits.maxConnectionsPerAddress), header_timeout (the request head "
                                + "was not complete within limits.headerTimeout), handshake_timeout (limits.handshakeTimeout), "
                                + "slow_reader (took less than limits.minSendBytes in limits.minSendPeriod while a response was "
                                + "pending), pipeline (429: more than limits.maxPipelined requests waiting)")
                .labelNames("reason")
                .register(registry);
        refusedRequests = counterBuilder()
                .name("videoedge_requests_refused_total")
                .help(
                        "Requests refused by a defence while their connection stays open, by reason: request_rate (429 with "
                                + "Retry-After: the client address is over limits.maxRequestRate, limits.requestBurst)")
                .labelNames("reason")
                .register(registry);
        refusedRequests.labelValues("request_rate"); // exposed at 0 from the start
        nativeLibrary = Info.builder()
                .name("videoedge_native_library_info")
                .help("The one-nio native library in use: origin videoedge-built, one-nio-stock or none")
                .labelNames("origin", "resource", "build", "openssl")
                .register(registry);
        selectorCpus = Info.builder()
                .name("videoedge_selector_cpu_info")
                .help("Selector thread to CPU pinning as read back from the kernel (cpu is empty when not pinned)")
                .labelNames("selector", "cpu", "allowed")
                .register(registry);
        ktls = Info.builder()
                .name("videoedge_ktls_info")
                .help("Kernel TLS: requested in the config, and whether the kernel lists the tls ULP")
                .labelNames("requested", "kernel")
                .register(registry);
        configReloads = counterBuilder()
                .name("videoedge_config_reloads_total")
                .help(
                        "Config file changes seen by the watcher, by result: applied (live fields, no restart), restart_required "
                                + "(a field outside the live set changed: nothing applied), invalid (nothing applied), unchanged (the text "
                                + "changed, the settings did not), failed (applying threw; the previous settings were restored)")
                .labelNames("result")
                .register(registry);
        for (Reload r : Reload.values()) {
            configReloads.labelValues(r.label); // exposed at 0 from the start
        }
        ticketKeyRotations = counterBuilder()
                .name("videoedge_tls_ticket_key_rotations_total")
                .help(
                        "Session ticket key rotations in the ticketDir (ticketKeys.rotation), by result: rotated (a new key encrypts, "
                                + "the previous one still decrypts), failed (the directory could not be written; retried)")
                .labelNames("result")
                .register(registry);
        ticketKeyRotations.labelValues("rotated");
        ticketKeyRotations.labelValues("failed");
        configInfo = Info.builder()
                .name("videoedge_config_info")
                .help("The config in effect: SHA-256 of the config file text it was read from")
                .labelNames("checksum")
                .register(registry);
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    public void request(int method, int status) {
        int m = method >= 0 && method < METHODS.length ? method : 0;
        if (status < 100 || status >= 600) {
            requests.labelValues(METHODS[m], Integer.toString(status)).inc();
            return;
        }
        CounterDataPoint p = requestPoints[m][status];
        if (p == null) {
            // first time for this pair: the label lookup is idempotent, so a racing duplicate is harmless
            p = requests.labelValues(METHODS[m], Integer.toString(status));
            requestPoints[m][status] = p;
        }
        p.inc();
    }

    public void bodyBytes(Via via, Source source, long bytes) {
        bodyBytes[via.ordinal()].inc(bytes);
        sourceBytes[source.ordinal()].inc(bytes);
    }

    public void tlsSession(String protocol, boolean resumed, boolean ktls) {
        tlsSessions
                .labelValues(protocol, Boolean.toString(resumed), Boolean.toString(ktls))
                .inc();
    }

    public void earlyDataRequest() {
        earlyData.inc();
    }

    public void tlsHandshakeFailure() {
        handshakeFailures.inc();
    }

    public void rejectedConnection() {
        rejectedConnections.inc();
    }

    /** Exposes the refusal reasons at 0 from the start. */
    public void refusalReasons(List<String> reasons) {
        for (String r : reasons) {
            refusedConnections.labelValues(r);
        }
    }

    public void refusedRequest(String reason) {
        refusedRequests.labelValues(reason).inc();
    }

    public void refusedConnection(String reason) {
        refusedConnections.labelValues(reason).inc();
    }

    public void nativeLibrary(String origin, String resource, String build, String openssl) {
        nativeLibrary.setLabelValues(origin, resource, build, openssl);
    }

    public void selectorCpu(int selector, String cpu, String allowed) {
        selectorCpus.addLabelValues(Integer.toString(selector), cpu, allowed);
    }

    public void ktls(boolean requested, String kernel) {
        ktls.setLabelValues(Boolean.toString(requested), kernel);
    }

    public void configReload(Reload result) {
        configReloads.labelValues(result.label).inc();
    }

    public void ticketKeyRotation(boolean rotated) {
        ticketKeyRotations.labelValues(rotated ? "rotated" : "failed").inc();
    }

    public void configInEffect(String sha256) {
        configInfo.setLabelValues(sha256);
    }

    public void gauge(String name, String help, DoubleSupplier value) {
        GaugeWithCallback.builder()
                .name(name)
                .help(help)
                .callback(cb -> cb.call(value.getAsDouble()))
                .register(registry);
    }

    public void counter(String name, String help, DoubleSupplier value) {
        CounterWithCallback.builder()
                .name(name)
                .help(help)
                .callback(cb -> cb.call(value.getAsDouble()))
                .register(registry);
    }

    /**
     * A gauge with labels whose samples are read at scrape time: one per entry (label values in
     * {@code labelNames} order to value); an empty map exposes no sample.
     */
    public void gauges(String name, String help, List<String> labelNames, Supplier<Map<List<String>, Double>> samples) {
        GaugeWithCallback.builder()
                .name(name)
                .help(help)
                .labelNames(labelNames.toArray(String[]::new))
                .callback(cb -> samples.get().forEach((labels, v) -> cb.call(v, labels.toArray(String[]::new))))
                .register(registry);
    }

    /** A counter with labels read at scrape time, as {@link #gauges}; the name ends in {@code _total}. */
    public void counters(
            String name, String help, List<String> labelNames, Supplier<Map<List<String>, Double>> samples) {
        CounterWithCallback.builder()
                .name(name)
                .help(help)
                .labelNames(labelNames.toArray(String[]::new))
                .callback(cb -> samples.get().forEach((labels, v) -> cb.call(v, labels.toArray(String[]::new))))
                .register(registry);
    }

    /** The Prometheus text exposition of everything registered. */
    public byte[] scrape() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
        PrometheusTextFormatWriter.create().write(out, registry.scrape(), EscapingScheme.UNDERSCORE_ESCAPING);
        return out.toByteArray();
    }

    public static String contentType() {
        return PrometheusTextFormatWriter.create().getContentType();
    }
}
