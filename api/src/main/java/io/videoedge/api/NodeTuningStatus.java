package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/** Written by the node's agent only. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeTuningStatus(
        @JsonPropertyDescription("The metadata.generation this status describes.")
        Long observedGeneration,

        @JsonPropertyDescription("Applied and Degraded, each with a reason and message.")
        List<Condition> conditions,

        @JsonPropertyDescription("One line for kubectl get: what happened last or what needs attention.")
        String message,

        @JsonPropertyDescription("Hash of the applied plan; the same plan is not re-applied.")
        String fingerprint,

        @JsonPropertyDescription("When the plan was last applied (RFC 3339).")
        String lastAppliedTime,

        @JsonPropertyDescription("Every setting: desired, actual, the original it replaced, and its state.")
        List<Setting> settings,

        @JsonPropertyDescription("What the node is and can do.")
        NodeCapabilities capabilities,

        @JsonPropertyDescription("The last drift detected: settings someone rewrote, re-applied by the agent.")
        Drift lastDrift) {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Setting(
            @JsonPropertyDescription(
                    "Setting name, e.g. sysctl/net.ipv4.tcp_congestion_control, irq/eth0/41, rps/eth0/rx-0, "
                            + "ethtool/eth0/combined, cpuset/relax_domain_level, module/tls.")
            String name,

            @JsonPropertyDescription("Value asked for.") String desired,

            @JsonPropertyDescription("Value read back from the node.")
            String actual,

            @JsonPropertyDescription(
                    "Value before the agent first changed it; restored when the NodeTuning is deleted.")
            String original,

            @JsonPropertyDescription("Applied, Unchanged, Planned, Pending, Drifted, Unsupported or Failed.")
            SettingState state,

            @JsonPropertyDescription("Why, when not Applied or Unchanged.")
            String message) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Drift(
            @JsonPropertyDescription("When the drift was detected (RFC 3339).")
            String detectedTime,

            @JsonPropertyDescription("Settings found changed, with the value found.")
            List<String> settings,

            @JsonPropertyDescription("Drift detections since the agent started.")
            Long count) {}
}
