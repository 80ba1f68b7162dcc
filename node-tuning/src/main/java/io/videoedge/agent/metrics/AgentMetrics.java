package io.videoedge.agent.metrics;

import io.fabric8.kubernetes.api.model.Condition;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.videoedge.agent.apply.PassResult;
import io.videoedge.agent.plan.Setting;
import io.videoedge.api.Conditions;
import io.videoedge.api.SettingState;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

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
            .help("Apply passes whose changes were rolled back after a failed write")
            .register(registry);
    private final Gauge lastApply = Gauge.builder()
            .name("videoedge_agent_last_apply_timestamp_seconds")
            .help("When the agent last changed the node (Unix time)")
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
        if (r.wrote()) {
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

    public void write(OutputStream out) throws IOException {
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
    }

    private static String label(SettingState s) {
        String n = s.name();
        return n.charAt(0) + n.substring(1).toLowerCase(java.util.Locale.ROOT);
    }
}
