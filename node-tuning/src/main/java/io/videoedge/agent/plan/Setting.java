package io.videoedge.agent.plan;

import io.videoedge.api.SettingState;

/**
 * One planned setting: what it is, where it lives, the value wanted and the value found.
 *
 * @param name status name: sysctl/net.ipv4.tcp_mem, irq/eth0/41, rps/eth0/rx-0, rfs/eth0/rx-0,
 *     ethtool/eth0/combined, ethtool/eth0/rx-usecs, ethtool/eth0/tls-hw-tx-offload, cpuset/sched_relax_domain_level,
 *     module/tls
 * @param target root-relative file for file kinds, interface for ethtool, module name for modules
 * @param param the ethtool parameter (combined, rx, tx, rx-usecs, tx-usecs, adaptive-rx) or feature
 *     (tls-hw-tx-offload), else null
 * @param podScoped depends on the edge server pod (its cgroup or its CPUs)
 */
public record Setting(
        String name,
        SettingKind kind,
        String target,
        String param,
        String desired,
        String current,
        SettingState state,
        String message,
        boolean podScoped) {

    /** A setting the planner could fully decide: Planned when the value differs, Unchanged when not. */
    public static Setting of(
            String name,
            SettingKind kind,
            String target,
            String param,
            String desired,
            String current,
            boolean podScoped,
            String message) {
        SettingState s =
                current != null && Values.same(kind, desired, current) ? SettingState.UNCHANGED : SettingState.PLANNED;
        return new Setting(name, kind, target, param, desired, current, s, message, podScoped);
    }

    /** A finding: the node cannot take it (Unsupported) or it waits for the server pod (Pending). */
    public static Setting finding(
            String name, SettingState state, String desired, String current, boolean podScoped, String message) {
        return new Setting(name, null, null, null, desired, current, state, message, podScoped);
    }

    public boolean needsWrite() {
        return state == SettingState.PLANNED;
    }

    public Setting with(SettingState newState, String newCurrent, String newMessage) {
        return new Setting(name, kind, target, param, desired, newCurrent, newState, newMessage, podScoped);
    }
}
