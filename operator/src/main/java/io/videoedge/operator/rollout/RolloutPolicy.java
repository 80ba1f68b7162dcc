package io.videoedge.operator.rollout;

import io.videoedge.api.RolloutSpec;
import io.videoedge.api.VideoEdgeSpec;
import java.time.Duration;
import java.util.Objects;

/**
 * The rollout settings of a VideoEdge, resolved: maxUnavailable as a node count for this many
 * nodes the VideoEdge owns (a percentage rounded up, as the DaemonSet controller does; at least 1).
 */
public record RolloutPolicy(int maxUnavailable, Duration deadline, Duration soak, boolean autoRevert, Duration drain) {
    static final int DEADLINE_SECONDS = 600;
    static final int SOAK_SECONDS = 10;
    static final int DRAIN_SECONDS = 5;

    /** @param ownedNodes the selected nodes this VideoEdge owns (not those another VideoEdge still holds) */
    public static RolloutPolicy of(VideoEdgeSpec spec, int ownedNodes) {
        RolloutSpec r = spec.rollout() == null ? new RolloutSpec(null, null, null, null, null) : spec.rollout();
        String max = r.maxUnavailable() != null
                ? r.maxUnavailable()
                : spec.server() == null ? null : spec.server().maxUnavailable();
        return new RolloutPolicy(
                resolve(max, ownedNodes),
                Duration.ofSeconds(Objects.requireNonNullElse(r.progressDeadlineSeconds(), DEADLINE_SECONDS)),
                Duration.ofSeconds(Objects.requireNonNullElse(r.soakSeconds(), SOAK_SECONDS)),
                !Boolean.FALSE.equals(r.autoRevert()),
                Duration.ofSeconds(Objects.requireNonNullElse(r.drainSeconds(), DRAIN_SECONDS)));
    }

    static int resolve(String maxUnavailable, int nodes) {
        if (maxUnavailable == null || maxUnavailable.isBlank()) {
            return 1;
        }
        if (maxUnavailable.endsWith("%")) {
            int percent = Integer.parseInt(maxUnavailable.substring(0, maxUnavailable.length() - 1));
            return Math.max(1, (int) Math.ceil(nodes * percent / 100.0));
        }
        return Math.max(1, Integer.parseInt(maxUnavailable));
    }
}
