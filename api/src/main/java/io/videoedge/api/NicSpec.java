package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.interfaces) || self.interfaces.all(i, i.matches('^[a-zA-Z0-9_.-]{1,15}$') && i != '.' "
                + "&& i != '..')",
        fieldPath = ".interfaces",
        message = "interface names are 1-15 characters of letters, digits and _.- as the kernel names them (`ip link` "
                + "shows a VLAN as eth0.100@eth0: its name is eth0.100), e.g. eth0 or ens1f0np0")
public record NicSpec(
        @JsonPropertyDescription(
                "NIC driver family: auto (detected from /sys/class/net/IF/device/driver), mlx5, ixgbe, i40e, ice, "
                        + "ena or virtio. Picks defaults for queues and coalescing. tls.mode ktls-offload is admitted with auto or mlx5 only; the agent turns the NIC's TLS TX offload on wherever the NIC offers it.")
        @Default("auto")
        NicType type,

        @JsonPropertyDescription("Interfaces to tune. Default: the interface of the default route.") @Size(max = 16)
        List<@Size(max = 64) String> interfaces,

        @JsonPropertyDescription(
                "Combined RX/TX queue count (ethtool -L IF combined N). Default: the NIC type's choice "
                        + "(one per online CPU up to what the NIC supports; ixgbe at most 16, ena at most 32; an unknown "
                        + "driver, with type auto, is left as it is).")
        @Min(1)
        @Max(1024)
        Integer combinedQueues,

        @JsonPropertyDescription("Interrupt coalescing (ethtool -C): fewer interrupts per packet for throughput.")
        Coalescing coalescing,

        @JsonPropertyDescription(
                "Where NIC queue interrupts go: spread (one CPU per queue, round robin over the online CPUs, the NIC's "
                        + "NUMA node's first), server-cores (the edge "
                        + "server's dedicated CPUs), housekeeping (CPUs the server does not own) or none (leave alone).")
        @Default("spread")
        IrqAffinity irqAffinity,

        @JsonPropertyDescription(
                "Receive Packet Steering: spread packet processing of every RX queue over the CPUs irqAffinity picks "
                        + "(/sys/class/net/IF/queues/rx-N/rps_cpus), useful beyond 16 cores where RSS stops.")
        @Default("true")
        Boolean rps,

        @JsonPropertyDescription("Receive Flow Steering: process packets on the CPU where the reading thread runs.")
        Rfs rfs) {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Coalescing(
            @JsonPropertyDescription("Microseconds between a received packet and its interrupt (ethtool -C rx-usecs).")
            @Min(0)
            @Max(100000)
            Integer rxUsecs,

            @JsonPropertyDescription(
                    "Microseconds between a sent packet and its completion interrupt (ethtool -C tx-usecs).")
            @Min(0)
            @Max(100000)
            Integer txUsecs,

            @JsonPropertyDescription(
                    "Adaptive RX moderation (ethtool -C adaptive-rx). Off for throughput: it optimises latency.")
            Boolean adaptiveRx) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Rfs(
            @JsonPropertyDescription("Global flow table size (net.core.rps_sock_flow_entries); each RX queue gets "
                    + "flowEntries / queues in rps_flow_cnt. 0 disables RFS. The kernel rounds up to a power of two.")
            @Default("32768")
            @Min(0)
            @Max(536870912)
            Integer flowEntries) {}
}
