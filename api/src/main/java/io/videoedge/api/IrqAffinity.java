package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Where the NIC queue interrupts go. */
public enum IrqAffinity {
    /**
     * One CPU per queue (a queue's RX and TX vectors share it), round robin over the online CPUs with the NIC's
     * NUMA node's first (RSS spread, as set_irq_affinity does).
     */
    @JsonProperty("spread")
    SPREAD,
    /** Round robin over the edge server's dedicated CPUs: softirq runs where the selectors read. */
    @JsonProperty("server-cores")
    SERVER_CORES,
    /** Round robin over the CPUs the server does not own: selectors are never interrupted. */
    @JsonProperty("housekeeping")
    HOUSEKEEPING,
    /** Leave IRQ affinity alone (irqbalance or the admin owns it). */
    @JsonProperty("none")
    NONE
}
