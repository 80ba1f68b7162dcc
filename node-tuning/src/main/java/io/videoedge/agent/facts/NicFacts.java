package io.videoedge.agent.facts;

import java.util.List;
import java.util.Map;

/**
 * One network interface as probed. irqAffinity, rpsCpus, rpsFlowCnt and coalescing are read for
 * the interfaces the spec tunes only; for one probed as a capability they are empty (null).
 *
 * @param driver kernel driver (mlx5_core, ixgbe, virtio_net, veth, ...), null when unknown
 * @param numaNode NUMA node of the device, -1 when none
 * @param rxQueues names of the RX queues (rx-0, rx-1, ...)
 * @param queueIrqs IRQs of the device's RX/TX queues (control vectors left out), ascending
 * @param irqAffinity current smp_affinity_list per queue IRQ
 * @param rpsCpus current rps_cpus per RX queue
 * @param rpsFlowCnt current rps_flow_cnt per RX queue
 * @param channels ethtool -l, null when the query is not supported
 * @param coalescing ethtool -c values by parameter (rx-usecs, tx-usecs, adaptive-rx); null when
 *     not supported; a parameter the NIC does not have is absent
 * @param tlsTxOffload ethtool -k tls-hw-tx-offload; null when ethtool is missing, fails, or does not list it
 * @param irqQueues the queue (channel) number of each queue IRQ, from its /proc/interrupts name; a
 *     queue pair with separate RX and TX vectors (virtio input.N and output.N) has two IRQs with the
 *     same number; an IRQ whose name carries no number is absent
 */
public record NicFacts(
        String name,
        String driver,
        int numaNode,
        List<String> rxQueues,
        int txQueues,
        List<Integer> queueIrqs,
        Map<Integer, String> irqAffinity,
        Map<String, String> rpsCpus,
        Map<String, String> rpsFlowCnt,
        Channels channels,
        Map<String, String> coalescing,
        Feature tlsTxOffload,
        Map<Integer, Integer> irqQueues) {

    /** The ethtool -k feature the agent turns on for NIC TLS offload. */
    public static final String TLS_TX_OFFLOAD = "tls-hw-tx-offload";

    /**
     * One ethtool -k feature: on or off now, whether the driver lets it change ({@code [fixed]} when not), and
     * what was last asked for ({@code [requested on]}: asked on, but the kernel keeps it off, e.g. for a feature
     * it depends on).
     */
    public record Feature(boolean on, boolean fixed, boolean requestedOn) {
        /** The NIC offers it: on now, or off but changeable. */
        public boolean offered() {
            return on || !fixed;
        }

        /** Asked on, kept off by the kernel: writing on again would fail the same way. */
        public boolean refused() {
            return requestedOn && !on;
        }

        /** As ethtool -k prints it after the name. */
        @Override
        public String toString() {
            return (on ? "on" : "off")
                    + (fixed
                            ? " [fixed]"
                            : requestedOn != on ? " [requested " + (requestedOn ? "on" : "off") + "]" : "");
        }
    }

    /**
     * ethtool -l: maximum and current channel counts; a null count is "n/a" (the NIC has no
     * such channel kind: veth has separate rx/tx, most multi-queue NICs have combined).
     */
    public record Channels(
            Integer maxCombined, Integer combined, Integer maxRx, Integer rx, Integer maxTx, Integer tx) {
        public boolean hasCombined() {
            return maxCombined != null && maxCombined > 0;
        }

        public boolean hasSeparate() {
            return maxRx != null && maxRx > 0 && maxTx != null && maxTx > 0;
        }
    }
}
