package io.videoedge.agent.plan;

import io.videoedge.agent.facts.NodeFacts;
import java.util.List;

/**
 * One tuning area's part of a plan (modules, sysctls, NICs, IRQ affinity and RPS/RFS, cpusets). Pure: the same spec and
 * facts give the same settings. The planner asks every area for each stage in turn, so the plan lists the settings in
 * the order a pass applies them whatever area they come from.
 */
interface TuningArea {

    /**
     * The stages of a plan, in apply order but for the queue counts: ApplyEngine sets those (ethtool -L) before
     * everything else, as they change the queues and their IRQs, and probes the node again.
     */
    enum Stage {
        /** modprobe. */
        MODULES,
        /**
         * ethtool -L (and the interfaces the spec names that the node lacks): first, because it changes the queues
         * and IRQs the rest address.
         */
        QUEUES,
        /** ethtool -K (TLS TX offload), right after the queue count. */
        OFFLOAD,
        SYSCTLS,
        /** ethtool -C. */
        COALESCING,
        IRQ_AFFINITY,
        RPS,
        RFS,
        CPUSETS
    }

    /** This area's settings of one stage, in apply order; none when it has no part in the stage. */
    List<Setting> plan(Stage stage, Desired d, NodeFacts f);
}
