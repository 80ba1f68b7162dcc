package io.videoedge.agent.probe;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses ethtool's human output (-l, -c, -k); "n/a" means the NIC has no such parameter. */
public final class EthtoolParser {
  private static final Pattern ADAPTIVE = Pattern.compile("Adaptive RX:\\s*(\\S+)\\s+TX:\\s*(\\S+)");

  private EthtoolParser() {
  }

  /** ethtool -l IF. */
  public static NicFacts.Channels channels(String out) {
    int current = out.indexOf("Current hardware settings:");
    String max = current < 0 ? out : out.substring(0, current);
    String cur = current < 0 ? "" : out.substring(current);
    return new NicFacts.Channels(count(max, "Combined"), count(cur, "Combined"), count(max, "RX"), count(cur, "RX"),
        count(max, "TX"), count(cur, "TX"));
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

  /** ethtool -k IF: whether a feature is on; null when not listed. */
  public static Boolean feature(String out, String name) {
    for (String line : out.split("\n")) {
      String l = line.strip();
      if (l.startsWith(name + ":")) {
        return l.substring(name.length() + 1).strip().startsWith("on");
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
