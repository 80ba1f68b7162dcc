package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Whether the node agent changes the node or only reports what it would change. */
public enum TuningMode {
    @JsonProperty("Apply")
    APPLY,
    @JsonProperty("Plan")
    PLAN
}
