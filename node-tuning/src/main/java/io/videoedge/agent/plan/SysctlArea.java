package io.videoedge.agent.plan;

import io.videoedge.agent.facts.NodeFacts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sysctls: the congestion control, the spec's map, RFS's global flow table, and the minimums (raise-only:
 * net.core.wmem_max and rmem_max for the edge server's socket sizes) the spec's map does not set.
 */
final class SysctlArea implements TuningArea {
    static final String CONGESTION_CONTROL = "net.ipv4.tcp_congestion_control";
    static final String RPS_SOCK_FLOW_ENTRIES = "net.core.rps_sock_flow_entries";

    /** Sysctls to set, by name (what the probe must read for them too). */
    static Map<String, String> sysctls(Desired d) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(CONGESTION_CONTROL, d.congestionControl()); // the dedicated field wins over a duplicate in sysctls
        d.sysctls().forEach(m::putIfAbsent);
        if (d.rfsFlowEntries() != null) {
            m.putIfAbsent(RPS_SOCK_FLOW_ENTRIES, Integer.toString(Values.pow2(d.rfsFlowEntries())));
        }
        return m;
    }

    @Override
    public List<Setting> plan(Stage stage, Desired d, NodeFacts f) {
        if (stage != Stage.SYSCTLS) {
            return List.of();
        }
        List<Setting> out = new ArrayList<>();
        sysctls(d).forEach((name, value) -> {
            String setting = "sysctl/" + name;
            String current = f.sysctls().get(name);
            if (current == null) {
                out.add(Setting.unsupported(
                        setting,
                        value,
                        null,
                        "no /proc/sys/" + name.replace('.', '/')
                                + " here (unknown sysctl, module not loaded, or global and "
                                + "not visible in this network namespace)"));
            } else if (name.equals(CONGESTION_CONTROL) && !f.congestionControlUsable(value)) {
                out.add(Setting.unsupported(
                        setting,
                        value,
                        current,
                        "congestion control " + value + " is not available (kernel offers "
                                + String.join(" ", f.congestionControls()) + ") and no tcp_" + value
                                + " module is installed"));
            } else if (name.equals(RPS_SOCK_FLOW_ENTRIES)) {
                out.add(flowEntries(value, current));
            } else {
                out.add(Setting.sysctl(name, value, current));
            }
        });
        Map<String, String> exact = sysctls(d);
        d.sysctlMinimums().forEach((name, minimum) -> {
            if (!exact.containsKey(name)) { // a value the spec sets exactly wins
                out.add(atLeast(name, minimum, f));
            }
        });
        return out;
    }

    /**
     * RFS's global flow table: the kernel rounds the size up to a power of two and prints that, so a value asked as
     * the spec's sysctl is rounded the same way first; otherwise it never reads back as written and every pass would
     * roll back.
     */
    private static Setting flowEntries(String value, String current) {
        String v = value.strip();
        if (!v.matches("-?[0-9]{1,9}") || Integer.parseInt(v) < 0) {
            return Setting.sysctl(RPS_SOCK_FLOW_ENTRIES, value, current); // the kernel's answer, as for any sysctl
        }
        int asked = Integer.parseInt(v); // "0004096" is 4096 and "-0" is 0: written as the kernel prints them
        int rounded = Values.pow2(asked);
        Setting s = Setting.sysctl(RPS_SOCK_FLOW_ENTRIES, Integer.toString(rounded), current);
        return rounded == asked ? s : s.note(asked + " asked: the kernel rounds it up to a power of two, " + rounded);
    }

    /** A minimum: raised when lower, left when at least it; Unsupported when the node has no such file or cannot raise it. */
    private static Setting atLeast(String name, long minimum, NodeFacts f) {
        String setting = "sysctl/" + name;
        String desired = Long.toString(minimum);
        String current = f.sysctls().get(name);
        if (current == null) {
            return Setting.unsupported(
                    setting,
                    desired,
                    null,
                    "no /proc/sys/" + name.replace('.', '/')
                            + " here (global: only the initial network namespace has it "
                            + "on this kernel): sockets asking more than the machine's value are capped at it");
        }
        long now;
        try {
            now = Long.parseLong(current.strip());
        } catch (NumberFormatException e) {
            return Setting.unsupported(
                    setting,
                    desired,
                    current,
                    "at least " + desired + " asked, but the node's value is not one integer");
        }
        Setting s = Setting.sysctlAtLeast(name, minimum, now);
        if (s.needsWrite() && f.readOnlySysctls().contains(name)) {
            return Setting.unsupported(
                    setting,
                    desired,
                    current,
                    "at least " + desired + " asked, the node has " + now + " and /proc/sys/" + name.replace('.', '/')
                            + " is read-only here (only the machine's initial network namespace may change it): sockets "
                            + "asking more are capped at " + now);
        }
        return s;
    }
}
