package io.videoedge.agent.facts;

import java.time.Instant;

/**
 * This boot of the node: the kernel's id for it (/proc/sys/kernel/random/boot_id) and when it began (/proc/stat
 * btime), each null when the node does not say. A reboot resets every value the agent writes, so what was recorded
 * under an earlier boot (the journal's originals, a status report's) is not the node's any more.
 *
 * @param id the boot id, null when unknown
 * @param startedAt when the boot began, null when unknown
 */
public record Boot(String id, Instant startedAt) {
    /** A node that says nothing of its boot: nothing is ever taken for an earlier boot's. */
    public static final Boot UNKNOWN = new Boot(null, null);

    /**
     * Whether something recorded under the boot {@code recordedId} (null: written by an agent that recorded
     * none) and last written at {@code writtenAt} (null: unknown) belongs to an earlier boot. Without a recorded
     * boot, only a time before this boot began tells; false whenever it cannot be told.
     */
    public boolean earlier(String recordedId, Instant writtenAt) {
        if (recordedId != null) {
            return id != null && !recordedId.equals(id);
        }
        return startedAt != null && writtenAt != null && writtenAt.isBefore(startedAt);
    }
}
