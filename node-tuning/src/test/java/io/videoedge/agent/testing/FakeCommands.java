package io.videoedge.agent.testing;

import io.videoedge.agent.host.CommandRunner;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * ethtool and modprobe with behaviour: channel counts that move the fake tree's queues, coalescing
 * values, features (-k/-K) as the kernel keeps them, modules that appear under /sys/module, and
 * failures on demand. Output in ethtool's format.
 */
public final class FakeCommands implements CommandRunner {
    private final FakeNode node;
    private final Map<String, int[]> channels = new HashMap<>(); // {maxCombined, combined} or {-1,-1,maxRx,rx,maxTx,tx}
    private final Map<String, Map<String, String>> coalescing = new HashMap<>();
    private final Map<String, Map<String, FeatureState>> features = new HashMap<>();
    private final Map<String, String> failures = new LinkedHashMap<>();
    private final Map<String, String> clamps = new HashMap<>();
    private final List<String> log = new ArrayList<>();
    private Set<String> missing = Set.of();
    private final Map<String, Map<Integer, String>> affinityResets = new HashMap<>();
    private final Map<String, Runnable> afterRuns = new LinkedHashMap<>();

    public FakeCommands(FakeNode node) {
        this.node = node;
    }

    public FakeCommands combined(String iface, int max, int current) {
        channels.put(iface, new int[] {max, current});
        return this;
    }

    /**
     * The driver rewrites these IRQ affinities whenever the channel count changes, as virtio_net does
     * (seen on Debian's 6.1 kernel under qemu: every queue pair's two vectors, pair N on CPU N mod CPUs).
     */
    public FakeCommands driverResetsIrqAffinity(String iface, Map<Integer, String> affinity) {
        affinityResets.put(iface, affinity);
        return this;
    }

    public FakeCommands separate(String iface, int max, int current) {
        channels.put(iface, new int[] {-1, -1, max, current, max, current});
        return this;
    }

