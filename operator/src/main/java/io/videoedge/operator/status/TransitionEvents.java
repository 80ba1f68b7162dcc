package io.videoedge.operator.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.videoedge.api.Conditions;
import io.videoedge.api.VideoEdgeStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The Events a person should notice, from one status to the next: Ready turning True or False,
 * Degraded turning True (or changing its reason), Degraded clearing, a rollout starting and completing
 * (a paused rollout has its own Event, naming the node, from the rollout). Nothing when nothing changed,
 * so a restarted operator or a periodic reconcile emits none. Pure.
 */
public final class TransitionEvents {
    public static final String NORMAL = "Normal";
    public static final String WARNING = "Warning";

    public record Notice(String type, String reason, String message) {}

    private TransitionEvents() {}

    public static List<Notice> between(VideoEdgeStatus previous, VideoEdgeStatus next) {
        List<Notice> notices = new ArrayList<>();
        Optional<Condition> oldReady = find(previous, Conditions.READY);
        Condition ready = find(next, Conditions.READY).orElseThrow();
        boolean wasReady =
                oldReady.map(c -> Conditions.TRUE.equals(c.getStatus())).orElse(false);
        boolean isReady = Conditions.TRUE.equals(ready.getStatus());
        if (isReady && !wasReady) {
            notices.add(new Notice(NORMAL, "Ready", ready.getMessage()));
        } else if (!isReady && wasReady) {
            notices.add(new Notice(WARNING, ready.getReason(), ready.getMessage()));
        }
        Optional<Condition> oldDegraded =
                find(previous, Conditions.DEGRADED).filter(c -> Conditions.TRUE.equals(c.getStatus()));
        Condition degraded = find(next, Conditions.DEGRADED).orElseThrow();
        if (Conditions.TRUE.equals(degraded.getStatus())) {
            // a paused rollout has its own Warning from the rollout, naming the node and the revert: not twice
            boolean rolloutsOwn = Conditions.ROLLOUT_PAUSED.equals(degraded.getReason());
            if (!rolloutsOwn
                    && (oldDegraded.isEmpty()
                            || !Objects.equals(oldDegraded.get().getReason(), degraded.getReason()))) {
                notices.add(new Notice(WARNING, degraded.getReason(), degraded.getMessage()));
            }
        } else if (oldDegraded.isPresent()) {
            notices.add(new Notice(
                    NORMAL,
                    "Recovered",
                    "no longer degraded (was " + oldDegraded.get().getReason() + ")"));
        }
        Optional<String> oldProgress = find(previous, Conditions.PROGRESSING).map(Condition::getReason);
        Optional<Condition> progress = find(next, Conditions.PROGRESSING);
        if (progress.isPresent()
                && oldProgress.isPresent()
                && !oldProgress.get().equals(progress.get().getReason())) {
            String reason = progress.get().getReason();
            if (Conditions.ROLLOUT_COMPLETE.equals(reason)) {
                notices.add(new Notice(
                        NORMAL, Conditions.ROLLOUT_COMPLETE, progress.get().getMessage()));
            } else if (Conditions.ROLLING_OUT.equals(reason) && Conditions.ROLLOUT_COMPLETE.equals(oldProgress.get())) {
                notices.add(new Notice(NORMAL, "RolloutStarted", progress.get().getMessage()));
            }
        }
        return notices;
    }

    private static Optional<Condition> find(VideoEdgeStatus status, String type) {
        return status == null || status.conditions() == null
                ? Optional.empty()
                : status.conditions().stream()
                        .filter(c -> type.equals(c.getType()))
                        .findFirst();
    }
}
