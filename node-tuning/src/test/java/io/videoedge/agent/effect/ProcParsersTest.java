package io.videoedge.agent.effect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The /proc parsers on the kernel's own files: proc-samples/host-6.18 copied from a build machine (kernel 6.18, 2
 * CPUs), proc-samples/debian-guest from Debian's kernel in the VM tier under make tuning-effect's 200 downloads.
 */
class ProcParsersTest {

    static String sample(String dir, String file) {
        try (InputStream in = ProcParsersTest.class.getResourceAsStream("/proc-samples/" + dir + "/" + file)) {
            if (in == null) {
                throw new IllegalStateException("no sample " + dir + "/" + file);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static TrafficCounters counters(String dir) {
        return TrafficCounters.parse(
                sample(dir, "uptime"),
                sample(dir, "sockstat"),
                sample(dir, "softirqs"),
                sample(dir, "softnet_stat"),
                sample(dir, "snmp"));
    }

    @Test
    void hostSamples() {
        String d = "host-6.18";
        assertThat(ProcParsers.sockstatTcp(sample(d, "sockstat")))
                .containsEntry("inuse", 175L)
                .containsEntry("tw", 131L)
                .containsEntry("mem", 0L);
        assertThat(ProcParsers.softirqs(sample(d, "softirqs"), "NET_RX")).containsExactly(39919871L, 39050938L);
        assertThat(ProcParsers.softirqs(sample(d, "softirqs"), "NET_TX")).containsExactly(687L, 958L);
        // 0x02a3c5f4 + 0x029fe865 processed; 0 dropped; 6 + 6 squeezed
        assertThat(ProcParsers.softnetTotals(sample(d, "softnet_stat")))
                .containsExactly(0x02a3c5f4L + 0x029fe865L, 0L, 12L);
        assertThat(ProcParsers.snmp(sample(d, "snmp"), "Tcp"))
                .containsEntry("MaxConn", -1L)
                .containsEntry("CurrEstab", 336L)
                .containsEntry("OutSegs", 11803297L)
                .containsEntry("RetransSegs", 23869L);
        // Icmp and IcmpMsg, Udp and UdpLite: a protocol is its own lines only
        assertThat(ProcParsers.snmp(sample(d, "snmp"), "Udp")).containsEntry("InDatagrams", 521L);

        TrafficCounters c = counters(d);
        assertThat(c.tcpEstablished()).isEqualTo(336);
        assertThat(c.netRxPerCpu()).hasSize(2);
        assertThat(c.tcpRetransSegs()).isEqualTo(23869);
    }

    /** Debian's 6.1 kernel in the VM, 200 downloads running: 13 softnet_stat columns, not 6.18's 15. */
    @Test
    void guestSamplesUnderLoad() {
        String d = "debian-guest";
        assertThat(ProcParsers.sockstatTcp(sample(d, "sockstat")))
                .containsEntry("inuse", 0L)
                .containsEntry("alloc", 404L)
                .containsEntry("mem", 20825L);
        assertThat(ProcParsers.softnetTotals(sample(d, "softnet_stat")))
                .containsExactly(0x3f2fcL + 0xef30L, 0L, 0x129L + 0x8cL);
        TrafficCounters c = counters(d);
        assertThat(c.uptimeSeconds()).isEqualTo(190.0);
        assertThat(c.netRxPerCpu()).containsExactly(82889L, 54226L);
        assertThat(List.of(c.tcpEstablished(), c.tcpOutSegs(), c.tcpRetransSegs()))
                .containsExactly(200L, 651620L, 2019L);
        TrafficWindow w = TrafficWindow.between(c.atBoot(), c);
        assertThat(w.seconds()).isEqualTo(190);
        assertThat(w.tcpMemoryPagesPerConnection()).isEqualTo(104.1); // 20825 pages, 200 connections
        assertThat(w.netRxBusiestCpuPercent()).isEqualTo(60.5); // 82889 of 137115
        assertThat(w.timeSqueezesPerMillion()).isEqualTo(1365.4); // 437 of 320044 packets
        assertThat(w.tcpRetransmitPercent()).isEqualTo(0.3); // 2019 of 651620
    }

    @Test
    void notTheKernelsFormatIsAClearError() {
        assertThatThrownBy(() -> ProcParsers.sockstatTcp("sockets: used 3\nUDP: inuse 0 mem 0\n"))
                .hasMessage("/proc/net/sockstat: no TCP line");
        assertThatThrownBy(() -> ProcParsers.sockstatTcp("TCP: inuse 1 orphan\n"))
                .hasMessageContaining("odd TCP line");
        assertThatThrownBy(() -> ProcParsers.softirqs("   CPU0  CPU1\nNET_RX: 1 2 3\n", "NET_RX"))
                .hasMessage("/proc/softirqs: NET_RX has 3 counts for 2 CPUs");
        assertThatThrownBy(() -> ProcParsers.softirqs("   CPU0\nNET_TX: 1\n", "NET_RX"))
                .hasMessage("/proc/softirqs: no NET_RX row");
        assertThatThrownBy(() -> ProcParsers.softnetTotals("0000zz 0 0\n"))
                .hasMessage("/proc/net/softnet_stat: not a number: 0000zz");
        assertThatThrownBy(() -> ProcParsers.softnetTotals("")).hasMessage("/proc/net/softnet_stat: empty");
        assertThatThrownBy(() -> ProcParsers.snmp("Tcp: A B\nTcp: 1\n", "Tcp"))
                .hasMessage("/proc/net/snmp: Tcp has 2 names and 1 values");
        assertThatThrownBy(() -> TrafficCounters.parse(
                        "5.0 1.0",
                        "TCP: inuse 1 mem 2\n",
                        "  CPU0\nNET_RX: 1\n",
                        "00000001 00000000 00000000\n",
                        "Tcp: CurrEstab OutSegs\nTcp: 1 2\n"))
                .hasMessage("/proc/net/snmp: no Tcp RetransSegs");
    }

    @Test
    void aWindowOfTheHostSampleSinceBoot() {
        TrafficCounters c = counters("host-6.18");
        TrafficWindow w = TrafficWindow.between(c.atBoot(), c);
        assertThat(w.netRxBusiestCpuPercent()).isEqualTo(50.6); // 39919871 of 78970809: 50.55
        assertThat(w.softnetDropsPerMillion()).isEqualTo(0.0);
        assertThat(w.tcpRetransmitPercent()).isEqualTo(0.2); // 23869 of 11803297
        assertThat(List.of(w.tcpMemoryPagesPerConnection())).containsExactly(0.0);
    }
}
