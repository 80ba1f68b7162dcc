package io.videoedge.agent.probe;

import io.videoedge.agent.facts.NicFacts;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses ethtool's human output (-l, -c, -k); "n/a" means the NIC has no such parameter. */
public final class EthtoolParser {
    private static final Pattern ADAPTIVE = Pattern.compile("Adaptive RX:\\s*(\\S+)\\s+TX:\\s*(\\S+)");
    /** A feature line of ethtool -k: name, on|off, and the bracketed note ethtool adds (fixed, requested on|off). */
    private static final Pattern FEATURE =
            Pattern.compile("(?m)^\\s*([a-z0-9_-]+):\\s+(on|off)(?:\\s+\\[([a-z ]+)\\])?\\s*$");

    private EthtoolParser() {}

    /** ethtool -l IF. */
    public static NicFacts.Channels channels(String out) {
        int current = out.indexOf("Current hardware settings:");
        String max = current < 0 ? out : out.substring(0, current);
        String cur = current < 0 ? "" : out.substring(current);
        return new NicFacts.Channels(
                count(max, "Combined"),
                count(cur, "Combined"),
                count(max, "RX"),
                count(cur, "RX"),
                count(max, "TX"),
                count(cur, "TX"));
    }

    /** ethtool -c IF: the parameters the agent manages (rx-usecs, tx-usecs, adaptive-rx). */
    public static Map<String, String> coalescing(String out) {
        Map<String, String> m = new LinkedHashMap<>();
        Matcher a = ADAPTIVE.matcher(out);
        if (a.find() && !a.group(1).equals("n/a")) {
            m.put("adaptive-rx", a.group(1));
        }
        for (String line : out.split("\n")) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String key = line.substring(0, colon).strip();
            String value = line.substring(colon + 1).strip();
            if ((key.equals("rx-usecs") || key.equals("tx-usecs")) && value.matches("[0-9]+")) {
                m.put(key, value);
            }
        }
        return m;
    }

    /**
     * ethtool -k IF: one feature's line ({@code tls-hw-tx-offload: off [fixed]}, {@code ...: on},
     * {@code ...: off [requested on]}); null when not listed (an older kernel or ethtool, or no such feature).
     */
    public static NicFacts.Feature feature(String out, String name) {
        Matcher m = FEATURE.matcher(out);
        while (m.find()) {
            if (m.group(1).equals(name)) {
                boolean on = m.group(2).equals("on");
                String note = m.group(3) == null ? "" : m.group(3);
                boolean requestedOn = switch (note) {
                    case "requested on" -> true;
                    case "requested off" -> false;
                    default -> on;
                };
                return new NicFacts.Feature(on, note.equals("fixed"), requestedOn);
            }
        }
        return null;
    }

    private static Integer count(String section, String key) {
        Matcher m = Pattern.compile("(?m)^" + key + ":\\s*(\\S+)").matcher(section);
        if (!m.find() || !m.group(1).matches("[0-9]+")) {
            return null;
        }
        return Integer.valueOf(m.group(1));
    }
}
