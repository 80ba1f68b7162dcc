package io.videoedge.agent.metrics;

import io.fabric8.kubernetes.api.model.Condition;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.videoedge.agent.apply.PassResult;
import io.videoedge.agent.effect.TrafficCounters;
import io.videoedge.agent.plan.Setting;
import io.videoedge.api.Conditions;
import io.videoedge.api.SettingState;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/** The agent's Prometheus metrics, in a registry of its own (no JVM collectors: they cost memory). */
public final class AgentMetrics {
    /** The NodeTuning condition types exported as videoedge_agent_condition, each at 0 from the start. */
    public static final List<String> CONDITION_TYPES = List.of(Conditions.APPLIED, Conditions.DEGRADED);

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Gauge settings = Gauge.builder()
            .name("videoedge_agent_settings")
            .help("Settings of this node's NodeTuning by state")
            .labelNames("state")
            .register(registry);
    private final Counter drift = Counter.builder()
            .name("videoedge_agent_drift_detections_total")
            .help("Settings found rewritten by someone else and re-applied")
            .register(registry);
    private final Counter passes = Counter.builder()
            .name("videoedge_agent_apply_passes_total")
            .help("Apply passes (probe, plan, apply) run")
            .register(registry);
    private final Counter failures = Counter.builder()
            .name("videoedge_agent_apply_failures_total")
            .help("Apply passes that failed (refused plan or failed write)")
            .register(registry);
    private final Counter rollbacks = Counter.builder()
            .name("videoedge_agent_rollbacks_total")
            .help("Apply passes whose changes were rolled back after a failed write (or whose rollback failed too:"
                    + " Applied reason ApplyFailed)")
            .register(registry);
    private final Gauge lastApply = Gauge.builder()
            .name("videoedge_agent_last_apply_timestamp_seconds")
            .help(
                    "When a pass last applied a change of the plan (Unix time; giving originals back or a rollback does not count)")
            .register(registry);
    private final Counter reverts = Counter.builder()
            .name("videoedge_agent_reverts_total")
            .help("Complete restorations of the originals (NodeTuning deleted)")
            .register(registry);
    private final Gauge conditions = Gauge.builder()
            .name("videoedge_agent_condition")
            .help(
                    "1 while the condition of this type (Applied, Degraded) of this node's NodeTuning is True as the agent "
                            + "last reported it; 0 otherwise, and before any NodeTuning or after the originals were restored")
            .labelNames("type")
            .register(registry);

    public AgentMetrics() {
        recordConditions(List.of());
    }

    public void recordPass(PassResult r, Instant now) {
        passes.inc();
        Map<SettingState, Integer> byState = new EnumMap<>(SettingState.class);
        for (SettingState s : SettingState.values()) {
            byState.put(s, 0);
        }
        for (Setting s : r.plan().settings()) {
            byState.merge(s.state(), 1, Integer::sum);
        }
        byState.forEach((state, n) -> settings.labelValues(label(state)).set(n));
        if (!r.drifted().isEmpty()) {
            drift.inc(r.drifted().size());
        }
        switch (r.outcome()) {
            case INVALID -> failures.inc();
            case ROLLED_BACK, ROLLBACK_INCOMPLETE -> {
                failures.inc();
                rollbacks.inc();
            }
            default -> {}
        }
        if (r.appliedAChange()) {
            lastApply.set(now.toEpochMilli() / 1000.0);
        }
    }

    public void recordRevert() {
        reverts.inc();
        recordConditions(List.of()); // nothing applied, nothing degraded: the node has its originals again
    }

    /** The conditions of the status the agent just built for its NodeTuning (a type not among them: 0). */
    public void recordConditions(List<Condition> reported) {
        for (String type : CONDITION_TYPES) {
            boolean isTrue = reported != null
                    && reported.stream()
                            .anyMatch(c -> type.equals(c.getType()) && Conditions.TRUE.equals(c.getStatus()));
            conditions.labelValues(type).set(isTrue ? 1 : 0);
        }
    }

    /**
     * The node's traffic counters as metrics, read from {@code counters} at each scrape (one read serves the scrape's
     * metrics): what the tuning changes, for before-and-after graphs. Nothing is exported while it reads empty.
     */
    public void traffic(Supplier<Optional<TrafficCounters>> counters) {
        Supplier<Optional<TrafficCounters>> once = new ScrapeCache(counters);
        GaugeWithCallback.builder()
                .name("videoedge_agent_tcp_memory_pages")
                .help("Pages (4 KiB) of socket buffers all TCP sockets of the node hold (/proc/net/sockstat TCP mem)")
                .callback(cb -> once.get().ifPresent(c -> cb.call(c.tcpMemPages())))
                .register(registry);
        GaugeWithCallback.builder()
                .name("videoedge_agent_tcp_established_connections")
                .help("TCP connections established on the node (/proc/net/snmp Tcp CurrEstab)")
                .callback(cb -> once.get().ifPresent(c -> cb.call(c.tcpEstablished())))
                .register(registry);
        CounterWithCallback.builder()
                .name("videoedge_agent_net_rx_softirqs_total")
                .help("NET_RX softirqs each CPU ran (/proc/softirqs): where the node's receive work runs")
                .labelNames("cpu")
                .callback(cb -> once.get().ifPresent(c -> {
                    for (int i = 0; i < c.netRxPerCpu().size(); i++) {
                        cb.call(c.netRxPerCpu().get(i), Integer.toString(i));
                    }
                }))
                .register(registry);
        CounterWithCallback.builder()
                .name("videoedge_agent_softnet_dropped_total")
                .help("Packets dropped because a CPU's backlog was full (/proc/net/softnet_stat, all CPUs)")
                .callback(cb -> once.get().ifPresent(c -> cb.call(c.softnetDropped())))
                .register(registry);
        CounterWithCallback.builder()
                .name("videoedge_agent_softnet_time_squeezed_total")
                .help("Times NET_RX ran out of budget or time with packets left (/proc/net/softnet_stat, all CPUs)")
                .callback(cb -> once.get().ifPresent(c -> cb.call(c.timeSqueezed())))
                .register(registry);
        CounterWithCallback.builder()
                .name("videoedge_agent_tcp_retransmitted_segments_total")
                .help("TCP segments retransmitted by the node (/proc/net/snmp Tcp RetransSegs)")
                .callback(cb -> once.get().ifPresent(c -> cb.call(c.tcpRetransSegs())))
                .register(registry);
        CounterWithCallback.builder()
                .name("videoedge_agent_tcp_sent_segments_total")
                .help("TCP segments sent by the node (/proc/net/snmp Tcp OutSegs)")
                .callback(cb -> once.get().ifPresent(c -> cb.call(c.tcpOutSegs())))
                .register(registry);
    }

    /** One read of the counters per scrape: a read less than a second old is reused. */
    private static final class ScrapeCache implements Supplier<Optional<TrafficCounters>> {
        private final Supplier<Optional<TrafficCounters>> source;
        private Optional<TrafficCounters> value = Optional.empty();
        private long readAt = Long.MIN_VALUE;

        ScrapeCache(Supplier<Optional<TrafficCounters>> source) {
            this.source = source;
        }

        @Override
        public synchronized Optional<TrafficCounters> get() {
            long now = System.nanoTime();
            if (readAt == Long.MIN_VALUE || now - readAt > 1_000_000_000L) {
                value = source.get();
                readAt = now;
            }
            return value;
        }
    }

    public void write(OutputStream out) throws IOException {
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
    }

    private static String label(SettingState s) {
        String n = s.name();
        return n.charAt(0) + n.substring(1).toLowerCase(java.util.Locale.ROOT);
    }
}
