package io.videoedge.agent.apply;

import io.videoedge.agent.facts.NodeFacts;
import io.videoedge.agent.plan.Plan;
import io.videoedge.agent.plan.Setting;
import java.util.List;
import java.util.Map;

/**
 * What one pass did.
 *
 * @param plan every setting with its final state (Applied, Unchanged, Planned, Pending, Unsupported, Failed)
 * @param drifted settings of the same plan found rewritten since the last pass (found value in current) and
 *     re-applied by this one; none when it did not apply (Plan mode, refused, rolled back)
 * @param wrote whether anything on the node was changed and kept
 * @param error why the pass failed, null when it did not
 * @param released what became of the originals of settings no longer asked for (restored, gone, or not restored)
 * @param irqsPutBack queue IRQs the driver moved on a queue change (the pass's own, or the release of one) that were
 *     put back to their affinity from before it, or could not be
 * @param noteProblems the notes of {@code released} and {@code irqsPutBack} that say something failed (an original
 *     not restored, an IRQ not put back): Warnings, where the others are Normal
 * @param originals the journal's original value per setting name, after the pass
 */
public record PassResult(
        Outcome outcome,
        Plan plan,
        NodeFacts facts,
        List<Setting> drifted,
        boolean wrote,
        String error,
        List<String> released,
        List<String> irqsPutBack,
        List<String> noteProblems,
        Map<String, String> originals) {

    public enum Outcome {
        /** Everything the node can take is in place. */
        APPLIED,
        /** Plan mode: nothing changed. */
        PLANNED,
        /**
         * A value was refused before any write of the plan (the release of settings no longer asked for, which
         * comes first, may have run).
         */
        INVALID,
        /** A write failed; everything this pass changed was restored. */
        ROLLED_BACK,
        /** A write failed and restoring this pass's changes failed too. */
        ROLLBACK_INCOMPLETE
    }

    public String fingerprint() {
        return plan.fingerprint();
    }

    /**
     * The pass applied its plan and changed the node doing so: what lastAppliedTime, the last-apply metric and the
     * traffic effect's window count as a change (not a pass that rolled back, even in part).
     */
    public boolean appliedAChange() {
        return outcome == Outcome.APPLIED && wrote;
    }
}
