package io.videoedge.operator.rollout;

import io.videoedge.operator.render.TuningInputs;

/**
 * What the rollout decided for one node in one pass.
 *
 * @param tuning the tuning the node's NodeTuning carries from now on
 * @param tuningRevision its revision
 * @param state the rollout's memory of the node, written back on the NodeTuning
 * @param phase where the node stands in the rollout
 * @param podAction what happens to its edge-server pod now
 * @param message why, for the status (null when there is nothing to say)
 */
public record NodeDecision(
        String node,
        TuningInputs tuning,
        String tuningRevision,
        NodeRolloutState state,
        Phase phase,
        PodAction podAction,
        String message) {

    public enum Phase {
        /** Runs the current revision, tuned and serving past the soak time (or nothing to change). */
        UPDATED("Updated"),
        /** Keeps its tuning and server, and serves, until its turn. */
        WAITING("Waiting"),
        /** In its turn: being re-tuned, restarted or soaking. */
        UPDATING("Updating"),
        /** In its turn: its server is out of service before its node is re-tuned or its pod evicted. */
        DRAINING("Draining"),
        /**
         * In its turn for longer than progressDeadlineSeconds without ever having run healthily: there is
         * nothing to protect or go back to, so the rollout does not pause for it, but it is no longer
         * counted as a node the rollout has yet to reach (status, alerts). It keeps its turn (and its room).
         */
        STALLED("Stalled"),
        /** Failed the current revision: the rollout is paused. */
        FAILED("Failed"),
        /** Failed the current revision and was given its last good tuning back (autoRevert). */
        REVERTED("Reverted");

        public final String label;

        Phase(String label) {
            this.label = label;
        }

        public boolean inTurn() {
            return this == UPDATING || this == DRAINING || this == STALLED;
        }
    }

    public enum PodAction {
        NONE,
        /** Close its readiness gate (reason Draining): clients leave before the re-tune or the restart. */
        DRAIN,
        /** Drained long enough: evict it; the DaemonSet controller makes the new one. */
        EVICT
    }

    /** Whether its readiness gate must be closed because it is being taken out of service. */
    public boolean draining() {
        return podAction != PodAction.NONE;
    }
}
