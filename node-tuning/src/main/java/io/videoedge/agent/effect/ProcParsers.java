package io.videoedge.agent.effect;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Pure parsers of the /proc files that show what the node's tuning does to its traffic. Each takes the file's text and
 * throws {@link IllegalArgumentException} with what was wrong when the text is not what the kernel writes.
 */
public final class ProcParsers {
    private ProcParsers() {}

    /** /proc/net/sockstat, the TCP line: "TCP: inuse 90 orphan 0 tw 44 alloc 178 mem 20" (mem in pages). */
    public static Map<String, Long> sockstatTcp(String text) {
        for (String line : text.split("\n")) {
            if (line.startsWith("TCP:")) {
                String[] f = line.substring(4).trim().split("\\s+");
                if (f.length % 2 != 0) {
                    throw new IllegalArgumentException("/proc/net/sockstat: odd TCP line: " + line);
                }
                Map<String, Long> m = new LinkedHashMap<>();
                for (int i = 0; i < f.length; i += 2) {
                    m.put(f[i], number("/proc/net/sockstat TCP " + f[i], f[i + 1], 10));
                }
                if (!m.containsKey("mem") || !m.containsKey("inuse")) {
                    throw new IllegalArgumentException("/proc/net/sockstat: TCP line without inuse and mem: " + line);
                }
                return m;
            }
        }
        throw new IllegalArgumentException("/proc/net/sockstat: no TCP line");
    }

    /** /proc/softirqs: one row's count per CPU, in the header's CPU order (e.g. "NET_RX"). */
    public static List<Long> softirqs(String text, String row) {
        String[] lines = text.split("\n");
        if (lines.length < 2 || !lines[0].trim().startsWith("CPU")) {
            throw new IllegalArgumentException("/proc/softirqs: no CPU header");
        }
        int cpus = lines[0].trim().split("\\s+").length;
        for (String line : lines) {
            String t = line.trim();
            if (t.startsWith(row + ":")) {
                String[] f = t.substring(row.length() + 1).trim().split("\\s+");
                if (f.length != cpus) {
                    throw new IllegalArgumentException(
                            "/proc/softirqs: " + row + " has " + f.length + " counts for " + cpus + " CPUs");
                }
                List<Long> out = new ArrayList<>(cpus);
                for (String v : f) {
                    out.add(number("/proc/softirqs " + row, v, 10));
                }
                return out;
            }
        }
        throw new IllegalArgumentException("/proc/softirqs: no " + row + " row");
    }

    /**
     * /proc/net/softnet_stat: one line per CPU of hex counters; the first is packets processed, the second packets
     * dropped (backlog full), the third time squeezes (net_rx_action ran out of budget or time with work left).
     *
     * @return {processed, dropped, timeSqueezed} summed over the CPUs
     */
    public static long[] softnetTotals(String text) {
        long[] sum = new long[3];
        int lines = 0;
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.trim().split("\\s+");
            if (f.length < 3) {
                throw new IllegalArgumentException("/proc/net/softnet_stat: fewer than 3 columns: " + line);
            }
            for (int i = 0; i < 3; i++) {
                sum[i] += number("/proc/net/softnet_stat", f[i], 16);
            }
            lines++;
        }
        if (lines == 0) {
            throw new IllegalArgumentException("/proc/net/softnet_stat: empty");
        }
        return sum;
    }

    /** /proc/net/snmp: the fields of one protocol ("Tcp"), from its header line and its value line. */
    public static Map<String, Long> snmp(String text, String protocol) {
        String prefix = protocol + ":";
        String[] header = null;
        for (String line : text.split("\n")) {
            if (!line.startsWith(prefix)) {
                continue;
            }
            String[] f = line.substring(prefix.length()).trim().split("\\s+");
            if (header == null) {
                header = f;
                continue;
            }
            if (f.length != header.length) {
                throw new IllegalArgumentException(
                        "/proc/net/snmp: " + protocol + " has " + header.length + " names and " + f.length + " values");
            }
            Map<String, Long> m = new LinkedHashMap<>();
            for (int i = 0; i < f.length; i++) {
                m.put(header[i], number("/proc/net/snmp " + protocol + " " + header[i], f[i], 10));
            }
            return m;
        }
        throw new IllegalArgumentException("/proc/net/snmp: no " + protocol + " lines");
    }

    /** /proc/uptime: seconds since boot. */
    public static double uptime(String text) {
        String[] f = text.trim().split("\\s+");
        try {
            return Double.parseDouble(f[0]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("/proc/uptime: not a number: " + f[0]);
        }
    }

    private static long number(String what, String v, int radix) {
        try {
            return Long.parseLong(v, radix);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + ": not a number: " + v);
        }
    }
}
