package io.videoedge.server.tls;

import io.videoedge.server.metrics.EdgeMetrics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The kernel's own count of kernel TLS sessions, from /proc/net/tls_stat: how many encrypt in
 * software and how many on the NIC (TLS device offload). This is what tells device from software
 * kTLS: OpenSSL only says that the kernel took over a session, not where it encrypts.
 *
 * <p>The file exists only once the kernel's tls code is loaded (the tls module, or built in), and it is
 * per network namespace: the edge pod uses the host's network, so the counts are the node's, every
 * kTLS socket of the host network namespace included, not only this server's. Without the file there
 * are no samples, not zeros.
 */
public final class KernelTlsStats {
    public static final Path PROC = Path.of("/proc/net/tls_stat");

    /** One tls_stat counter and the label values (direction, kind) it is exposed with. */
    record Counter(String name, String direction, String kind) {}

    /** Sessions installed now: direction, and where they encrypt. */
    static final List<Counter> CURRENT = List.of(
            new Counter("TlsCurrTxSw", "tx", "software"),
            new Counter("TlsCurrRxSw", "rx", "software"),
            new Counter("TlsCurrTxDevice", "tx", "device"),
            new Counter("TlsCurrRxDevice", "rx", "device"));

    /** Sessions installed since the tls module was loaded. */
    static final List<Counter> TOTAL = List.of(
            new Counter("TlsTxSw", "tx", "software"),
            new Counter("TlsRxSw", "rx", "software"),
            new Counter("TlsTxDevice", "tx", "device"),
            new Counter("TlsRxDevice", "rx", "device"));

    private KernelTlsStats() {}

    /**
     * The counters of tls_stat text: one {@code Name<spaces/tab>Value} per line, as the kernel prints
     * them ({@code %-32s\t%lu}); lines that are not a name and a number are skipped.
     */
    public static Map<String, Long> parse(String text) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            String[] f = line.strip().split("\\s+");
            if (f.length == 2 && f[0].matches("[A-Za-z0-9]+") && f[1].matches("[0-9]{1,19}")) {
                try {
                    m.put(f[0], Long.parseLong(f[1]));
                } catch (NumberFormatException e) {
                    // above Long.MAX_VALUE: not a value to report
                }
            }
        }
        return m;
    }

    /** The counters now; empty when the file is absent (tls module not loaded) or cannot be read. */
    public static Optional<Map<String, Long>> read(Path file) {
        try {
            return Optional.of(parse(Files.readString(file)));
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    /** Registers the session metrics, read from /proc/net/tls_stat at each scrape. */
    public static void register(EdgeMetrics metrics) {
        register(metrics, PROC);
    }

    static void register(EdgeMetrics metrics, Path file) {
        List<String> labels = List.of("direction", "kind");
        metrics.gauges(
                "videoedge_ktls_sessions_current",
                "Kernel TLS sessions installed now in the server's network namespace (the host's: every kTLS socket of the "
                        + "node), by direction and where they encrypt: device (the NIC, TLS offload) or software (the kernel); "
                        + "from /proc/net/tls_stat, absent while the tls module is not loaded",
                labels,
                () -> samples(read(file), CURRENT));
        metrics.counters(
                "videoedge_ktls_sessions_total",
                "Kernel TLS sessions installed since the tls module was loaded, in the server's network namespace (the host's), "
                        + "by direction and kind (device or software); from /proc/net/tls_stat, absent while the module is not loaded",
                labels,
                () -> samples(read(file), TOTAL));
    }

    /** The samples of one group of counters; none when the file was not there. */
    static Map<List<String>, Double> samples(Optional<Map<String, Long>> stats, List<Counter> group) {
        Map<List<String>, Double> out = new LinkedHashMap<>();
        stats.ifPresent(s -> group.forEach(c -> {
            Long v = s.get(c.name());
            if (v != null) {
                out.put(List.of(c.direction(), c.kind()), v.doubleValue());
            }
        }));
        return out;
    }
}
