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
 * so. Complete once every targeted node acknowledged; Failed once the deadline passed first (or the
 * VideoEdge does not exist). Both are final: a final purge is not called again and its status stays.
 * The status is bounded: counts, sums and at most {@link CachePurgeStatus#MAX_PENDING_LISTED} pending
 * nodes, whatever the size of the fleet.
 */
public final class PurgeProgress {
    /** How long to wait before trying unreachable nodes again (a node that comes back gets the purge then). */
    public static final Duration RETRY = Duration.ofSeconds(3);

    private PurgeProgress() {}

    /** A node's acknowledgement, as this operator recorded it. */
    public record Ack(Instant at, long memory, long disk, long fills) {}

    /** A node's last failed attempt. */
    public record Attempt(Instant at, String reason, String message) {}

    /**
     * @param status what to write
     * @param toCall nodes to call now (empty once final)
     * @param finalNow whether this pass made it final (Complete or Failed): the caller records an Event
     * @param recheck when to look again, or null (final)
     */
    public record Decision(CachePurgeStatus status, SortedSet<String> toCall, String finalNow, Duration recheck) {
        public boolean isFinal() {
            return recheck == null;
        }
    }

    /** Whether a status is final: Complete or Failed is True. */
    public static boolean isFinal(CachePurgeStatus s) {
        return s != null && (isTrue(s, CachePurge.COMPLETE) || isTrue(s, CachePurge.FAILED));
    }

    /**
     * Before the calls: which nodes to call ({@code targets} not acknowledged), or nothing when the
     * purge is final or past its deadline.
     */
    public static SortedSet<String> toCall(
            CachePurgeStatus previous, Set<String> targets, Map<String, Ack> acks, Instant now, Instant deadline) {
        SortedSet<String> call = new TreeSet<>();
        if (isFinal(previous) || !now.isBefore(deadline)) return call;
        for (String n : targets) if (!acks.containsKey(n)) call.add(n);
        return call;
    }

    /** After the calls: the status, and when to look again. */
    public static Decision decide(
            long generation,
            CachePurgeStatus previous,
            Set<String> targets,
            Map<String, Ack> acks,
            Map<String, Attempt> failures,
            Instant now,
            Instant deadline) {
        if (isFinal(previous)) return new Decision(previous, new TreeSet<>(), null, null);
        SortedSet<String> pending = new TreeSet<>();
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
        String complete, completeReason, completeMessage, failed, failedReason, failedMessage, finalNow = null;
        Duration recheck;
        if (pending.isEmpty() && !targets.isEmpty()) {
            complete = Conditions.TRUE;
            completeReason = CachePurge.ALL_ACKNOWLEDGED;
            completeMessage = "all " + targets.size() + " nodes removed the objects from memory and disk";
            failed = Conditions.FALSE;
            failedReason = CachePurge.ALL_ACKNOWLEDGED;
            failedMessage = completeMessage;
            finalNow = CachePurge.COMPLETE;
            recheck = null;
        } else if (!now.isBefore(deadline)) {
            complete = Conditions.FALSE;
            completeReason = CachePurge.DEADLINE_EXCEEDED;
            failed = Conditions.TRUE;
            failedReason = CachePurge.DEADLINE_EXCEEDED;
            failedMessage = targets.isEmpty()
                    ? "the VideoEdge had no nodes by the deadline " + deadline
                    : pending.size() + " of " + targets.size() + " nodes had not acknowledged by the deadline "
                            + deadline + ": " + names(pending) + "; they were not purged (create another CachePurge)";
            completeMessage = failedMessage;
            finalNow = CachePurge.FAILED;
            recheck = null;
        } else {
            complete = Conditions.FALSE;
            completeReason = CachePurge.PENDING;
            completeMessage = targets.isEmpty()
                    ? "the VideoEdge has no nodes yet"
                    : pending.size() + " of " + targets.size() + " nodes have not acknowledged yet: " + names(pending)
                            + "; tried again until " + deadline;
            failed = Conditions.FALSE;
            failedReason = CachePurge.IN_PROGRESS;
            failedMessage = "the deadline " + deadline + " has not passed";
            Duration left = Duration.between(now, deadline);
            recheck = left.compareTo(RETRY) < 0 ? left.plusMillis(10) : RETRY;
        }
        List<Condition> conditions = List.of(
                condition(previous, CachePurge.COMPLETE, complete, completeReason, completeMessage, generation, now),
                condition(previous, CachePurge.FAILED, failed, failedReason, failedMessage, generation, now));
        CachePurgeStatus status = new CachePurgeStatus(
                generation,
                conditions,
                deadline.toString(),
                targets.size(),
                acked,
                pending.size(),
                acked + "/" + targets.size(),
                new CachePurgeStatus.Removed(memory, disk, fills),
                listed.isEmpty() ? null : listed);
        return new Decision(status, new TreeSet<>(), finalNow, recheck);
    }

    /** Final at once: the VideoEdge does not exist. */
    public static Decision videoEdgeMissing(
            long generation, CachePurgeStatus previous, String name, Instant now, Instant deadline) {
        if (isFinal(previous)) return new Decision(previous, new TreeSet<>(), null, null);
        String message = "no VideoEdge " + name + " in this namespace";
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
                null);
        return new Decision(status, new TreeSet<>(), CachePurge.FAILED, null);
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
        Condition before = previous == null || previous.conditions() == null
                ? null
                : previous.conditions().stream()
                        .filter(c -> type.equals(c.getType()))
                        .findFirst()
                        .orElse(null);
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

    private static boolean isTrue(CachePurgeStatus s, String type) {
        return s.conditions() != null
                && s.conditions().stream()
                        .anyMatch(c -> type.equals(c.getType()) && Conditions.TRUE.equals(c.getStatus()));
    }
}
