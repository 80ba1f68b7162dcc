package io.videoedge.operator.rollout;

import io.videoedge.operator.render.TuningInputs;

/**
 * What every node should end up with: the current spec's tuning and edge-server pod revision.
 *
 * @param tuning the tuning the NodeTunings should carry
 * @param tuningRevision {@code tuning.revision()}
 * @param podRevision the revision of the edge-server pod template (restart-only config included)
 */
public record RolloutTarget(TuningInputs tuning, String tuningRevision, String podRevision) {
    public static RolloutTarget of(TuningInputs tuning, String podRevision) {
        return new RolloutTarget(tuning, tuning.revision(), podRevision);
    }

    /** The rollout's revision: both halves, as the nodes' rollout state and the status show it. */
    public String key() {
        return tuningRevision + "-" + podRevision;
    }
}
