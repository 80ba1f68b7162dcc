package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Map;

/**
 * What one node's agent applies; rendered by the operator from the VideoEdge selecting the node. It
 * changes only when this node's tuning changes (in the node's turn of a rollout) or its edge-server
 * pod is replaced, never for a server-only change of the VideoEdge.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.sysctlMinimums) || self.sysctlMinimums.all(k, k in " + TuningSpec.INTEGER_SYSCTLS + ")",
        fieldPath = ".sysctlMinimums",
        messageExpression =
                "'sysctlMinimums names sysctls that take one integer (net.core.wmem_max, net.core.rmem_max, ...): not ' + "
                        + "self.sysctlMinimums.filter(k, !(k in " + TuningSpec.INTEGER_SYSCTLS + "))[0]")
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
        Boolean tlsTxOffload,

        @JsonPropertyDescription(
                "Sysctls the agent raises to at least the value given and otherwise leaves alone: a larger value "
                        + "(an administrator's) is kept and reported Unchanged; a smaller one is journaled, raised to "
                        + "the value, and restored on deletion like every setting. The operator renders net.core.wmem_max from "
                        + "server.socket.sendBuf and net.core.rmem_max from server.socket.recvBuf, in bytes: Linux caps a socket's "
                        + "SO_SNDBUF/SO_RCVBUF request at them (208 KiB by default), so without them sendBuf 4m gives a 416 KiB send buffer. "
                        + "At least 4194304 for wmem_max (the default sendBuf) and 212992 for rmem_max (the kernel's default), so that "
                        + "sizes up to those change live, without a tuning rollout. Left out when tuning.sysctls sets the same sysctl: "
                        + "that value is set as it is (the VideoEdge refuses one below the socket size). Where the agent's network "
                        + "namespace does not have the sysctl, or cannot write it (both are the machine's initial namespace's: absent in "
                        + "other namespaces on older kernels, read-only on newer ones) and it is below the value, it is reported "
                        + "Unsupported and the rest is applied.")
        @Size(max = 16)
        Map<String, @Min(0) Long> sysctlMinimums) {

    /** A spec that leaves the NIC's TLS offload as it is. */
    public NodeTuningSpec(Source source, NicSpec nic, TuningSpec tuning, ServerPlacement server) {
        this(source, nic, tuning, server, null, null);
    }

    /** A spec without sysctl minimums. */
    public NodeTuningSpec(Source source, NicSpec nic, TuningSpec tuning, ServerPlacement server, Boolean tlsTxOffload) {
        this(source, nic, tuning, server, tlsTxOffload, null);
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
