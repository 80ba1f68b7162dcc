package io.videoedge.agent.effect;

import java.util.List;

/**
 * What the traffic looked like between two samples, in numbers that do not depend on the window's length.
 *
 * @param seconds length of the window
 * @param tcpMemoryPagesPerConnection TCP socket memory (pages) per established connection at the window's end
 * @param netRxBusiestCpuPercent the busiest CPU's share of the NET_RX softirqs (100 / CPUs: an even spread); null when
 *     there were none
 * @param softnetDropsPerMillion backlog drops per million packets processed; null when none were processed
 * @param timeSqueezesPerMillion time squeezes per million packets processed; null when none were processed
 * @param tcpRetransmitPercent segments retransmitted, percent of segments sent; null when none were sent
 */
public record TrafficWindow(
        long seconds,
        double tcpMemoryPagesPerConnection,
        Double netRxBusiestCpuPercent,
        Double softnetDropsPerMillion,
        Double timeSqueezesPerMillion,
        Double tcpRetransmitPercent) {

    /**
     * The window from one sample to a later one. A counter that went backwards (the node rebooted, a CPU went away)
     * makes the window start at boot.
     */
    public static TrafficWindow between(TrafficCounters from, TrafficCounters to) {
        if (!monotonic(from, to)) {
            from = to.atBoot();
        }
        long processed = to.softnetProcessed() - from.softnetProcessed();
        long sent = to.tcpOutSegs() - from.tcpOutSegs();
        List<Long> rx = to.netRxPerCpu();
        long total = 0;
        long busiest = 0;
        for (int i = 0; i < rx.size(); i++) {
            long d = rx.get(i) - from.netRxPerCpu().get(i);
            total += d;
            busiest = Math.max(busiest, d);
        }
        return new TrafficWindow(
                Math.round(to.uptimeSeconds() - from.uptimeSeconds()),
                round(to.tcpMemPages() / (double) Math.max(1, to.tcpEstablished())),
                total == 0 ? null : round(100.0 * busiest / total),
                processed == 0 ? null : round(1e6 * (to.softnetDropped() - from.softnetDropped()) / processed),
                processed == 0 ? null : round(1e6 * (to.timeSqueezed() - from.timeSqueezed()) / processed),
                sent == 0 ? null : round(100.0 * (to.tcpRetransSegs() - from.tcpRetransSegs()) / sent));
    }

    private static boolean monotonic(TrafficCounters from, TrafficCounters to) {
        if (from.netRxPerCpu().size() != to.netRxPerCpu().size() || to.uptimeSeconds() < from.uptimeSeconds()) {
            return false;
        }
        for (int i = 0; i < to.netRxPerCpu().size(); i++) {
            if (to.netRxPerCpu().get(i) < from.netRxPerCpu().get(i)) {
                return false;
            }
        }
        return to.softnetProcessed() >= from.softnetProcessed()
                && to.softnetDropped() >= from.softnetDropped()
                && to.timeSqueezed() >= from.timeSqueezed()
                && to.tcpOutSegs() >= from.tcpOutSegs()
                && to.tcpRetransSegs() >= from.tcpRetransSegs();
    }

    /** One decimal: the status stays small and does not change with noise. */
    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }
}
