package io.videoedge.agent.apply;

import java.util.List;
import java.util.Map;

/**
 * What restoring the originals did.
 *
 * @param restored settings written back to their original
 * @param gone settings whose target no longer exists (nothing to restore), dropped from the journal
 * @param failed settings that could not be restored (or were, but their journal entry could not be dropped), and
 *     queue IRQs the driver moved that could not be put back, with why; the settings are still in the journal
 */
public record RevertResult(List<String> restored, List<String> gone, Map<String, String> failed) {
    public boolean complete() {
        return failed.isEmpty();
    }

    /** The failures for a person: "name (why); name (why)". */
    public String describeFailures() {
        return ApplyEngine.describe(failed);
    }
}
