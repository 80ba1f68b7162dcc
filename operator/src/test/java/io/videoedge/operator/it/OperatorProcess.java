package io.videoedge.operator.it;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.operator.testing.TestFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The packaged operator (target/operator-*.jar with target/lib) in a process of its own, started as
 * the chart starts it: the chart's JVM options ({@code operator.jvmOptions} in values.yaml) with the
 * chart's memory limit ({@code operator.resources.limits.memory}) as the memory the JVM sizes its heap
 * from ({@code -XX:MaxRAM}, what a container's limit does), with a token of the operator's
 * ServiceAccount (bound to the chart's rules), with leader election. Its resident memory and CPU time
 * come from /proc, its counters from its /metrics.
 */
final class OperatorProcess implements AutoCloseable {
    private final Process process;
    private final long pid;
    private final int metricsPort;
    private final int healthPort;
    private final Path log;
    private final long ticksPerSecond;

    /** The chart's defaults: operator.jvmOptions and operator.resources.limits.memory. */
    record ChartDefaults(String jvmOptions, String memoryLimit) {
        static ChartDefaults read() {
            Map<?, ?> values = Serialization.unmarshal(TestFiles.read("charts/videoedge/values.yaml"), Map.class);
            Map<?, ?> operator = (Map<?, ?>) values.get("operator");
            Map<?, ?> limits = (Map<?, ?>) ((Map<?, ?>) operator.get("resources")).get("limits");
            return new ChartDefaults((String) operator.get("jvmOptions"), String.valueOf(limits.get("memory")));
        }

        /** 384Mi -> 384m, 1Gi -> 1g: the JVM's size syntax. */
        String maxRam() {
            return memoryLimit.replace("Mi", "m").replace("Gi", "g").replace("Ki", "k");
        }
    }

    /** @param kubeconfig the operator's credentials: its ServiceAccount's token, as a pod has it */
    OperatorProcess(
            Path kubeconfig,
            String leaseNamespace,
            String jvmOptions,
            String maxRam,
            Path workDir,
            List<String> extraJvm)
            throws IOException {
        Path jar;
        String given = System.getProperty("scale.operator.jar");
        try (var files =
                Files.list(given == null ? Path.of("target") : Path.of(given).getParent())) {
            jar = files.filter(p -> given == null
                            ? p.getFileName().toString().matches("operator-.*\\.jar")
                                    && !p.getFileName().toString().contains("tests")
                            : p.equals(Path.of(given)))
                    .findFirst()
                    .orElseThrow(
                            () -> new IllegalStateException("no target/operator-*.jar: package the operator first"));
        }
        metricsPort = freePort();
        healthPort = freePort();
        log = workDir.resolve("operator.log");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:MaxRAM=" + maxRam);
        cmd.addAll(Arrays.stream(jvmOptions.trim().split("\\s+"))
                .filter(s -> !s.isEmpty())
                .toList());
        cmd.addAll(extraJvm);
        cmd.addAll(List.of(
                "-jar", jar.toAbsolutePath().toString(), "--identity", "scale-bench", "--recheck-interval", "30s"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("KUBECONFIG", kubeconfig.toString());
        pb.environment().put("OPERATOR_NAMESPACE", leaseNamespace);
        pb.environment().put("METRICS_PORT", Integer.toString(metricsPort));
        pb.environment().put("HEALTH_PORT", Integer.toString(healthPort));
        process = pb.start();
        pid = process.pid();
        ticksPerSecond = clockTicks();
    }

    long pid() {
        return pid;
    }

    Path log() {
        return log;
    }

    void awaitReady(Duration timeout) throws InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        Instant until = Instant.now().plus(timeout);
        while (Instant.now().isBefore(until)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the operator exited " + process.exitValue() + ": " + tail());
            }
            try {
                if (get(http, healthPort, "/readyz").statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("the operator was not ready within " + timeout + ": " + tail());
    }

    boolean alive() {
        return process.isAlive();
    }

    String metrics() {
        try {
            return get(HttpClient.newHttpClient(), metricsPort, "/metrics").body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Resident memory now and at its peak (VmRSS, VmHWM), in bytes. */
    long[] rss() {
        long rss = 0;
        long peak = 0;
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = kb(line);
                } else if (line.startsWith("VmHWM:")) {
                    peak = kb(line);
                }
            }
        } catch (IOException e) {
            // gone
        }
        return new long[] {rss, peak};
    }

    private static long kb(String line) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
    }

    /** User + system CPU seconds the process has used so far. */
    double cpuSeconds() {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // fields after the name: state(0) ... utime is field 14 of the whole line, index 11 here
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / (double) ticksPerSecond;
        } catch (IOException e) {
            return Double.NaN;
        }
    }

    /** jcmd GC.class_histogram (a full GC first): what the heap holds, the largest first. */
    String histogram() {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        var r = io.videoedge.testing.RealApiServer.run(
                Duration.ofSeconds(120), List.of(jcmd.toString(), Long.toString(pid), "GC.class_histogram"));
        return r.stdout();
    }

    String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    private static long clockTicks() {
        var r = io.videoedge.testing.RealApiServer.run(Duration.ofSeconds(10), List.of("getconf", "CLK_TCK"));
        return Long.parseLong(r.stdout().trim());
    }

    static HttpResponse<String> get(HttpClient http, int port, String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
