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

        @JsonPropertyDescription(
                "Hash of the applied plan; under the same hash a value found different is drift, re-applied by the next pass "
                        + "that applies (not in tuning.mode Plan) and then recorded in lastDrift.")
        String fingerprint,

        @JsonPropertyDescription(
                "When a pass last applied a change of the plan (RFC 3339); a pass that only gives originals back, "
                        + "or rolls back (even in part), does not set it.")
        String lastAppliedTime,

        @JsonPropertyDescription("Every setting: desired, actual, the original it replaced, and its state.")
        List<Setting> settings,

        @JsonPropertyDescription("What the node is and can do.")
        NodeCapabilities capabilities,

        @JsonPropertyDescription("The last drift detected: settings someone rewrote, re-applied by the agent.")
        Drift lastDrift,

        @JsonPropertyDescription(
                "What the tuning does to the node's traffic, from /proc: the window before the agent last applied a "
                        + "change of its plan and the first one after it (absent where the agent cannot read the counters).")
        Effect effect) {

    /** A status without the traffic effect. */
    public NodeTuningStatus(
            Long observedGeneration,
            List<Condition> conditions,
            String message,
            String fingerprint,
            String lastAppliedTime,
            List<Setting> settings,
            NodeCapabilities capabilities,
            Drift lastDrift) {
        this(
                observedGeneration,
                conditions,
                message,
                fingerprint,
                lastAppliedTime,
                settings,
                capabilities,
                lastDrift,
                null);
    }

    /** The same status with this traffic effect. */
    public NodeTuningStatus withEffect(Effect newEffect) {
        return new NodeTuningStatus(
                observedGeneration,
                conditions,
                message,
                fingerprint,
                lastAppliedTime,
                settings,
                capabilities,
                lastDrift,
                newEffect);
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Setting(
            @JsonPropertyDescription(
                    "Setting name, e.g. sysctl/net.ipv4.tcp_congestion_control, irq/eth0/41, rps/eth0/rx-0, "
                            + "ethtool/eth0/combined, cpuset/sched_relax_domain_level, module/tls.")
            String name,

            @JsonPropertyDescription("Value asked for.") String desired,

            @JsonPropertyDescription("Value read back from the node.")
            String actual,

            @JsonPropertyDescription(
                    "Value before the agent first changed it; restored when the NodeTuning is deleted.")
            String original,

            @JsonPropertyDescription(
                    "Applied, Unchanged, Planned, Pending, Unsupported or Failed (a drifted setting is re-applied and reported Applied; lastDrift records it).")
            SettingState state,

            @JsonPropertyDescription("Why, when not Applied or Unchanged.")
            String message) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Drift(
            @JsonPropertyDescription("When the drift was detected (RFC 3339).")
            String detectedTime,

            @JsonPropertyDescription("Settings found changed, with the value found.")
            List<String> settings,

            @JsonPropertyDescription("Drift detections recorded in this status (counted on across agent restarts).")
            Long count) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Effect(
            @JsonPropertyDescription(
                    "The window that ended when the agent last applied a change of its plan (a pass that only gives "
                            + "originals back, or rolls back, is not one); it starts 9/10 of a drift interval to twice "
                            + "that before, or at the agent's previous change when that was sooner, or at boot when the "
                            + "agent changed the node at its start.")
            Traffic before,

            @JsonPropertyDescription("The first window after that change at least 9/10 of a drift interval long.")
            Traffic after) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Traffic(
            @JsonPropertyDescription("When the window ended (RFC 3339).")
            String endTime,

            @JsonPropertyDescription("Length of the window in seconds.")
            Long seconds,

            @JsonPropertyDescription(
                    "TCP socket memory (/proc/net/sockstat TCP mem, 4 KiB pages) per established TCP connection "
                            + "(/proc/net/snmp CurrEstab), at the end of the window.")
            Double tcpMemoryPagesPerConnection,

            @JsonPropertyDescription(
                    "The busiest CPU's share of the NET_RX softirqs (/proc/softirqs), percent: 100 divided by the "
                            + "CPUs is an even spread.")
            Double netRxBusiestCpuPercent,

            @JsonPropertyDescription(
                    "Packets dropped with a CPU's backlog full (/proc/net/softnet_stat), per million processed.")
            Double softnetDropsPerMillion,

            @JsonPropertyDescription(
                    "Time squeezes, NET_RX out of budget with packets left (/proc/net/softnet_stat), per million "
                            + "packets processed.")
            Double timeSqueezesPerMillion,

            @JsonPropertyDescription("TCP segments retransmitted (/proc/net/snmp RetransSegs), percent of those sent.")
            Double tcpRetransmitPercent) {}
}
