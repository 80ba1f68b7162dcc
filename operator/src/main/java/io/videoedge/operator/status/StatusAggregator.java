package io.videoedge.operator.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.videoedge.api.Conditions;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeStatus;
import io.videoedge.operator.rollout.NodeDecision;
import io.videoedge.operator.rollout.RolloutPlan;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.TreeMap;

/**
 * The one place a VideoEdge's status is computed. Callers report what they found:
 * {@link #notReady} (a condition is False and the VideoEdge is not Ready because of it),
 * {@link #byRequest} (a condition is False because the user asked for it: Ready is not held back),
 * {@link #error} (the spec cannot be rolled out: not Ready, Degraded), {@link #warning}
 * (serving, but something needs attention: Degraded) and {@link #rollout} (Progressing). {@link #build}
 * turns that into Ready, TuningApplied, ServerAvailable, Progressing and Degraded with reasons, the node
 * counts, the first few nodes that need attention, the rollout summary and observedGeneration; a
 * condition whose status did not change keeps its lastTransitionTime. Its size does not grow with the
 * number of nodes: every message names a few nodes and counts the rest.
 */
public final class StatusAggregator {
    static final int MAX_MESSAGE = 1024;
    static final int LISTED_NODES = 5;

    private final VideoEdge ve;
    private final Instant now;
    /** The nodes needing attention, the most pressing first, then by name (only the first few are kept). */
    private final PriorityQueue<NodeReport> listed = new PriorityQueue<>(WORST_LAST);

    private final Map<String, Long> servedTls = new TreeMap<>();
    private int needingAttention;
    private int selected;
    private int tuned;
    private int serving;
    private int updated;
    private int planned;
    private int stalled;
    private Progress progress = new Progress(false, "Unknown", "", null);
    private final Map<String, Finding> notReady = new LinkedHashMap<>();
    private final Map<String, Finding> byRequest = new LinkedHashMap<>();
    private final List<Finding> errors = new ArrayList<>();
    private final List<Finding> warnings = new ArrayList<>();
    private final List<Finding> pending = new ArrayList<>();

    private record Finding(String reason, String message) {}

    private record Progress(boolean status, String reason, String message, VideoEdgeStatus.Rollout rollout) {}

    public StatusAggregator(VideoEdge ve, Instant now) {
        this.ve = ve;
        this.now = now.truncatedTo(ChronoUnit.SECONDS);
    }

    /** Most pressing first, then by name. */
    static final Comparator<NodeReport> PRESSING =
            Comparator.comparing(NodeReport::attention).thenComparing(NodeReport::node);

    private static final Comparator<NodeReport> WORST_LAST = PRESSING.reversed();

    /** A node this VideoEdge serves on (counted) or only reports (a Conflict: listed, not counted). */
    public StatusAggregator node(NodeReport report, boolean counted) {
        if (report.attention() != NodeReport.Attention.NONE) {
            needingAttention++;
            // keep the most pressing few: the heap's head is the least pressing of them
            listed.add(report);
            if (listed.size() > VideoEdgeStatus.MAX_LISTED_NODES) {
                listed.poll();
            }
        }
        if (counted) {
            if (report.summary().tls() != null) {
                servedTls.merge(report.summary().tls(), 1L, Long::sum);
            }
            selected++;
            tuned += report.tuned() ? 1 : 0;
            serving += report.serving() ? 1 : 0;
            updated += report.updated() ? 1 : 0;
            planned += report.planned() ? 1 : 0;
            stalled += report.stalled() ? 1 : 0;
        }
        return this;
    }

