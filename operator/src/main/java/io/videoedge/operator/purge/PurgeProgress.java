package io.videoedge.operator.purge;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.videoedge.api.CachePurge;
import io.videoedge.api.CachePurgeStatus;
import io.videoedge.api.Conditions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Where a purge stands (pure): which targeted nodes still need the call, and the status that says
 * so. Complete (AllNodesAcknowledged) once every targeted node acknowledged by the deadline. At the
 * deadline with nodes that had not, Failed=True (DeadlineExceeded): it stays as the record that the
 * deadline was missed, and the nodes still pending keep being called (when their pod turns ready, and
 * every {@link #LATE_RETRY}) until every targeted node has it: then Complete=True
 * (AcknowledgedAfterDeadline). Complete, and a missing VideoEdge, are final: no more calls, the status
 * stays. The status is bounded: counts, sums and at most {@link CachePurgeStatus#MAX_PENDING_LISTED}
 * pending nodes, whatever the size of the fleet.
 */
public final class PurgeProgress {
    /** Before the deadline: how long to wait before trying unreachable nodes again. */
    public static final Duration RETRY = Duration.ofSeconds(3);
    /**
     * After the deadline: how often the nodes still pending are tried (besides when their edge-server pod
     * turns ready, which the reconciler watches for).
     */
    public static final Duration LATE_RETRY = Duration.ofSeconds(60);

    private PurgeProgress() {}

    /** A node's acknowledgement: when the node applied the purge (as it says, else when it answered), what it removed. */
    public record Ack(Instant at, long memory, long disk, long fills) {}

    /** A node's last failed attempt. */
    public record Attempt(Instant at, String reason, String message) {}

    /**
     * A change of state that deserves an Event on the CachePurge and a count in
     * {@code videoedge_purges_total{outcome}}.
     */
    public record Transition(String outcome, String eventType, String eventReason, String message) {}

    /**
     * @param status what to write
     * @param transitions what this pass changed (the caller records an Event and a count for each): at
     *     most a Failed then a Complete
     * @param recheck when to look again, or null (final)
     */
    public record Decision(CachePurgeStatus status, List<Transition> transitions, Duration recheck) {
        public boolean isFinal() {
            return recheck == null;
        }
    }

    /**
     * Whether a status is final: Complete=True (every node has it, on time or late), or Failed=True
     * without a VideoEdge. Failed=True DeadlineExceeded is not: nodes are still called.
     */
    public static boolean isFinal(CachePurgeStatus s) {
        if (s == null) return false;
        if (isTrue(s, CachePurge.COMPLETE)) return true;
        Condition failed = find(s, CachePurge.FAILED);
        return failed != null
                && Conditions.TRUE.equals(failed.getStatus())
                && CachePurge.VIDEO_EDGE_NOT_FOUND.equals(failed.getReason());
    }

    /**
     * Before the calls: which nodes to call ({@code targets} not acknowledged), before the deadline and
     * after it alike; nothing when the purge is final.
     */
    public static SortedSet<String> toCall(CachePurgeStatus previous, Set<String> targets, Map<String, Ack> acks) {
        SortedSet<String> call = new TreeSet<>();
        if (isFinal(previous)) return call;
        for (String n : targets) if (!acks.containsKey(n)) call.add(n);
        return call;
    }

    /** After the calls: the status, what changed, and when to look again. */
    public static Decision decide(
            long generation,
            CachePurgeStatus previous,
            Set<String> targets,
            Map<String, Ack> acks,
            Map<String, Attempt> failures,
            Instant now,
            Instant deadline) {
        return decide(generation, previous, targets, acks, failures, now, deadline, LATE_RETRY);
    }

    /** @param lateRetry how often nodes that missed the deadline are called (besides their pods turning ready) */
    public static Decision decide(
            long generation,
            CachePurgeStatus previous,
            Set<String> targets,
            Map<String, Ack> acks,
            Map<String, Attempt> failures,
            Instant now,
            Instant deadline,
            Duration lateRetry) {
        if (isFinal(previous)) return new Decision(previous, List.of(), null);
        SortedSet<String> pending = new TreeSet<>();
        SortedSet<String> late = new TreeSet<>();
        long memory = 0, disk = 0, fills = 0;
        int acked = 0;
        for (String n : targets) {
            Ack a = acks.get(n);
            if (a == null) {
                pending.add(n);
            } else {
                acked++;
                memory += a.memory();
                disk += a.disk();
                fills += a.fills();
                if (a.at().isAfter(deadline)) late.add(n);
            }
        }
        List<CachePurgeStatus.PendingNode> listed = new ArrayList<>();
        for (String n : pending) {
            if (listed.size() == CachePurgeStatus.MAX_PENDING_LISTED) break;
            Attempt f = failures.get(n);
            listed.add(
                    f == null
                            ? new CachePurgeStatus.PendingNode(n, CachePurge.NOT_TRIED, "not called yet", null)
                            : new CachePurgeStatus.PendingNode(n, f.reason(), f.message(), f.at().toString()));
        }
        List<Transition> transitions = new ArrayList<>();
        Condition failed = null;
        Integer missed = null;
        Condition failedBefore = find(previous, CachePurge.FAILED);
        if (failedBefore != null && Conditions.TRUE.equals(failedBefore.getStatus())) {
            // the record that the deadline was missed: kept as it was written
            failed = failedBefore;
            missed = previous.missedDeadline() != null ? previous.missedDeadline() : pending.size() + late.size();
        } else if (!now.isBefore(deadline) && (!pending.isEmpty() || !late.isEmpty() || targets.isEmpty())) {
            SortedSet<String> missing = new TreeSet<>(pending);
            missing.addAll(late);
            String message = targets.isEmpty()
                    ? "the VideoEdge had no nodes by the deadline " + deadline + "; nodes that join get the purge"
                    : missing.size() + " of " + targets.size() + " nodes had not acknowledged by the deadline "
                            + deadline + ": " + names(missing)
                            + "; each gets the purge when it is back (while this CachePurge exists)";
            failed = condition(
                    previous,
                    CachePurge.FAILED,
                    Conditions.TRUE,
                    CachePurge.DEADLINE_EXCEEDED,
                    message,
                    generation,
                    now);
            missed = missing.size();
            transitions.add(new Transition("failed", "Warning", "PurgeFailed", message));
        }
        Condition complete;
        Duration recheck;
        if (pending.isEmpty() && !targets.isEmpty()) {
            if (missed != null) {
                String message = "all " + targets.size() + " nodes removed the objects from memory and disk, "
                        + late.size() + " of them after the deadline " + deadline;
                complete = condition(
                        previous,
                        CachePurge.COMPLETE,
                        Conditions.TRUE,
                        CachePurge.ACKNOWLEDGED_AFTER_DEADLINE,
                        message,
                        generation,
                        now);
                transitions.add(new Transition("complete_after_deadline", "Normal", "PurgedAfterDeadline", message));
            } else {
                String message = "all " + targets.size() + " nodes removed the objects from memory and disk";
                complete = condition(
                        previous,
                        CachePurge.COMPLETE,
                        Conditions.TRUE,
                        CachePurge.ALL_ACKNOWLEDGED,
                        message,
                        generation,
                        now);
                failed = condition(
                        previous,
                        CachePurge.FAILED,
                        Conditions.FALSE,
                        CachePurge.ALL_ACKNOWLEDGED,
                        message,
                        generation,
                        now);
                transitions.add(new Transition("complete", "Normal", "Purged", message));
            }
            recheck = null;
        } else if (missed != null) {
            String message = targets.isEmpty()
                    ? "the VideoEdge has no nodes; nodes that join get the purge"
                    : pending.size() + " of " + targets.size() + " nodes have not acknowledged: " + names(pending)
                            + "; the deadline " + deadline + " has passed: each is called when its edge-server pod"
                            + " turns ready and every " + lateRetry.toSeconds() + " s";
            complete = condition(
                    previous, CachePurge.COMPLETE, Conditions.FALSE, CachePurge.PENDING, message, generation, now);
            recheck = lateRetry;
        } else {
            String message = targets.isEmpty()
                    ? "the VideoEdge has no nodes yet"
                    : pending.size() + " of " + targets.size() + " nodes have not acknowledged yet: " + names(pending)
                            + "; tried again every " + RETRY.toSeconds() + " s until " + deadline;
            complete = condition(
                    previous, CachePurge.COMPLETE, Conditions.FALSE, CachePurge.PENDING, message, generation, now);
            failed = condition(
                    previous,
                    CachePurge.FAILED,
                    Conditions.FALSE,
                    CachePurge.IN_PROGRESS,
                    "the deadline " + deadline + " has not passed",
                    generation,
                    now);
            Duration left = Duration.between(now, deadline);
            recheck = left.compareTo(RETRY) < 0 ? left.plusMillis(10) : RETRY;
        }
        CachePurgeStatus status = new CachePurgeStatus(
                generation,
                List.of(complete, failed),
                deadline.toString(),
                targets.size(),
                acked,
                pending.size(),
                acked + "/" + targets.size(),
                new CachePurgeStatus.Removed(memory, disk, fills),
                listed.isEmpty() ? null : listed,
                missed,
                missed == null ? null : late.size());
        return new Decision(status, List.copyOf(transitions), recheck);
    }

    /**
     * Final at once: the VideoEdge does not exist (nothing to call). A purge already past its deadline
     * keeps its counts of it.
     */
    public static Decision videoEdgeMissing(
            long generation, CachePurgeStatus previous, String name, Instant now, Instant deadline) {
        if (isFinal(previous)) return new Decision(previous, List.of(), null);
        String message = "no VideoEdge " + name + " in this namespace";
        Integer missed = previous == null ? null : previous.missedDeadline();
        CachePurgeStatus status = new CachePurgeStatus(
                generation,
                List.of(
                        condition(
                                previous,
                                CachePurge.COMPLETE,
                                Conditions.FALSE,
                                CachePurge.VIDEO_EDGE_NOT_FOUND,
                                message,
                                generation,
                                now),
                        condition(
                                previous,
                                CachePurge.FAILED,
                                Conditions.TRUE,
                                CachePurge.VIDEO_EDGE_NOT_FOUND,
                                message,
                                generation,
                                now)),
                deadline.toString(),
                0,
                0,
                0,
                "0/0",
                new CachePurgeStatus.Removed(0, 0, 0),
                null,
                missed,
                missed == null ? null : previous.acknowledgedLate());
        return new Decision(status, List.of(new Transition("failed", "Warning", "PurgeFailed", message)), null);
    }

    private static String names(SortedSet<String> nodes) {
        List<String> first = nodes.stream().limit(5).toList();
        return String.join(", ", first)
                + (nodes.size() > first.size() ? " and " + (nodes.size() - first.size()) + " more" : "");
    }

    private static Condition condition(
            CachePurgeStatus previous,
            String type,
            String status,
            String reason,
            String message,
            long generation,
            Instant now) {
        Condition before = find(previous, type);
        String since = before != null && Objects.equals(before.getStatus(), status)
                ? before.getLastTransitionTime()
                : now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
        return new ConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withReason(reason)
                .withMessage(message)
                .withObservedGeneration(generation)
                .withLastTransitionTime(since)
                .build();
    }

    private static Condition find(CachePurgeStatus s, String type) {
        return s == null || s.conditions() == null
                ? null
                : s.conditions().stream()
                        .filter(c -> type.equals(c.getType()))
                        .findFirst()
                        .orElse(null);
    }

    private static boolean isTrue(CachePurgeStatus s, String type) {
        return s.conditions() != null
                && s.conditions().stream()
                        .anyMatch(c -> type.equals(c.getType()) && Conditions.TRUE.equals(c.getStatus()));
    }
}
