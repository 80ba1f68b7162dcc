package io.videoedge.operator.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.videoedge.api.Conditions;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * Each VideoEdge's status as gauges, so alerts need no kube-state-metrics:
 * {@code videoedge_nodes{namespace, videoedge, state=selected|tuned|serving|updated|attention|planned|stalled}}
 * (attention: the nodes the status counts as needing attention and lists the first of; planned: serving
 * untuned as tuning.mode Plan asks; stalled: past the deadline in a rollout turn, never healthy before),
 * {@code videoedge_condition{namespace, videoedge, type}} (1 when the condition is True),
 * {@code videoedge_rollout_paused{namespace, videoedge}} (1 while a node's failure holds the rollout),
 * {@code videoedge_rollout_blocked{namespace, videoedge}} (1 while nodes wait for room that nodes out of service
 * outside the rollout hold, none in its turn: Progressing False, reason RolloutBlocked) and
 * {@code videoedge_rollout_node_failures_total{namespace, videoedge}} (nodes that failed a revision).
 */
public final class StatusMetrics {
    private static final List<String> CONDITION_TYPES = List.of(
            Conditions.READY,
            Conditions.TUNING_APPLIED,
            Conditions.SERVER_AVAILABLE,
            Conditions.PROGRESSING,
            Conditions.DEGRADED);

    private final MeterRegistry registry;
    private final Map<String, VideoEdgeStatus> latest = new ConcurrentHashMap<>();
    private final Map<String, List<Meter>> meters = new ConcurrentHashMap<>();

    public StatusMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The status the operator just computed for this VideoEdge. */
    public void record(VideoEdge ve, VideoEdgeStatus status) {
        String key = key(ve);
        latest.put(key, status);
        meters.computeIfAbsent(key, k -> register(ve, k));
    }

    /** A node failed a revision (the rollout paused). */
    public void nodeFailed(VideoEdge ve) {
        String key = key(ve);
        meters.computeIfAbsent(key, k -> register(ve, k));
        registry.counter(
                        "videoedge.rollout.node.failures",
                        "namespace",
                        ve.getMetadata().getNamespace(),
                        "videoedge",
                        ve.getMetadata().getName())
                .increment();
    }

    /** The VideoEdge is gone: its series go too. */
    public void remove(VideoEdge ve) {
        String key = key(ve);
        latest.remove(key);
        List<Meter> gone = meters.remove(key);
        if (gone != null) {
            gone.forEach(registry::remove);
        }
    }

    private List<Meter> register(VideoEdge ve, String key) {
        String namespace = ve.getMetadata().getNamespace();
        String name = ve.getMetadata().getName();
        List<Meter> registered = new ArrayList<>();
        registered.add(nodes(namespace, name, key, "selected", VideoEdgeStatus.NodeCounts::selected));
        registered.add(nodes(namespace, name, key, "tuned", VideoEdgeStatus.NodeCounts::tuned));
        registered.add(nodes(namespace, name, key, "serving", VideoEdgeStatus.NodeCounts::serving));
        registered.add(nodes(namespace, name, key, "updated", VideoEdgeStatus.NodeCounts::updated));
        registered.add(nodes(namespace, name, key, "attention", VideoEdgeStatus.NodeCounts::needingAttention));
        registered.add(nodes(namespace, name, key, "planned", VideoEdgeStatus.NodeCounts::planned));
        registered.add(nodes(namespace, name, key, "stalled", VideoEdgeStatus.NodeCounts::stalled));
        registered.add(Gauge.builder("videoedge.rollout.paused", () -> {
                    VideoEdgeStatus status = latest.get(key);
                    return status != null
                                    && status.rollout() != null
                                    && "Paused".equals(status.rollout().state())
                            ? 1
                            : 0;
                })
                .tags("namespace", namespace, "videoedge", name)
                .description("1 while the rollout of the VideoEdge's current spec is paused by a node that failed it")
                .register(registry));
        registered.add(Gauge.builder(
                        "videoedge.rollout.blocked",
                        () -> conditionReason(key, Conditions.PROGRESSING).equals(Conditions.ROLLOUT_BLOCKED) ? 1 : 0)
                .tags("namespace", namespace, "videoedge", name)
                .description(
                        "1 while nodes wait for their turn and the room is held by nodes out of service outside the"
                                + " rollout (none in its turn)")
                .register(registry));
        registered.add(Counter.builder("videoedge.rollout.node.failures")
                .tags("namespace", namespace, "videoedge", name)
                .description("Nodes that failed a revision of the VideoEdge (each pauses its rollout)")
                .register(registry));
        for (String type : CONDITION_TYPES) {
            registered.add(Gauge.builder("videoedge.condition", () -> conditionTrue(key, type) ? 1 : 0)
                    .tags("namespace", namespace, "videoedge", name, "type", type)
                    .description("1 when the VideoEdge's condition of this type is True")
                    .register(registry));
        }
        return registered;
    }

    private Gauge nodes(
            String namespace,
            String name,
            String key,
            String state,
            ToDoubleFunction<VideoEdgeStatus.NodeCounts> count) {
        return Gauge.builder("videoedge.nodes", () -> {
                    VideoEdgeStatus status = latest.get(key);
                    return status == null || status.nodes() == null ? 0 : count.applyAsDouble(status.nodes());
                })
                .tags("namespace", namespace, "videoedge", name, "state", state)
                .description(
                        "Nodes of the VideoEdge: selected, tuned as the current spec asks, serving, updated, needing attention, "
                                + "planned (tuning.mode Plan), stalled in a rollout turn")
                .register(registry);
    }

    /** The reason of the latest status's condition of this type; "" when there is none. */
    private String conditionReason(String key, String type) {
        return condition(key, type).map(Condition::getReason).orElse("");
    }

    private boolean conditionTrue(String key, String type) {
        return condition(key, type)
                .map(c -> Conditions.TRUE.equals(c.getStatus()))
                .orElse(false);
    }

    private java.util.Optional<Condition> condition(String key, String type) {
        VideoEdgeStatus status = latest.get(key);
        return status == null || status.conditions() == null
                ? java.util.Optional.empty()
                : status.conditions().stream()
                        .filter(c -> type.equals(c.getType()))
                        .findFirst();
    }

    private static String key(VideoEdge ve) {
        return Objects.requireNonNull(ve.getMetadata().getNamespace()) + "/"
                + ve.getMetadata().getName();
    }
}
