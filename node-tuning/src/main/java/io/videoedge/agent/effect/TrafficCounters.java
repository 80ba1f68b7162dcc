package io.videoedge.agent.effect;

import java.util.List;
import java.util.Map;

/**
 * The node's traffic counters at one moment, from /proc: what the tuning changes (socket memory, where the receive
 * work runs, drops, squeezes, retransmits).
 *
 * @param uptimeSeconds /proc/uptime: when, in the node's clock
 * @param tcpMemPages /proc/net/sockstat TCP mem: pages (4 KiB) of socket buffers all TCP sockets hold
 * @param tcpEstablished /proc/net/snmp Tcp CurrEstab: connections established now
 * @param netRxPerCpu /proc/softirqs NET_RX: receive softirqs run by each CPU since boot
 * @param softnetProcessed /proc/net/softnet_stat: packets processed, all CPUs
 * @param softnetDropped /proc/net/softnet_stat: packets dropped because a CPU's backlog was full
 * @param timeSqueezed /proc/net/softnet_stat: NET_RX runs out of budget or time with packets left
 * @param tcpOutSegs /proc/net/snmp Tcp OutSegs: segments sent
 * @param tcpRetransSegs /proc/net/snmp Tcp RetransSegs: segments retransmitted
 */
public record TrafficCounters(
        double uptimeSeconds,
        long tcpMemPages,
        long tcpEstablished,
        List<Long> netRxPerCpu,
        long softnetProcessed,
        long softnetDropped,
        long timeSqueezed,
        long tcpOutSegs,
        long tcpRetransSegs) {

    public TrafficCounters {
        netRxPerCpu = List.copyOf(netRxPerCpu);
    }

    /** From the texts of /proc/uptime, /proc/net/sockstat, /proc/softirqs, /proc/net/softnet_stat, /proc/net/snmp. */
    public static TrafficCounters parse(
            String uptime, String sockstat, String softirqs, String softnetStat, String snmp) {
        Map<String, Long> tcp = ProcParsers.snmp(snmp, "Tcp");
        long[] softnet = ProcParsers.softnetTotals(softnetStat);
        return new TrafficCounters(
                ProcParsers.uptime(uptime),
                ProcParsers.sockstatTcp(sockstat).get("mem"),
                field(tcp, "CurrEstab"),
                ProcParsers.softirqs(softirqs, "NET_RX"),
                softnet[0],
                softnet[1],
                softnet[2],
                field(tcp, "OutSegs"),
                field(tcp, "RetransSegs"));
    }

    /** The counters at boot: every count 0 (a window from it is an average since boot). */
    public TrafficCounters atBoot() {
        return new TrafficCounters(0, 0, 0, netRxPerCpu.stream().map(x -> 0L).toList(), 0, 0, 0, 0, 0);
    }

    private static long field(Map<String, Long> tcp, String name) {
        Long v = tcp.get(name);
        if (v == null) {
            throw new IllegalArgumentException("/proc/net/snmp: no Tcp " + name);
        }
        return v;
    }
}
