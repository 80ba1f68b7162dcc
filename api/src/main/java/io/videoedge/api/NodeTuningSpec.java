package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;

/**
 * What one node's agent applies; rendered by the operator from the VideoEdge selecting the node. It
 * changes only when this node's tuning changes (in the node's turn of a rollout) or its edge-server
 * pod is replaced, never for a server-only change of the VideoEdge.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeTuningSpec(
        @JsonPropertyDescription("The VideoEdge this tuning was rendered from.") @Required
        Source source,

        @JsonPropertyDescription("NIC tuning, as in the VideoEdge.") @Default("{}")
        NicSpec nic,

        @JsonPropertyDescription(
                "Kernel tuning, as in the VideoEdge (kernelModules include tls when kernel TLS is asked).")
        @Default("{}")
        TuningSpec tuning,

        @JsonPropertyDescription("The edge server on this node: its dedicated CPU count and, once scheduled, its pod "
                + "(the agent reads the pod's cpuset for IRQ policies and sets its cpuset.sched_relax_domain_level).")
        @Default("{}")
        ServerPlacement server,

        @JsonPropertyDescription(
                "Turn on the NIC's TLS TX offload (ethtool -K IF tls-hw-tx-offload on) on the tuned interfaces; "
                        + "set when the VideoEdge's tls.mode is ktls-offload and it serves HTTPS. A NIC that cannot (the feature is missing or "
                        + "fixed off) is reported Unsupported and kernel TLS encrypts in software there. Restored on deletion like every "
                        + "setting. Unset or false: the agent leaves the offload alone (and restores the original of one it turned on).")
        Boolean tlsTxOffload) {

    /** A spec that leaves the NIC's TLS offload as it is. */
    public NodeTuningSpec(Source source, NicSpec nic, TuningSpec tuning, ServerPlacement server) {
        this(source, nic, tuning, server, null);
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Source(
            @JsonPropertyDescription("Namespace of the VideoEdge.")
            String namespace,

            @JsonPropertyDescription("Name of the VideoEdge.")
            String name,

            @JsonPropertyDescription("UID of the VideoEdge.")
            String uid) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ServerPlacement(
            @JsonPropertyDescription("Dedicated CPUs of the edge server.") @Min(0) @Max(1024)
            Integer cpus,

            @JsonPropertyDescription("Namespace of the edge server pod on this node.")
            String podNamespace,

            @JsonPropertyDescription("Name of the edge server pod on this node.")
            String podName,

            @JsonPropertyDescription("UID of the edge server pod on this node (names its cgroup).")
            String podUid) {}
}
