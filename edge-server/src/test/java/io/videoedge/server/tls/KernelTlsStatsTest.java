package io.videoedge.server.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.testing.Metrics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelTlsStatsTest {
    /**
     * /proc/net/tls_stat as net/tls/tls_proc.c prints it ({@code "%-32s\t%lu\n"} per counter), with the
     * counters of a 6.x kernel: two sessions on the NIC, three in software, receive in software.
     */
    static String tlsStat(long currTxSw, long currTxDevice, long txSw, long txDevice) {
        Object[][] counters = {
            {"TlsCurrTxSw", currTxSw},
            {"TlsCurrRxSw", currTxSw + currTxDevice},
            {"TlsCurrTxDevice", currTxDevice},
            {"TlsCurrRxDevice", 0L},
            {"TlsTxSw", txSw},
            {"TlsRxSw", txSw + txDevice},
            {"TlsTxDevice", txDevice},
            {"TlsRxDevice", 0L},
            {"TlsDecryptError", 1L},
            {"TlsRxDeviceResync", 0L},
            {"TlsDecryptRetry", 0L},
            {"TlsRxNoPadViolation", 0L},
            {"TlsRxRekeyOk", 0L},
            {"TlsRxRekeyError", 0L},
            {"TlsTxRekeyOk", 0L},
            {"TlsTxRekeyError", 0L},
            {"TlsRxRekeyReceived", 0L}
        };
        StringBuilder sb = new StringBuilder();
        for (Object[] c : counters) {
            sb.append(String.format("%-32s\t%d\n", c[0], c[1]));
        }
        return sb.toString();
    }

    @Test
    void parsesTheKernelsFormat() {
        Map<String, Long> m = KernelTlsStats.parse(tlsStat(3, 2, 10, 7));
        assertThat(m)
                .hasSize(17)
                .containsEntry("TlsCurrTxSw", 3L)
                .containsEntry("TlsCurrTxDevice", 2L)
                .containsEntry("TlsTxSw", 10L)
                .containsEntry("TlsTxDevice", 7L)
                .containsEntry("TlsDecryptError", 1L)
                .containsEntry("TlsCurrRxSw", 5L);
        // a line the way it looks on disk: the name padded to 32 columns, a tab, the value
        assertThat(KernelTlsStats.parse("TlsCurrTxDevice                 \t42\n"))
                .containsExactly(Map.entry("TlsCurrTxDevice", 42L));
        assertThat(KernelTlsStats.parse("garbage\nTlsTxSw x\n\nTlsTxSw 1 2\n")).isEmpty();
    }

    @Test
    void metricsAreReadFromTheFileAtEachScrapeAndAbsentWithoutIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("tls_stat");
        EdgeMetrics metrics = new EdgeMetrics();
        KernelTlsStats.register(metrics, file);

        // no tls module: no samples at all, not zeros
        assertThat(samples(scrape(metrics))).noneMatch(l -> l.startsWith("videoedge_ktls_sessions"));

        Files.writeString(file, tlsStat(3, 2, 10, 7));
        String text = scrape(metrics);
        assertThat(Metrics.required(text, "videoedge_ktls_sessions_current{direction=\"tx\",kind=\"software\"}"))
                .isEqualTo(3);
        assertThat(Metrics.required(text, "videoedge_ktls_sessions_current{direction=\"tx\",kind=\"device\"}"))
                .isEqualTo(2);
        assertThat(Metrics.required(text, "videoedge_ktls_sessions_current{direction=\"rx\",kind=\"software\"}"))
                .isEqualTo(5);
        assertThat(Metrics.required(text, "videoedge_ktls_sessions_current{direction=\"rx\",kind=\"device\"}"))
                .isEqualTo(0);
        assertThat(Metrics.required(text, "videoedge_ktls_sessions_total{direction=\"tx\",kind=\"software\"}"))
                .isEqualTo(10);
        assertThat(Metrics.required(text, "videoedge_ktls_sessions_total{direction=\"tx\",kind=\"device\"}"))
                .isEqualTo(7);
        assertThat(Metrics.required(text, "videoedge_ktls_sessions_total{direction=\"rx\",kind=\"software\"}"))
                .isEqualTo(17);
        assertThat(samples(text).filter(l -> l.startsWith("videoedge_ktls_sessions")))
                .hasSize(8);
        assertThat(text)
                .contains(
                        "# TYPE videoedge_ktls_sessions_current gauge", "# TYPE videoedge_ktls_sessions_total counter");

        // read again at the next scrape
        Files.writeString(file, tlsStat(0, 4, 10, 11));
        assertThat(Metrics.required(
                        scrape(metrics), "videoedge_ktls_sessions_current{direction=\"tx\",kind=\"device\"}"))
                .isEqualTo(4);

        // the module unloaded: gone again
        Files.delete(file);
        assertThat(samples(scrape(metrics))).noneMatch(l -> l.startsWith("videoedge_ktls_sessions"));
    }

    private static String scrape(EdgeMetrics metrics) throws Exception {
        return new String(metrics.scrape(), StandardCharsets.UTF_8);
    }

    private static java.util.stream.Stream<String> samples(String text) {
        return Arrays.stream(text.split("\n")).filter(l -> !l.startsWith("#"));
    }

    @Test
    void counterGroupsMapTheKernelsNames() {
        assertThat(KernelTlsStats.CURRENT)
                .extracting(KernelTlsStats.Counter::name)
                .containsExactly("TlsCurrTxSw", "TlsCurrRxSw", "TlsCurrTxDevice", "TlsCurrRxDevice");
        assertThat(KernelTlsStats.samples(java.util.Optional.of(Map.of("TlsTxDevice", 9L)), KernelTlsStats.TOTAL))
                .containsExactly(Map.entry(List.of("tx", "device"), 9.0));
    }
}
