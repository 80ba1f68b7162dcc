package io.videoedge.server.chaos;

import io.videoedge.server.config.LimitsConfig;
import io.videoedge.server.testing.Metrics;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The attackers of {@code make chaos}: trickling heads, idle keep-alive connections, slow readers, a TLS
 * handshake flood, stalled handshakes, garbage. Each returns what the attacker got and adds the
 * problems its own rule finds; the defences' limits are the server's defaults.
 */
final class HostileClients {
    private final Rig rig;
    private final LimitsConfig defences = new LimitsConfig();

    HostileClients(Rig rig) {
        this.rig = rig;
    }

    String slowloris(int count, List<String> problems) throws Exception {
        double deadline = defences.headerTimeout / 1000.0;
        try (Crowd crowd = Crowd.open(rig.edge.httpPort, count, 10, 1000, 0)) {
            crowd.sendAll("GET /hls/playlist.m3u8 HTTP/1.1\r\n".getBytes(StandardCharsets.ISO_8859_1));
            long start = System.nanoTime();
            while (crowd.stillOpen() > 0 && (System.nanoTime() - start) / 1e9 < deadline + 15) {
                crowd.drain(5);
                crowd.sendAll("X-Trickle: 1\r\n".getBytes(StandardCharsets.ISO_8859_1));
            }
            if (crowd.stillOpen() > 0)
                problems.add(crowd.stillOpen() + " trickling heads outlived the header deadline");
            return "%d conns (%d not connected); longest held %.0f s (deadline %.0f s); %d still open"
                    .formatted(
                            crowd.size(),
                            crowd.failedToConnect(),
                            crowd.longestHeldSeconds(),
                            deadline,
                            crowd.stillOpen());
        }
    }

    String idle(int count) throws Exception {
        try (Crowd crowd = Crowd.open(rig.edge.httpPort, count, 30, 1000, 0)) {
            crowd.sendAll(
                    "GET /hls/playlist.m3u8 HTTP/1.1\r\nHost: edge\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            crowd.drain(10);
            Figures.Snapshot peak = ProcessReadings.snapshot(rig.edge);
            return "%d of %d conns held idle after 10 s (%.0f KiB of answers read); server at peak: %d fds, RSS %d MiB, %d threads"
                    .formatted(
                            crowd.stillOpen(),
                            crowd.size(),
                            crowd.bytesIn() / 1024.0,
                            peak.fds(),
                            peak.rssKiB() / 1024,
                            peak.threads());
        }
    }

    String slowReaders(int count, int bytesPerSecond, List<String> problems) throws Exception {
        double period = defences.minSendPeriod / 1000.0;
        long peakDirect = 0;
        try (Crowd crowd = Crowd.open(rig.edge.httpPort, count, 50, 1000, 16 * 1024)) {
            crowd.sendAll(
                    "GET /bench/seg-16m.m4s HTTP/1.1\r\nHost: edge\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            long start = System.nanoTime();
            while (crowd.stillOpen() > 0 && (System.nanoTime() - start) / 1e9 < 2 * period + 20) {
                crowd.read(bytesPerSecond);
                peakDirect =
                        Math.max(peakDirect, ProcessReadings.snapshot(rig.edge).directBytes());
                Thread.sleep(1000);
            }
            if (crowd.stillOpen() > 0)
                problems.add(crowd.stillOpen() + " slow readers were not dropped within 2 x minSendPeriod + 20 s");
            return "%d conns, %.1f MiB read in all; longest held %.0f s (rule: %d KiB per %.0f s); peak direct %s MiB"
                    .formatted(
                            crowd.size(),
                            crowd.bytesIn() / 1048576.0,
                            crowd.longestHeldSeconds(),
                            defences.minSendBytes / 1024,
                            period,
                            Figures.mib(peakDirect));
        }
    }

    String tlsFlood(int seconds, List<String> problems) throws Exception {
        double handshakesBefore = Metrics.value(rig.edge.metrics(), "videoedge_tls_handshakes_total");
        double failuresBefore = Metrics.value(rig.edge.metrics(), "videoedge_tls_handshake_failures_total");
        List<Process> floods = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            floods.add(new ProcessBuilder(
                            "openssl",
                            "s_time",
                            "-connect",
                            "127.0.0.1:" + rig.edge.httpsPort,
                            "-new",
                            "-time",
                            Integer.toString(seconds))
                    .redirectErrorStream(true)
                    .start());
        }
        int connections = 0;
        Pattern done = Pattern.compile("(\\d+) connections in");
        for (Process p : floods) {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            Matcher m = done.matcher(out);
            if (m.find()) connections += Integer.parseInt(m.group(1));
            else
                problems.add("openssl s_time said: "
                        + out.strip().lines().reduce((a, b) -> b).orElse(""));
        }
        String metrics = rig.edge.metrics();
        double handshakes = Metrics.value(metrics, "videoedge_tls_handshakes_total") - handshakesBefore;
        double failures = Metrics.value(metrics, "videoedge_tls_handshake_failures_total") - failuresBefore;
        return "s_time: %d connections (%.0f/s); server: %.0f handshakes done, %.0f failed"
                .formatted(connections, connections / (double) seconds, handshakes, failures);
    }

    String stalled(int count, List<String> problems) throws Exception {
        double deadline = defences.handshakeTimeout / 1000.0;
        try (Crowd crowd = Crowd.open(rig.edge.httpsPort, count, 60, 1000, 0)) {
            // a TLS record header announcing a ClientHello that never comes
            crowd.sendAll(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01});
            long start = System.nanoTime();
            while (crowd.stillOpen() > 0 && (System.nanoTime() - start) / 1e9 < deadline + 15) crowd.drain(1);
            if (crowd.stillOpen() > 0) problems.add(crowd.stillOpen() + " stalled handshakes outlived the deadline");
            return "%d conns; longest held %.0f s (deadline %.0f s); %d still open"
                    .formatted(crowd.size(), crowd.longestHeldSeconds(), deadline, crowd.stillOpen());
        }
    }

    String garbage(int count, List<String> problems) throws Exception {
        byte[] noise = new byte[4096];
        new SplittableRandom(19).nextBytes(noise);
        StringBuilder got = new StringBuilder();
        int first = 70;
        for (int port : new int[] {rig.edge.httpPort, rig.edge.httpsPort}) {
            try (Crowd crowd = Crowd.open(port, count, first++, 1000, 0)) {
                crowd.sendAll(noise);
                long start = System.nanoTime();
                double limit = defences.headerTimeout / 1000.0 + 10;
                while (crowd.stillOpen() > 0 && (System.nanoTime() - start) / 1e9 < limit) crowd.drain(1);
                String scheme = port == rig.edge.httpPort ? "http" : "https";
                if (crowd.stillOpen() > 0) problems.add(crowd.stillOpen() + " " + scheme + " garbage conns left open");
                got.append("%s%s: %d/%d closed, longest %.1f s, %d bytes back"
                        .formatted(
                                got.isEmpty() ? "" : "; ",
                                scheme,
                                crowd.size() - crowd.stillOpen(),
                                crowd.size(),
                                crowd.longestHeldSeconds(),
                                crowd.bytesIn()));
            }
        }
        return got.toString();
    }
}