    /**
     * The rollout of the current spec: Progressing True (RollingOut, or RolloutComplete once every node
     * is updated) or False (RolloutPaused: a node failed), and its summary.
     */
    public StatusAggregator rollout(RolloutPlan plan) {
        String revision = plan.target().key();
        int nodes = plan.nodes().size();
        String state;
        String reason;
        String message;
        if (plan.paused()) {
            state = "Paused";
            reason = Conditions.ROLLOUT_PAUSED;
            message = "rollout of revision " + revision + " paused: node " + plan.pausedNode() + " failed: "
                    + plan.pausedReason() + "; " + plan.updated() + "/" + nodes
                    + " nodes updated. "
                    + (plan.nodes().get(plan.pausedNode()).phase() == NodeDecision.Phase.REVERTED
                            ? "Fix the spec (or revert it) to roll out again"
                            : plan.pausedUntilNewRevision()
                                    ? "It goes on with a new spec (a fix, or a revert): the node's turn failed before it"
                                            + " was re-tuned on this revision (its drain), so nothing of it there can be"
                                            + " fixed in place"
                                    : "It goes on once that node is tuned and serving on this revision for soakSeconds,"
                                            + " or with a new spec (a fix, or a revert)");
        } else if (plan.complete()) {
            state = "Complete";
            reason = Conditions.ROLLOUT_COMPLETE;
            message = "revision " + revision + " on " + nodes + "/" + nodes + " nodes";
        } else if (plan.blocked()) {
            state = "Progressing";
            reason = Conditions.ROLLOUT_BLOCKED;
            message = "rollout of revision " + revision + " blocked: " + plan.updated() + "/" + nodes
                    + " nodes updated, " + plan.waiting() + " waiting for room held by node(s) out of service outside"
                    + " the rollout: " + list(plan.blockedBy()) + " (they count against maxUnavailable "
                    + plan.policy().maxUnavailable()
                    + " until their servers are ready again or they leave the selection)";
        } else {
            state = "Progressing";
            reason = Conditions.ROLLING_OUT;
            List<String> inTurn = plan.inTurn();
            List<String> stalledNodes = plan.stalled();
            message = "rolling out revision " + revision + ": " + plan.updated() + "/" + nodes + " nodes updated"
                    + (inTurn.isEmpty() ? "" : "; in turn: " + list(inTurn))
                    + (stalledNodes.isEmpty()
                            ? ""
                            : "; stalled (never tuned and serving within progressDeadlineSeconds): "
                                    + list(stalledNodes))
                    + (plan.waiting() == 0 ? "" : "; " + plan.waiting() + " waiting");
        }
        progress = new Progress(
                !plan.paused() && !plan.blocked(),
                reason,
                message,
                new VideoEdgeStatus.Rollout(
                        revision,
                        state,
                        plan.updating(),
                        plan.waiting(),
                        plan.failed(),
                        plan.policy().maxUnavailable(),
                        message));
        return this;
    }

    /** Nothing rolls out (an invalid spec, a deletion): Progressing False with this reason. */
    public StatusAggregator notProgressing(String reason, String message) {
        progress = new Progress(false, reason, message, null);
        return this;
    }

    /** At most a few names, then how many more. */
    public static String list(List<String> items) {
        return list(items, items.size());
    }

    /** The first few of {@code total} items (more of {@code items} are ignored), then how many more. */
    public static String list(List<String> items, int total) {
        List<String> shown = items.subList(0, Math.min(items.size(), Math.min(total, LISTED_NODES)));
        return total <= shown.size()
                ? String.join(", ", shown)
                : String.join(", ", shown) + " and " + (total - shown.size()) + " more";
    }

    /** {@code type} (TuningApplied or ServerAvailable) is False for {@code reason}, and so is Ready. The first reason per type wins. */
    public StatusAggregator notReady(String type, String reason, String message) {
        notReady.putIfAbsent(type, new Finding(reason, message));
        return this;
    }

    /** {@code type} is False because the spec asks for it (Plan mode): reported, but Ready is not held back. */
    public StatusAggregator byRequest(String type, String reason, String message) {
        byRequest.putIfAbsent(type, new Finding(reason, message));
        return this;
    }

    /** The spec cannot be rolled out as it is: Ready=False and Degraded=True with this reason. */
    public StatusAggregator error(String reason, String message) {
        errors.add(new Finding(reason, message));
        return this;
    }

    /** Not there yet, and nothing is wrong (a rollout in progress): Ready=False with this reason, nothing else. */
    public StatusAggregator pending(String reason, String message) {
        pending.add(new Finding(reason, message));
        return this;
    }

    /** Serving, but something needs a person's attention: Degraded=True. */
    public StatusAggregator warning(String reason, String message) {
        warnings.add(new Finding(reason, message));
        return this;
    }

