package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/** What the node's probe found (read from /proc and /sys). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeCapabilities(
        @JsonPropertyDescription("Kernel release (uname -r).")
        String kernel,

        @JsonPropertyDescription("Congestion controls the kernel offers now.")
        List<String> congestionControls,

        @JsonPropertyDescription("Whether bbr is available (built in, loaded or loadable).")
        Boolean bbr,

        @JsonPropertyDescription(
                "Kernel TLS: available (tls ULP registered), loadable (tls module present), unavailable.")
        String ktls,

        @JsonPropertyDescription("cgroup version of the node: v1 or v2.")
        String cgroup,

        @JsonPropertyDescription("NUMA nodes.") Integer numaNodes,

        @JsonPropertyDescription("Online CPUs, as a list (0-15,32-47).")
        String onlineCpus,

        @JsonPropertyDescription("Network interfaces with a device, and the ones the spec tunes.")
        List<Nic> nics,

        @JsonPropertyDescription("The node's boot this status was written in (/proc/sys/kernel/random/boot_id): the "
                + "settings' originals it reports are that boot's, and are not taken back after a reboot.")
        String bootId) {

    /** Capabilities without the boot (a report from a node that does not say). */
    public NodeCapabilities(
            String kernel,
            List<String> congestionControls,
            Boolean bbr,
            String ktls,
            String cgroup,
            Integer numaNodes,
            String onlineCpus,
            List<Nic> nics) {
        this(kernel, congestionControls, bbr, ktls, cgroup, numaNodes, onlineCpus, nics, null);
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Nic(
            @JsonPropertyDescription("Interface name.") String name,
            @JsonPropertyDescription("Kernel driver.") String driver,

            @JsonPropertyDescription("RX queues (/sys/class/net/IF/queues/rx-*).")
            Integer rxQueues,

            @JsonPropertyDescription("TX queues.") Integer txQueues,

            @JsonPropertyDescription(
                    "Combined channels now (ethtool -l), or RX channels where the NIC has separate RX and TX ones.")
            Integer combinedQueues,

            @JsonPropertyDescription(
                    "Most combined channels the NIC supports, or most RX channels where it has separate RX and TX ones.")
            Integer maxCombinedQueues,

            @JsonPropertyDescription("Queue IRQs.") List<Integer> irqs,

            @JsonPropertyDescription("NUMA node of the device, -1 when none.")
            Integer numaNode,

            @JsonPropertyDescription(
                    "Whether the NIC can offload TLS TX encryption: ethtool -k lists tls-hw-tx-offload and it is "
                            + "not fixed off (it may be off now: see tlsOffloadOn). False when it is 'off [fixed]'; absent when not known "
                            + "(no ethtool, or ethtool -k does not show the feature: a kernel without it).")
            Boolean tlsOffload,

            @JsonPropertyDescription(
                    "Whether TLS TX offload is on now (ethtool -k tls-hw-tx-offload: on). While it is on, the kernel "
                            + "offers each kernel TLS session sent through this NIC to the NIC first (software when the NIC declines it), "
                            + "whatever tls.mode says.")
            Boolean tlsOffloadOn) {

        /** A NIC whose offload state now is not known. */
        public Nic(
                String name,
                String driver,
                Integer rxQueues,
                Integer txQueues,
                Integer combinedQueues,
                Integer maxCombinedQueues,
                List<Integer> irqs,
                Integer numaNode,
                Boolean tlsOffload) {
            this(name, driver, rxQueues, txQueues, combinedQueues, maxCombinedQueues, irqs, numaNode, tlsOffload, null);
        }
    }
}
