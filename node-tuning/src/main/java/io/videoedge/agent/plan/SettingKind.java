package io.videoedge.agent.plan;

/**
 * The kernel interfaces the agent writes, in the order a pass applies them, but for the queue counts
 * (ETHTOOL_CHANNELS), which ApplyEngine sets first.
 */
public enum SettingKind {
    /** modprobe NAME; value "loaded" or "absent". */
    MODULE,
    /** ethtool -L IF combined|rx|tx N; first, because it changes the queues and IRQs the rest address. */
    ETHTOOL_CHANNELS,
    /** ethtool -K IF FEATURE on|off (tls-hw-tx-offload), read back from ethtool -k. */
    ETHTOOL_FEATURE,
    /** /proc/sys/... */
    SYSCTL,
    /** ethtool -C IF adaptive-rx|rx-usecs|tx-usecs V. */
    ETHTOOL_COALESCE,
    /** /proc/irq/N/smp_affinity_list. */
    IRQ_AFFINITY,
    /** /sys/class/net/IF/queues/rx-N/rps_cpus (hex bitmap). */
    RPS_CPUS,
    /** /sys/class/net/IF/queues/rx-N/rps_flow_cnt. */
    RPS_FLOW_CNT,
    /** cpuset cgroup files of the server pod (v1). */
    CPUSET;

    /** Written as a file under the host root (the rest go through commands). */
    public boolean isFile() {
        return this != MODULE && this != ETHTOOL_CHANNELS && this != ETHTOOL_FEATURE && this != ETHTOOL_COALESCE;
    }
}
