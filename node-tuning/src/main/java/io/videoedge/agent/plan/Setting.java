package io.videoedge.agent.plan;

import io.videoedge.agent.facts.Targets;
import io.videoedge.api.SettingState;

/**
 * One planned setting: what it is, where it lives, the value wanted and the value found. Made by the named factories:
 * {@link #sysctl}, {@link #module}, {@link #ethtool} and {@link #file} for settings the planner could decide (Planned
 * when the value differs, Unchanged when not), {@link #unsupported} and {@link #pending} for findings; then
 * {@link #onPod()} and {@link #note} where they apply.
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

    /** A sysctl: sysctl/NAME, written to /proc/sys/NAME. */
    public static Setting sysctl(String sysctl, String desired, String current) {
        return decided("sysctl/" + sysctl, SettingKind.SYSCTL, Targets.sysctlPath(sysctl), null, desired, current);
    }

    /**
     * A sysctl the node must have at least (raise-only): Planned, to the minimum, when the node's value is lower;
     * Unchanged when it is the minimum or more (a larger value is left as it is, and the message says so).
     *
     * @param current the node's value, one integer
     */
    public static Setting sysctlAtLeast(String sysctl, long minimum, long current) {
        String min = Long.toString(minimum);
        String now = Long.toString(current);
        String name = "sysctl/" + sysctl;
        String path = Targets.sysctlPath(sysctl);
        if (current < minimum) {
            String why = "at least " + min + " asked: raised from " + now + " (never lowered)";
            return new Setting(name, SettingKind.SYSCTL, path, null, min, now, SettingState.PLANNED, why, false);
        }
        String why = current == minimum
                ? "at least " + min + " asked: in place"
                : "already at least " + min + " (the node has " + now + "): left as it is";
        return new Setting(name, SettingKind.SYSCTL, path, null, min, now, SettingState.UNCHANGED, why, false);
    }

    /** A kernel module to load (modprobe): module/NAME; current is "loaded" or "absent". */
    public static Setting module(String module, String current) {
        return decided("module/" + module, SettingKind.MODULE, module, null, "loaded", current);
    }

    /**
     * An ethtool parameter or feature of an interface: ethtool/IF/PARAM.
     *
     * @param kind {@link SettingKind#ETHTOOL_CHANNELS} (-L), {@link SettingKind#ETHTOOL_COALESCE} (-C) or
     *     {@link SettingKind#ETHTOOL_FEATURE} (-K)
     */
    public static Setting ethtool(SettingKind kind, String iface, String param, String desired, String current) {
        return decided("ethtool/" + iface + "/" + param, kind, iface, param, desired, current);
    }

    /** A file under the host root (IRQ affinity, RPS and RFS queue files, cpuset files). */
    public static Setting file(String name, SettingKind kind, String path, String desired, String current) {
        if (!kind.isFile()) {
            throw new IllegalArgumentException(kind + " is not written as a file");
        }
        return decided(name, kind, path, null, desired, current);
    }

    /** A finding: the node cannot take it, and why. */
    public static Setting unsupported(String name, String desired, String current, String why) {
        return new Setting(name, null, null, null, desired, current, SettingState.UNSUPPORTED, why, false);
    }

    /** A finding: it waits for the edge server's pod (and so depends on it), and why. */
    public static Setting pending(String name, String desired, String why) {
        return new Setting(name, null, null, null, desired, null, SettingState.PENDING, why, true);
    }

    private static Setting decided(
            String name, SettingKind kind, String target, String param, String desired, String current) {
        SettingState s =
                current != null && Values.same(kind, desired, current) ? SettingState.UNCHANGED : SettingState.PLANNED;
        return new Setting(name, kind, target, param, desired, current, s, null, false);
    }

    /** The same setting, depending on the edge server's pod. */
    public Setting onPod() {
        return new Setting(name, kind, target, param, desired, current, state, message, true);
    }

    /** The same setting with a message (a decision worth saying, such as a value capped). */
    public Setting note(String newMessage) {
        return new Setting(name, kind, target, param, desired, current, state, newMessage, podScoped);
    }

    public boolean needsWrite() {
        return state == SettingState.PLANNED;
    }

    public Setting with(SettingState newState, String newCurrent, String newMessage) {
        return new Setting(name, kind, target, param, desired, newCurrent, newState, newMessage, podScoped);
    }
}
