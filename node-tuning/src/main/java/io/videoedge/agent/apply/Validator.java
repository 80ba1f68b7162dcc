package io.videoedge.agent.apply;

import io.videoedge.agent.facts.CpuSet;
import io.videoedge.agent.host.HostFs;
import io.videoedge.agent.plan.Plan;
import io.videoedge.agent.plan.Setting;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Checks every change of a plan before the first write, so a pass never stops half-way on a
 * value that could have been refused up front. Returns the problems by setting name.
 */
public final class Validator {
    private static final Set<String> TRIPLETS = Set.of(
            "sysctl/net.ipv4.tcp_mem",
            "sysctl/net.ipv4.tcp_rmem",
            "sysctl/net.ipv4.tcp_wmem",
            "sysctl/net.ipv4.udp_mem");

    private final HostFs fs;

    public Validator(HostFs fs) {
        this.fs = fs;
    }

    public Map<String, String> validate(Plan plan) {
        Map<String, String> problems = new LinkedHashMap<>();
        for (Setting s : plan.changes()) {
            String p = problem(s);
            if (p != null) {
                problems.put(s.name(), p);
            }
        }
        return problems;
    }

    private String problem(Setting s) {
        String v = s.desired();
        if (v == null || v.isBlank() || v.length() > 256 || v.contains("\n")) {
            return "value must be one non-empty line of at most 256 characters";
        }
        if (s.kind().isFile()) {
            if (!fs.exists(s.target())) {
                return "/" + s.target() + " does not exist";
            }
            if (!Files.isWritable(fs.resolve(s.target()))) {
                return "/" + s.target() + " is not writable (the agent needs root and a read-write /proc/sys and /sys)";
            }
        }
        return switch (s.kind()) {
            case SYSCTL -> TRIPLETS.contains(s.name()) ? triplet(v) : null;
            case IRQ_AFFINITY -> parses(() -> CpuSet.parseList(v), "not a CPU list");
            case RPS_CPUS -> parses(() -> CpuSet.parseMask(v), "not a CPU mask");
            case RPS_FLOW_CNT -> v.matches("[0-9]{1,10}") ? null : "not a count";
            case CPUSET -> v.matches("-?[0-9]") ? null : "not a small integer";
            case ETHTOOL_CHANNELS -> v.matches("[1-9][0-9]{0,3}") ? null : "queue count must be 1..9999";
            case ETHTOOL_COALESCE -> v.matches("[0-9]{1,6}|on|off") ? null : "not a number of microseconds or on/off";
            case ETHTOOL_FEATURE -> v.matches("on|off") ? null : "an ethtool feature is on or off";
            case MODULE -> s.target().matches("[a-z0-9_-]{1,56}") ? null : "not a module name";
        };
    }

    private static String triplet(String v) {
        String[] p = v.strip().split("\\s+");
        if (p.length != 3 || !v.strip().matches("[0-9\\s]+")) {
            return "needs three integers: min pressure max";
        }
        long a;
        long b;
        long c;
        try {
            a = Long.parseLong(p[0]);
            b = Long.parseLong(p[1]);
            c = Long.parseLong(p[2]);
        } catch (NumberFormatException e) {
            return "a number is too large"; // thrown out of the pass, it would be retried for ever
        }
        return a <= b && b <= c ? null : "must be non-decreasing";
    }

    private static String parses(Runnable r, String message) {
        try {
            r.run();
            return null;
        } catch (RuntimeException e) {
            return message;
        }
    }
}
