package io.videoedge.server.cpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * A kernel CPU list ("0-3,8-11", as in Cpus_allowed_list and cpuset.cpus) and the CPUs this process
 * may run on. Inside a pod confined to CPUs 8-15, availableProcessors() says 8 and one-nio's own
 * affinity would pin selectors to CPUs 0-7, which the kernel refuses; these are the right numbers.
 */
public final class CpuList {
    private CpuList() {}

    public static int[] parse(String list) {
        BitSet cpus = new BitSet();
        for (String part : list.trim().split(",")) {
            if (part.isEmpty()) continue;
            int dash = part.indexOf('-');
            if (dash < 0) {
                cpus.set(Integer.parseInt(part.trim()));
            } else {
                int from = Integer.parseInt(part.substring(0, dash).trim());
                int to = Integer.parseInt(part.substring(dash + 1).trim());
                if (to < from) throw new IllegalArgumentException("bad CPU range: " + part);
                cpus.set(from, to + 1);
            }
        }
        return cpus.stream().toArray();
    }

    public static String format(int[] cpus) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cpus.length; ) {
            int j = i;
            while (j + 1 < cpus.length && cpus[j + 1] == cpus[j] + 1) j++;
            if (!sb.isEmpty()) sb.append(',');
            sb.append(cpus[i]);
            if (j > i) sb.append('-').append(cpus[j]);
            i = j + 1;
        }
        return sb.toString();
    }

    /** Cpus_allowed_list from a /proc status file (the process's, or one thread's). */
    public static int[] allowed(Path procStatus) throws IOException {
        List<String> lines = Files.readAllLines(procStatus);
        for (String line : lines) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return parse(line.substring("Cpus_allowed_list:".length()));
            }
        }
        throw new IOException("no Cpus_allowed_list in " + procStatus);
    }

    public static int[] allowedForThisProcess() throws IOException {
        return allowed(Path.of("/proc/self/status"));
    }

    /** Selector i gets the i-th allowed CPU, wrapping around when there are more selectors than CPUs. */
    public static int[] plan(int selectors, int[] allowed) {
        if (allowed.length == 0) throw new IllegalArgumentException("no allowed CPUs");
        int[] plan = new int[selectors];
        for (int i = 0; i < selectors; i++) {
            plan[i] = allowed[i % allowed.length];
        }
        return plan;
    }

    public static String toString(int[] cpus) {
        return Arrays.toString(cpus);
    }
}
