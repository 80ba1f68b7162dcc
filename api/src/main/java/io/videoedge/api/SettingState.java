package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Where one setting of a NodeTuning stands on its node. A setting someone rewrote after it was applied is
 * re-applied and reported Applied again; the NodeTuning's status.lastDrift records it.
 */
public enum SettingState {
    /** Written and read back equal to the desired value. */
    @JsonProperty("Applied")
    APPLIED,
    /** Already had the desired value; nothing written. */
    @JsonProperty("Unchanged")
    UNCHANGED,
    /** Plan mode: would be changed from actual to desired. */
    @JsonProperty("Planned")
    PLANNED,
    /** Waiting for something (e.g. the server pod's CPUs for an IRQ policy). */
    @JsonProperty("Pending")
    PENDING,
    /** The node cannot take it (no such file, no such NIC feature): reported, not applied. */
    @JsonProperty("Unsupported")
    UNSUPPORTED,
    /** Refused before any write (the validator), or its write, read-back or rollback failed. */
    @JsonProperty("Failed")
    FAILED
}
