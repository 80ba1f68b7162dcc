package io.videoedge.operator.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.videoedge.api.VideoEdgeStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How often a VideoEdge's status is written while a fleet churns. During a rollout on thousands of
 * nodes, agent reports and pod readiness arrive many times a second and each moves a count; writing
 * every one would send a status of several KiB to etcd per report. A change that only moves counts,
 * the rollout's progress or the listed nodes is written at most once per {@link #interval}; the write
 * is deferred, not dropped (the reconciler looks again when the interval is over and writes what is
 * true then). A transition is never deferred: a condition changing status or reason, a new
 * observedGeneration, the rollout changing state, or a first write. Pure.
 */
public record StatusPacing(Duration interval) {
    /** Counts are written at most this often per VideoEdge. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);

    public static StatusPacing standard() {
        return new StatusPacing(DEFAULT_INTERVAL);
    }

    /**
     * Empty: write {@code next} now. Else how long to wait before looking again.
     *
     * @param lastWrite when this operator last wrote this VideoEdge's status (null: not since it started)
     */
    public Optional<Duration> defer(VideoEdgeStatus current, VideoEdgeStatus next, Instant lastWrite, Instant now) {
        if (lastWrite == null || current == null || transition(current, next)) {
            return Optional.empty();
        }
        Duration since = Duration.between(lastWrite, now);
        return since.compareTo(interval) >= 0 ? Optional.empty() : Optional.of(interval.minus(since));
    }

    /** Whether {@code next} is more than moved counts: what a person or an alert waits for. */
    static boolean transition(VideoEdgeStatus current, VideoEdgeStatus next) {
        return !Objects.equals(current.observedGeneration(), next.observedGeneration())
                || !Objects.equals(state(current), state(next))
                || !sameConditions(current.conditions(), next.conditions());
    }

    private static String state(VideoEdgeStatus status) {
        return status.rollout() == null ? null : status.rollout().state();
    }

    private static boolean sameConditions(List<Condition> a, List<Condition> b) {
        if (a == null || b == null || a.size() != b.size()) {
            return a == b;
        }
        for (int i = 0; i < a.size(); i++) {
            Condition x = a.get(i);
            Condition y = b.get(i);
            if (!Objects.equals(x.getType(), y.getType())
                    || !Objects.equals(x.getStatus(), y.getStatus())
                    || !Objects.equals(x.getReason(), y.getReason())) {
                return false;
            }
        }
        return true;
    }
}
