package io.videoedge.server.chaos;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.Metrics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Figures read from the real server process: RSS and threads from /proc/PID/status, descriptors from
 * /proc/PID/fd, direct memory from the server's own metrics on the admin port, GC time from jstat.
 */
final class ProcessReadings {
    private ProcessReadings() {}

    static Figures.Snapshot snapshot(EdgeFixture edge) throws IOException, InterruptedException {
        long pid = edge.process.pid();
        long rss = -1;
        long anon = -1;
        int threads = -1;
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) rss = Long.parseLong(line.replaceAll("\\D", ""));
            if (line.startsWith("RssAnon:")) anon = Long.parseLong(line.replaceAll("\\D", ""));
            if (line.startsWith("Threads:")) threads = Integer.parseInt(line.replaceAll("\\D", ""));
        }
        int fds;
        try (Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            fds = (int) s.count();
        }
        long direct = (long) Metrics.required(edge.metrics(), "videoedge_jvm_direct_memory_used_bytes");
        return new Figures.Snapshot(rss, fds, threads, direct, anon);
    }

    /** Accumulated GC time in seconds and collections (jstat -gcutil: the GCT column; YGC + FGC). */
    static double[] gc(long pid) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "jstat").toString(),
                        "-gcutil",
                        Long.toString(pid))
                .redirectErrorStream(true)
                .start();
        List<String> lines =
                new String(p.getInputStream().readAllBytes()).lines().toList();
        p.waitFor();
        if (lines.size() < 2) return new double[] {Double.NaN, Double.NaN};
        List<String> head = List.of(lines.get(0).trim().split("\\s+"));
        String[] row = lines.get(1).trim().split("\\s+");
        double gct = Double.parseDouble(row[head.indexOf("GCT")]);
        double count = Double.parseDouble(row[head.indexOf("YGC")]) + Double.parseDouble(row[head.indexOf("FGC")]);
        return new double[] {gct, count};
    }
}