    public FakeCommands coalescing(String iface, String adaptiveRx, int rxUsecs, Integer txUsecs) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("adaptive-rx", adaptiveRx);
        m.put("rx-usecs", Integer.toString(rxUsecs));
        m.put("tx-usecs", txUsecs == null ? "n/a" : txUsecs.toString());
        coalescing.put(iface, m);
        return this;
    }

    /** A feature of ethtool -k: what the NIC does now, whether it can change, what was asked, whether the kernel drops it. */
    private static final class FeatureState {
        boolean on;
        boolean fixed;
        boolean requested;
        boolean keptOff;

        String show() {
            return (on ? "on" : "off")
                    + (fixed ? " [fixed]" : requested != on ? " [requested " + (requested ? "on" : "off") + "]" : "");
        }
    }

    /**
     * The NIC's feature as found: on or off, and fixed (the driver does not let it change) or not. Without
     * any, ethtool -k shows tls-hw-tx-offload off [fixed], as on most NICs.
     */
    public FakeCommands feature(String iface, String name, boolean on, boolean fixed) {
        FeatureState f = new FeatureState();
        f.on = on;
        f.fixed = fixed;
        f.requested = on;
        features.computeIfAbsent(iface, k -> new LinkedHashMap<>()).put(name, f);
        return this;
    }

    /** A changeable feature the kernel keeps off (as with TX checksumming off): ethtool -K ... on fails. */
    public FakeCommands featureKeptOff(String iface, String name) {
        feature(iface, name, false, false);
        features.get(iface).get(name).keptOff = true;
        return this;
    }

    /** A feature as ethtool -k prints it after its name ("off [fixed]", "on"). */
    public String featureNow(String iface, String name) {
        return features.get(iface).get(name).show();
    }

    /** Commands starting with prefix (e.g. "ethtool -C eth0 rx-usecs") fail with message on stderr. */
    public FakeCommands failOn(String prefix, String message) {
        failures.put(prefix, message);
        return this;
    }

    /** After each command starting with prefix has run (and had its effect), action runs: a fault that comes later. */
    public FakeCommands afterRunning(String prefix, Runnable action) {
        afterRuns.put(prefix, action);
        return this;
    }

    public FakeCommands clearFailures() {
        failures.clear();
        return this;
    }

    /** The NIC accepts ethtool -C param asked but keeps held instead (rounds it: read back differs). */
    public FakeCommands clamp(String iface, String param, String asked, String held) {
        clamps.put(iface + " " + param + " " + asked, held);
        return this;
    }

    public FakeCommands without(String... programs) {
        missing = Set.of(programs);
        return this;
    }

    public List<String> log() {
        return log;
    }

    /** Current coalescing value, as the NIC holds it. */
    public String coalesce(String iface, String param) {
        return coalescing.get(iface).get(param);
    }

    public int combinedNow(String iface) {
        return channels.get(iface)[1];
    }

    @Override
    public boolean available(String program) {
        return !missing.contains(program);
    }

    @Override
    public Result run(List<String> command) {
        Result r = execute(command);
        String line = String.join(" ", command);
        afterRuns.forEach((prefix, action) -> {
            if (line.startsWith(prefix)) {
                action.run();
            }
        });
        return r;
    }

    private Result execute(List<String> command) {
        String line = String.join(" ", command);
        log.add(line);
        for (var f : failures.entrySet()) {
            if (line.startsWith(f.getKey())) {
                return new Result(1, "", f.getValue());
            }
        }
        String iface = command.size() > 2 ? command.get(2) : "";
        return switch (command.getFirst() + " " + command.get(1)) {
            case "ethtool -l" -> channels.containsKey(iface) ? ok(showChannels(iface)) : notSupported("channel");
            case "ethtool -c" -> coalescing.containsKey(iface) ? ok(showCoalescing(iface)) : notSupported("coalesce");
            case "ethtool -k" -> ok(showFeatures(iface));
            case "ethtool -K" -> setFeature(iface, command.get(3), command.get(4));
            case "ethtool -i" -> new Result(1, "", "Cannot get driver information: Operation not supported");
            case "ethtool -L" -> setChannels(iface, command.get(3), Integer.parseInt(command.get(4)));
            case "ethtool -C" -> setCoalescing(iface, command.get(3), command.get(4));
            default ->
                command.getFirst().equals("modprobe") ? modprobe(command) : new Result(127, "", "unknown " + line);
        };
    }

    private Result modprobe(List<String> command) {
        String module = command.getLast();
        if (command.contains("-r")) {
            node.delete("sys/module/" + module);
        } else {
            node.dir("sys/module/" + module);
        }
        return ok("");
    }

    private Result setChannels(String iface, String param, int n) {
        int[] c = channels.get(iface);
        if (c == null) {
            return notSupported("channel");
        }
        Result invalid = new Result(1, "", "Cannot set device channel parameters: Invalid argument");
        if (c.length == 2) {
            if (!param.equals("combined") || n > c[0]) {
                return invalid;
            }
            c[1] = n;
            node.setQueues(iface, n);
            affinityResets
                    .getOrDefault(iface, Map.of())
                    .forEach((irq, cpus) -> node.file("proc/irq/" + irq + "/smp_affinity_list", cpus));
        } else if (param.equals("rx") && n <= c[2]) {
            c[3] = n;
            node.setQueues(iface, n);
        } else if (param.equals("tx") && n <= c[4]) {
            c[5] = n;
        } else {
            return invalid;
        }
        return ok("");
    }

    private Result setCoalescing(String iface, String param, String value) {
        Map<String, String> m = coalescing.get(iface);
        if (m == null || "n/a".equals(m.get(param))) {
            return notSupported("coalesce");
        }
        m.put(param, clamps.getOrDefault(iface + " " + param + " " + value, value));
        return ok("");
    }

    private String showFeatures(String iface) {
        StringBuilder sb = new StringBuilder("Features for " + iface + ":\nrx-checksumming: on\ntx-checksumming: on\n");
        Map<String, FeatureState> m = features.get(iface);
        if (m == null || !m.containsKey("tls-hw-tx-offload")) {
            sb.append("tls-hw-tx-offload: off [fixed]\n");
        }
        if (m != null) {
            m.forEach((name, f) -> sb.append(name).append(": ").append(f.show()).append('\n'));
        }
        return sb.append("tls-hw-record: off [fixed]\n").toString();
    }

    /** ethtool -K: exit 1 and "Could not change any device features" when nothing changed, as ethtool does. */
    private Result setFeature(String iface, String name, String value) {
        FeatureState f = features.getOrDefault(iface, Map.of()).get(name);
        if (f == null) {
            return new Result(1, "", "Could not change any device features");
        }
        boolean want = value.equals("on");
        if (f.fixed) {
            return new Result(
                    1,
                    "Actual changes:\n" + name + ": " + (f.on ? "on" : "off") + " [requested " + value + "]\n",
                    "Could not change any device features");
        }
        f.requested = want;
        boolean was = f.on;
        f.on = want && !f.keptOff;
        return f.on == was && want != was
                ? new Result(
                        1, "Actual changes:\n" + name + ": " + f.show() + "\n", "Could not change any device features")
                : ok("");
    }

    private String showChannels(String iface) {
        int[] c = channels.get(iface);
        String na = "n/a";
        if (c.length == 2) {
            return "Channel parameters for " + iface
                    + ":\nPre-set maximums:\nRX:\t\tn/a\nTX:\t\tn/a\nOther:\t\t1\nCombined:\t" + c[0]
                    + "\nCurrent hardware settings:\nRX:\t\tn/a\nTX:\t\tn/a\nOther:\t\t1\nCombined:\t" + c[1] + "\n";
        }
        return "Channel parameters for " + iface + ":\nPre-set maximums:\nRX:\t\t" + c[2] + "\nTX:\t\t" + c[4]
                + "\nOther:\t\tn/a\nCombined:\t" + na + "\nCurrent hardware settings:\nRX:\t\t" + c[3] + "\nTX:\t\t"
                + c[5]
                + "\nOther:\t\tn/a\nCombined:\t" + na + "\n";
    }

    private String showCoalescing(String iface) {
        Map<String, String> m = coalescing.get(iface);
        return "Coalesce parameters for " + iface + ":\nAdaptive RX: " + m.get("adaptive-rx") + "  TX: off\n"
                + "stats-block-usecs: n/a\nsample-interval: n/a\n\nrx-usecs: " + m.get("rx-usecs")
                + "\nrx-frames: 128\n"
                + "rx-usecs-irq: n/a\n\ntx-usecs: " + m.get("tx-usecs") + "\ntx-frames: n/a\n";
    }

    private static Result ok(String out) {
        return new Result(0, out, "");
    }

    private static Result notSupported(String what) {
        return new Result(1, "", "netlink error: Operation not supported");
    }
}
