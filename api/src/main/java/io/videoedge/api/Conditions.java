package io.videoedge.api;

/**
 * Condition types and reasons (metav1.Condition: CamelCase reasons a person can act on).
 * VideoEdge: Ready, TuningApplied, ServerAvailable, Progressing, Degraded. NodeTuning: Applied, Degraded.
 */
public final class Conditions {
    public static final String TRUE = "True";
    public static final String FALSE = "False";
    public static final String UNKNOWN = "Unknown";

    // types
    public static final String READY = "Ready";
    public static final String TUNING_APPLIED = "TuningApplied";
    public static final String SERVER_AVAILABLE = "ServerAvailable";
    public static final String DEGRADED = "Degraded";
    public static final String PROGRESSING = "Progressing";
    public static final String APPLIED = "Applied";

    // reasons
    public static final String AS_EXPECTED = "AsExpected";
    public static final String NO_NODES_SELECTED = "NoNodesSelected";
    public static final String NODE_NOT_TUNED = "NodeNotTuned";
    public static final String SERVER_NOT_READY = "ServerNotReady";
    public static final String CONFLICT = "Conflict";
    public static final String INVALID_SPEC = "InvalidSpec";
    public static final String KERNEL_TLS_UNAVAILABLE = "KernelTlsUnavailable";
    public static final String APPLYING = "Applying";
    public static final String PLAN_ONLY = "PlanOnly";
    public static final String APPLY_FAILED = "ApplyFailed";
    /** The agent's journal of originals cannot be read: it changes nothing until it is fixed or moved aside. */
    public static final String JOURNAL_UNREADABLE = "JournalUnreadable";
    /**
     * The agent's journal of originals was rebuilt (re-written from memory, or taken from the last report), or an
     * earlier boot's originals were dropped.
     */
    public static final String JOURNAL_RECOVERED = "JournalRecovered";

    public static final String ROLLED_BACK = "RolledBack";
    public static final String DRIFT_CORRECTED = "DriftCorrected";
    public static final String UNSUPPORTED_SETTINGS = "UnsupportedSettings";
    public static final String RESTORING = "Restoring";
    public static final String ROLLING_OUT = "RollingOut";
    public static final String ROLLOUT_COMPLETE = "RolloutComplete";
    public static final String ROLLOUT_PAUSED = "RolloutPaused";
    /**
     * Progressing False: nodes wait for their turn, none is in one, and the room (maxUnavailable) is all taken
     * by nodes out of service outside the rollout (an updated node whose server went down).
     */
    public static final String ROLLOUT_BLOCKED = "RolloutBlocked";

    public static final String DRAINING = "Draining";
    public static final String REVERTED = "Reverted";

    private Conditions() {}
}
