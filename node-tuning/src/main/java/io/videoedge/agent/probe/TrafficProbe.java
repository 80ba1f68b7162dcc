package io.videoedge.agent.probe;

import io.videoedge.agent.effect.TrafficCounters;
import io.videoedge.agent.host.HostFs;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the node's traffic counters (/proc/uptime, /proc/net/sockstat, /proc/softirqs, /proc/net/softnet_stat,
 * /proc/net/snmp) under the host root. /proc/net is the reading process's network namespace: the agent runs with
 * hostNetwork, so these are the node's.
 */
public final class TrafficProbe {
    private static final Logger LOG = LoggerFactory.getLogger(TrafficProbe.class);
    private final HostFs fs;
    private volatile String lastError;

    public TrafficProbe(HostFs fs) {
        this.fs = fs;
    }

    /** The counters now; empty when a file is missing (a fake tree) or not in the kernel's format (logged once). */
    public Optional<TrafficCounters> read() {
        Optional<String> uptime = fs.readIfPresent("proc/uptime");
        Optional<String> sockstat = fs.readIfPresent("proc/net/sockstat");
        Optional<String> softirqs = fs.readIfPresent("proc/softirqs");
        Optional<String> softnet = fs.readIfPresent("proc/net/softnet_stat");
        Optional<String> snmp = fs.readIfPresent("proc/net/snmp");
        if (uptime.isEmpty() || sockstat.isEmpty() || softirqs.isEmpty() || softnet.isEmpty() || snmp.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(
                    TrafficCounters.parse(uptime.get(), sockstat.get(), softirqs.get(), softnet.get(), snmp.get()));
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().equals(lastError)) {
                LOG.warn("traffic counters not reported: {}", e.getMessage());
                lastError = e.getMessage();
            }
            return Optional.empty();
        }
    }
}