    public VideoEdgeStatus build(VideoEdgeStatus previous) {
        List<Condition> old = previous == null || previous.conditions() == null ? List.of() : previous.conditions();
        String counts = selected == 0 ? "no nodes selected" : null;
        Finding tuning = notReady.getOrDefault(Conditions.TUNING_APPLIED, byRequest.get(Conditions.TUNING_APPLIED));
        Finding server = notReady.get(Conditions.SERVER_AVAILABLE);
        if (selected == 0) {
            tuning = tuning == null ? new Finding(Conditions.NO_NODES_SELECTED, counts) : tuning;
            server = server == null ? new Finding(Conditions.NO_NODES_SELECTED, counts) : server;
        }
        Condition tuningApplied = tuning == null
                ? condition(
                        old,
                        Conditions.TUNING_APPLIED,
                        true,
                        Conditions.AS_EXPECTED,
                        tuned + "/" + selected + " nodes tuned")
                : condition(old, Conditions.TUNING_APPLIED, false, tuning.reason, tuning.message);
        Condition serverAvailable = server == null
                ? condition(
                        old,
                        Conditions.SERVER_AVAILABLE,
                        true,
                        Conditions.AS_EXPECTED,
                        serving + "/" + selected + " nodes serving")
                : condition(old, Conditions.SERVER_AVAILABLE, false, server.reason, server.message);

        List<Finding> blocking = new ArrayList<>(errors);
        blocking.addAll(notReady.values());
        blocking.addAll(pending);
        if (selected == 0 && blocking.isEmpty()) {
            blocking.add(tuning);
        }
        Condition ready = blocking.isEmpty()
                ? condition(
                        old,
                        Conditions.READY,
                        true,
                        Conditions.AS_EXPECTED,
                        "serving on " + serving + "/" + selected + " nodes")
                : condition(old, Conditions.READY, false, blocking.getFirst().reason, join(blocking));

        List<Finding> attention = new ArrayList<>(errors);
        attention.addAll(warnings);
        Condition degraded = attention.isEmpty()
                ? condition(old, Conditions.DEGRADED, false, Conditions.AS_EXPECTED, "")
                : condition(old, Conditions.DEGRADED, true, attention.getFirst().reason, join(attention));

        Condition progressing =
                condition(old, Conditions.PROGRESSING, progress.status, progress.reason, progress.message);

        return new VideoEdgeStatus(
                ve.getMetadata().getGeneration(),
                List.of(ready, tuningApplied, serverAvailable, progressing, degraded),
                new VideoEdgeStatus.NodeCounts(selected, tuned, serving, updated, needingAttention, planned, stalled),
                tuned + "/" + selected,
                serving + "/" + selected,
                updated + "/" + selected,
                ServedTls.summaryOfCounts(servedTls),
                progress.rollout,
                listed.stream().sorted(PRESSING).map(NodeReport::summary).toList());
    }

    /**
     * The operator itself failed to reconcile (an API error, a missing permission): Degraded=True with
     * reason ReconcileFailed; everything else stays as last reported, including observedGeneration
     * (the new generation was not observed), and Ready (the servers keep serving as they were).
     */
    public static VideoEdgeStatus reconcileFailed(VideoEdge ve, VideoEdgeStatus previous, Instant now, String message) {
        StatusAggregator a = new StatusAggregator(ve, now);
        List<Condition> old = previous == null || previous.conditions() == null ? List.of() : previous.conditions();
        Condition degraded = a.condition(old, Conditions.DEGRADED, true, RECONCILE_FAILED, message);
        degraded.setObservedGeneration(previous == null ? null : previous.observedGeneration());
        List<Condition> conditions = new ArrayList<>(old.stream()
                .filter(c -> !Conditions.DEGRADED.equals(c.getType()))
                .toList());
        conditions.add(degraded);
        return previous == null
                ? new VideoEdgeStatus(null, conditions, null, null, null, null, null, null, null)
                : new VideoEdgeStatus(
                        previous.observedGeneration(),
                        conditions,
                        previous.nodes(),
                        previous.tuned(),
                        previous.serving(),
                        previous.updated(),
                        previous.tls(),
                        previous.rollout(),
                        previous.nodesNeedingAttention());
    }

    public static final String RECONCILE_FAILED = "ReconcileFailed";

    private Condition condition(List<Condition> old, String type, boolean status, String reason, String message) {
        String s = status ? Conditions.TRUE : Conditions.FALSE;
        String since = old.stream()
                .filter(c -> type.equals(c.getType()) && s.equals(c.getStatus()) && c.getLastTransitionTime() != null)
                .map(Condition::getLastTransitionTime)
                .findFirst()
                .orElse(now.toString());
        return new ConditionBuilder()
                .withType(type)
                .withStatus(s)
                .withReason(reason)
                .withMessage(truncate(Objects.toString(message, "")))
                .withObservedGeneration(ve.getMetadata().getGeneration())
                .withLastTransitionTime(since)
                .build();
    }

    private static String join(List<Finding> findings) {
        return String.join(
                "; ", findings.stream().map(Finding::message).distinct().toList());
    }

    static String truncate(String message) {
        return message.length() <= MAX_MESSAGE ? message : message.substring(0, MAX_MESSAGE - 3) + "...";
    }
}
