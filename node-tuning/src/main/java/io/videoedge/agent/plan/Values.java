package io.videoedge.agent.plan;

import io.videoedge.agent.facts.CpuSet;

/** Whether two values of a setting mean the same to the kernel (it prints them its own way). */
public final class Values {
    private Values() {}

    public static boolean same(SettingKind kind, String a, String b) {
        if (a == null || b == null) {
            return a == b;
        }
        try {
            return switch (kind) {
                case IRQ_AFFINITY -> CpuSet.parseList(a).equals(CpuSet.parseList(b));
                case RPS_CPUS -> CpuSet.parseMask(a).equals(CpuSet.parseMask(b));
                case ETHTOOL_COALESCE, ETHTOOL_FEATURE, MODULE -> a.strip().equalsIgnoreCase(b.strip());
                case null -> a.equals(b);
                default -> normalize(a).equals(normalize(b)); // sysctl triplets print tab-separated
            };
        } catch (IllegalArgumentException e) {
            return normalize(a).equals(normalize(b));
        }
    }

    public static String normalize(String v) {
        return v.strip().replaceAll("\\s+", " ");
    }

    /** Rounds up to a power of two, as the kernel does for flow tables (0 stays 0). */
    static int pow2(int n) {
        if (n <= 1) {
            return Math.max(n, 0) == 0 ? 0 : 1;
        }
        return Integer.highestOneBit(n - 1) << 1;
    }
}
