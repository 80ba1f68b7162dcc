package io.videoedge.operator.it;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.operator.testing.TestFiles;
import io.videoedge.server.testing.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The packaged operator (target/operator-*.jar with target/lib) in a process of its own, started as
 * the chart starts it: with the environment of the chart's operator container (its JVM options in
 * {@code JDK_JAVA_OPTIONS}, {@code MALLOC_ARENA_MAX}, ...) as `make manifests` renders the chart's
 * defaults into deploy/videoedge.yaml, with the container's memory limit as the memory the JVM sizes
 * its heap from ({@code -XX:MaxRAM}, what a container's limit does), with a token of the operator's
 * ServiceAccount (bound to the chart's rules), with leader election. Its resident memory and CPU time
 * come from /proc, its counters from its /metrics.
 */
final class OperatorProcess implements AutoCloseable {
    /** The variables the harness sets itself (its ports, its namespace): not taken from the chart. */
    private static final java.util.Set<String> OWN_ENV =
            java.util.Set.of("OPERATOR_NAMESPACE", "METRICS_PORT", "HEALTH_PORT");

    private final Process process;
    private final long pid;
    private final int metricsPort;
    private final int healthPort;
    private final Path log;
    private final long ticksPerSecond;

    /**
     * The chart's defaults for the operator container, from the chart rendered with its default values
     * (deploy/videoedge.yaml, which `make manifests` writes and `make verify` keeps current): the
     * variables with a literal value and the memory limit.
     */
    record ChartDefaults(Map<String, String> env, String memoryLimit) {
        static final String JVM_OPTIONS = "JDK_JAVA_OPTIONS";

        static ChartDefaults read() {
            for (String doc : TestFiles.read("deploy/videoedge.yaml").split("(?m)^---$")) {
                Map<?, ?> object = Serialization.unmarshal(doc, Map.class);
                if (object == null
                        || !"Deployment".equals(object.get("kind"))
                        || !String.valueOf(map(object, "metadata").get("name")).endsWith("-operator")) {
                    continue;
                }
                Map<?, ?> pod = map(map(map(object, "spec"), "template"), "spec");
                for (Object c : (List<?>) pod.get("containers")) {
                    Map<?, ?> container = (Map<?, ?>) c;
                    if (!"operator".equals(container.get("name"))) {
                        continue;
                    }
                    Map<String, String> env = new java.util.LinkedHashMap<>();
                    for (Object e : (List<?>) container.get("env")) {
                        Map<?, ?> var = (Map<?, ?>) e;
                        if (var.get("value") != null) {
                            env.put((String) var.get("name"), String.valueOf(var.get("value")));
                        }
                    }
                    Object limit = map(map(container, "resources"), "limits").get("memory");
                    if (!env.containsKey(JVM_OPTIONS) || limit == null) {
                        throw new IllegalStateException("deploy/videoedge.yaml: the operator container has no "
                                + JVM_OPTIONS + " or no memory limit");
                    }
                    return new ChartDefaults(Map.copyOf(env), String.valueOf(limit));
                }
            }
            throw new IllegalStateException("deploy/videoedge.yaml has no operator Deployment: run `make manifests`");
        }

        private static Map<?, ?> map(Map<?, ?> parent, String key) {
            Object child = parent.get(key);
            return child instanceof Map<?, ?> m ? m : Map.of();
        }

        String jvmOptions() {
            return env.get(JVM_OPTIONS);
        }

        /** The same with other JVM options (a measurement's). */
        ChartDefaults withJvmOptions(String options) {
            Map<String, String> changed = new java.util.LinkedHashMap<>(env);
            changed.put(JVM_OPTIONS, options);
            return new ChartDefaults(Map.copyOf(changed), memoryLimit);
        }

        /** 384Mi -> 384m, 1Gi -> 1g: the JVM's size syntax. */
        String maxRam() {
            return memoryLimit.replace("Mi", "m").replace("Gi", "g").replace("Ki", "k");
        }
    }

    /**
     * @param kubeconfig the operator's credentials: its ServiceAccount's token, as a pod has it
     * @param chart the container's environment (its JVM options in JDK_JAVA_OPTIONS, read by the java
     *     launcher as in the image)
     * @param maxRam the container's memory limit in the JVM's syntax
     * @param extraJvm options of a measurement (NMT, a flight recording), after the chart's
     */
    OperatorProcess(
            Path kubeconfig,
            String leaseNamespace,
            ChartDefaults chart,
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
        int[] ports = FreePorts.distinct(2);
        metricsPort = ports[0];
        healthPort = ports[1];
        log = workDir.resolve("operator.log");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:MaxRAM=" + maxRam);
        cmd.addAll(extraJvm);
        cmd.addAll(List.of(
                "-jar", jar.toAbsolutePath().toString(), "--identity", "scale-bench", "--recheck-interval", "30s"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        chart.env().forEach((name, value) -> {
            if (!OWN_ENV.contains(name)) {
                pb.environment().put(name, value);
            }
        });
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
            rss(); // its peak, should it die
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

    /** Its /metrics; nothing once it has exited (a bench goes on to report what it had measured). */
    String metrics() {
        try {
            return get(HttpClient.newHttpClient(), metricsPort, "/metrics").body();
        } catch (IOException e) {
            if (!process.isAlive()) {
                return "";
            }
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private volatile long peakSeen;

    /**
     * Resident memory now and at its peak (VmRSS, VmHWM), in bytes; the peak is the highest seen by any call
     * so far, so a process that died (an OutOfMemoryError) still has the peak it had while it was polled.
     */
    long[] rss() {
        long[] now = readRss();
        peakSeen = Math.max(peakSeen, now[1]);
        return new long[] {now[0], peakSeen};
    }

    private long[] readRss() {
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
        return jcmd("GC.class_histogram");
    }

    /**
     * jcmd VM.native_memory summary: what the process's memory is made of (heap, metaspace, code, threads,
     * GC, malloc), reserved and committed, with peaks; needs {@code -XX:NativeMemoryTracking=summary}.
     */
    String nativeMemory() {
        return jcmd("VM.native_memory", "summary");
    }

    private String jcmd(String... command) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
        cmd.add(Long.toString(pid));
        cmd.addAll(List.of(command));
        return io.videoedge.testing.RealApiServer.run(Duration.ofSeconds(120), cmd)
                .stdout();
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

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
