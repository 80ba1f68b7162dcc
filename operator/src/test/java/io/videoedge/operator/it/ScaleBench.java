package io.videoedge.operator.it;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.api.Conditions;
import io.videoedge.api.RolloutSpec;
import io.videoedge.api.TlsMode;
import io.videoedge.api.TlsSpec;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeSpec;
import io.videoedge.api.VideoEdgeStatus;
import io.videoedge.operator.testing.TestFiles;
import io.videoedge.testing.RealApiServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code make scale-bench}: for each fleet size N (-Dscale.nodes=100,1000,5000), a fresh kube-apiserver +
 * etcd, N simulated Nodes ({@link SimNodes}), their agents ({@link SimAgents}), the DaemonSet
 * controller, scheduler and kubelets ({@link SimKubelets}), and the real operator jar in its own
 * process with the chart's JVM options and memory limit ({@link OperatorProcess}). One VideoEdge selects
 * all N nodes; the bench measures its creation, then a tuning change rolled out with maxUnavailable 10%,
 * and prints one table (also target/scale-bench/results.md). Not an *IT: `make test` does not run it.
 *
 * <p>Settings (system properties): scale.nodes, scale.soakSeconds (2), scale.drainSeconds (1),
 * scale.applyMillis (agent pass time, 200), scale.nodeStatusSeconds (kubelet node status period, 300),
 * scale.operator.memory and scale.operator.jvmOptions (default: the chart's, deploy/videoedge.yaml), scale.operator.jar (another build
 * of the operator, with its lib/ beside it; default target/operator-*.jar), scale.histogram (true: jcmd
 * GC.class_histogram of the operator after the rollout), scale.nmt (true: the operator with
 * -XX:NativeMemoryTracking=summary, its jcmd VM.native_memory summary after the creation and after the rollout in
 * target/scale-bench/nN/), scale.jfr (true: a flight recording).
 */
class ScaleBench {
    static final String NS = "bench";
    static final String NAME = "edge";
    static final String FLEET_LABEL = "scale.videoedge.io/fleet";
    static final Path OUT = Path.of("target", "scale-bench");

    record Result(
            int nodes,
            Map<String, String> figures,
            ApiRequests api,
            Map<String, Long> simWrites,
            OperatorAudit.Writes operatorWrites,
            String notes) {}

    @Test
    void scale() throws Exception {
        List<Integer> sizes = Arrays.stream(
                        System.getProperty("scale.nodes", "100,1000,5000").split(","))
                .map(String::trim)
                .map(Integer::parseInt)
                .toList();
        Files.createDirectories(OUT);
        List<Result> results = new ArrayList<>();
        for (int n : sizes) {
            Result r = run(n);
            results.add(r);
            String table = table(results);
            System.out.println(table);
            Files.writeString(OUT.resolve("results.md"), table);
        }
    }

    private static long load() {
        try {
            return Math.round(Double.parseDouble(
                            Files.readString(Path.of("/proc/loadavg")).split(" ")[0])
                    * 100);
        } catch (IOException e) {
            return -1;
        }
    }

    Result run(int n) throws Exception {
        Map<String, String> figures = new LinkedHashMap<>();
        StringBuilder notes = new StringBuilder();
        int soak = Integer.getInteger("scale.soakSeconds", 2);
        int drain = Integer.getInteger("scale.drainSeconds", 1);
        Duration apply = Duration.ofMillis(Long.getLong("scale.applyMillis", 200));
        Duration nodeStatus = Duration.ofSeconds(Long.getLong("scale.nodeStatusSeconds", 300));
        OperatorProcess.ChartDefaults chart = OperatorProcess.ChartDefaults.read();
        String memory = System.getProperty("scale.operator.memory", chart.maxRam());
        String jvm = System.getProperty("scale.operator.jvmOptions");
        if (jvm != null) {
            chart = chart.withJvmOptions(jvm);
        }
        log("N=%d: load %.2f; operator: -XX:MaxRAM=%s, environment %s", n, load() / 100.0, memory, chart.env());
        figures.put("load average at start", String.format("%.1f", load() / 100.0));

        Path work = Files.createDirectories(OUT.resolve("n" + n));
        OperatorAudit audit = OperatorAudit.of(work, OperatorHarness.USER);
        RealApiServer api = RealApiServer.startNew(audit.flags());
        WriteCounter sims = new WriteCounter();
        try (KubernetesClient admin = bigClient(api)) {
            OperatorHarness.installRbac(admin);
            benchNamespace(admin);
            Path kubeconfig = operatorKubeconfig(admin, api);

            Instant t0 = Instant.now();
            SimNodes nodes = new SimNodes(admin, sims).statusEvery(nodeStatus);
            nodes.register("edge", n, Map.of(FLEET_LABEL, NAME), 16);
            log("N=%d: %d nodes registered in %s", n, n, secs(t0, Instant.now()));

            try (nodes;
                    SimKubelets kubelets = new SimKubelets(
                            admin, sims, Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(1), 8);
                    SimAgents agents = new SimAgents(admin, sims, apply, 8);
                    StatusWatch watch = new StatusWatch(admin, n).agents(agents)) {
                List<String> extra = new ArrayList<>();
                if (Boolean.getBoolean("scale.jfr")) {
                    extra.add("-XX:StartFlightRecording=filename="
                            + OUT.resolve("operator-" + n + ".jfr").toAbsolutePath()
                            + ",settings=profile,dumponexit=true");
                }
                boolean nmt = Boolean.getBoolean("scale.nmt");
                if (nmt) {
                    extra.add("-XX:NativeMemoryTracking=summary");
                }
                try (OperatorProcess operator =
                        new OperatorProcess(kubeconfig, OperatorHarness.NAMESPACE, chart, memory, work, extra)) {
                    try {
                        operator.awaitReady(Duration.ofSeconds(120));
                    } catch (IllegalStateException e) {
                        // it died while its informers loaded the fleet (an OutOfMemoryError): report it, go on
                        figures.put("operator", "exited while starting, before the VideoEdge was applied");
                        figures.put("operator RSS peak MiB", Long.toString(operator.rss()[1] >> 20));
                        notes.append("the operator died while starting: ").append(operator.tail());
                        ApiRequests none = ApiRequests.scrape(admin);
                        return new Result(n, figures, none.since(none), sims.sent(), audit.since(), notes.toString());
                    }
                    ApiRequests before = ApiRequests.scrape(admin);
                    audit.mark();
                    sims.reset();
                    double cpu0 = operator.cpuSeconds();
                    double rec0 = reconciles(operator);

                    // 1. the VideoEdge applied: NodeTunings, pods, agents, status
                    Instant applied = Instant.now();
                    admin.resource(videoEdge()).create();
                    Duration budget = Duration.ofSeconds(120 + n / 10);
                    boolean created = until(budget, operator, () -> agents.count() >= n);
                    Instant allTunings = Instant.now();
                    figures.put(
                            "VideoEdge applied -> all NodeTunings created",
                            created
                                    ? secs(applied, allTunings)
                                    : "not within " + budget.toSeconds() + " s (" + agents.count() + ")");
                    boolean settled = until(budget.multipliedBy(2), operator, watch::settled);
                    Instant settledAt = Instant.now();
                    figures.put(
                            "VideoEdge applied -> Ready, N/N tuned, serving, updated",
                            settled
                                    ? secs(applied, settledAt)
                                    : "not within " + budget.multipliedBy(2).toSeconds() + " s: " + watch.summary());
                    figures.put(
                            "last agent report -> status tuned N/N",
                            watch.tunedAt() == null || watch.lastReportBeforeTuned() == null
                                    ? "never"
                                    : secs(watch.lastReportBeforeTuned(), watch.tunedAt()));
                    double cpu1 = operator.cpuSeconds();
                    double rec1 = reconciles(operator);
                    if (nmt) {
                        Files.writeString(work.resolve("nmt-created.txt"), operator.nativeMemory());
                    }
                    figures.put("operator CPU s: creation", String.format("%.1f", cpu1 - cpu0));
                    figures.put("reconciles: creation", String.format("%.0f", rec1 - rec0));
                    figures.put(
                            "reconcile wall s, creation: mean since start / longest of the last 2 min",
                            reconcileSeconds(operator));
                    figures.put("agent reports: creation", Long.toString(agents.reports()));

                    // 2. idle: nothing changes for 20 s
                    Thread.sleep(20_000);
                    double cpu2 = operator.cpuSeconds();
                    double rec2 = reconciles(operator);
                    figures.put("operator CPU s per minute idle", String.format("%.1f", (cpu2 - cpu1) * 3));
                    figures.put("reconciles per minute idle", String.format("%.0f", (rec2 - rec1) * 3));

                    // 3. a tuning change, rolled out with maxUnavailable 10%
                    long reports0 = agents.reports();
                    kubelets.resetFewest();
                    watch.resetRollout();
                    Instant changed = Instant.now();
                    long generation = edit(admin);
                    boolean rolled =
                            settled && until(budget.multipliedBy(3), operator, () -> watch.rolledOut(generation));
                    Instant done = Instant.now();
                    figures.put(
                            "tuning change -> rolled out (maxUnavailable 10%, soak " + soak + " s)",
                            rolled
                                    ? secs(changed, done)
                                    : "not within " + budget.multipliedBy(3).toSeconds() + " s: " + watch.summary());
                    figures.put(
                            "fewest nodes serving during the rollout",
                            kubelets.fewestServing() + " of " + n + " (at most " + (int) Math.ceil(n / 10.0) + " out)");
                    double cpu3 = operator.cpuSeconds();
                    double rec3 = reconciles(operator);
                    figures.put("operator CPU s: rollout", String.format("%.1f", cpu3 - cpu2));
                    figures.put("reconciles: rollout", String.format("%.0f", rec3 - rec2));
                    figures.put(
                            "reconcile wall s, to the rollout's end: mean since start / longest of the last 2 min",
                            reconcileSeconds(operator));
                    figures.put("agent reports: rollout", Long.toString(agents.reports() - reports0));

                    long[] rss = operator.rss();
                    figures.put("operator RSS peak MiB", Long.toString(rss[1] >> 20));
                    figures.put("operator RSS at end MiB", Long.toString(rss[0] >> 20));
                    figures.put("VideoEdge status bytes (peak)", Long.toString(watch.peakStatusBytes()));
                    figures.put("VideoEdge object bytes (peak)", Long.toString(watch.peakObjectBytes()));
                    ApiRequests during = ApiRequests.scrape(admin).since(before);
                    Map<String, Long> simWrites = sims.sent();
                    long simulated = simWrites.values().stream()
                            .mapToLong(Long::longValue)
                            .sum();
                    OperatorAudit.Writes operatorWrites = audit.since();
                    figures.put(
                            "API writes: all / simulated cluster / operator",
                            during.total() + " / " + simulated + " / " + operatorWrites.total());
                    figures.put(
                            "failed API writes: all clients (API server metrics)",
                            Long.toString(during.failedWrites().values().stream()
                                    .mapToLong(Long::longValue)
                                    .sum()));
                    figures.put(
                            "failed API writes: simulated cluster (its own count)",
                            Long.toString(sims.failed().values().stream()
                                    .mapToLong(Long::longValue)
                                    .sum()));
                    figures.put("failed API writes: operator (audit log)", Long.toString(operatorWrites.failedTotal()));
                    figures.put("agent status conflicts (409)", Long.toString(agents.conflicts()));
                    figures.put("operator log warnings/errors", Long.toString(warnings(operator.log())));
                    figures.put("operator log: request timeouts", Long.toString(timeouts(operator.log())));
                    if (nmt) {
                        String summary = operator.nativeMemory();
                        Files.writeString(work.resolve("nmt-rolled-out.txt"), summary);
                        log("N=%d native memory after the rollout:%n%s", n, summary);
                    }
                    if (Boolean.getBoolean("scale.histogram")) {
                        String histogram = operator.histogram();
                        Files.writeString(work.resolve("histogram.txt"), histogram);
                        log(
                                "N=%d heap histogram (top):%n%s",
                                n, histogram.lines().limit(25).collect(Collectors.joining("\n")));
                    }
                    if (!operator.alive()) {
                        notes.append("the operator died: ").append(operator.tail());
                    }
                    log("N=%d done: %s", n, figures);
                    return new Result(n, figures, during, simWrites, operatorWrites, notes.toString());
                }
            }
        } finally {
            api.stop();
        }
    }

    /** Waits for a condition, failing early when the operator is gone. */
    private static boolean until(Duration timeout, OperatorProcess operator, BooleanSupplier done)
            throws InterruptedException {
        Instant end = Instant.now().plus(timeout);
        while (Instant.now().isBefore(end)) {
            if (done.getAsBoolean()) {
                return true;
            }
            if (!operator.alive()) {
                return false;
            }
            operator.rss(); // its peak, should it die
            Thread.sleep(100);
        }
        return false;
    }

    /**
     * The VideoEdge reconciles' wall time from JOSDK's Micrometer timer: "mean / longest" in seconds, the
     * mean over every reconcile since the operator started, the longest within the timer's sliding
     * window (2 minutes by default), not over the whole run.
     */
    private static String reconcileSeconds(OperatorProcess operator) {
        double sum = 0;
        double count = 0;
        double max = 0;
        for (String l : operator.metrics().lines().toList()) {
            if (!l.contains("controller=\"videoedge\"")) {
                continue;
            }
            double v = Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1));
            if (l.startsWith("operator_sdk_controllers_execution_reconcile_seconds_sum{")) {
                sum += v;
            } else if (l.startsWith("operator_sdk_controllers_execution_reconcile_seconds_count{")) {
                count += v;
            } else if (l.startsWith("operator_sdk_controllers_execution_reconcile_seconds_max{")) {
                max = Math.max(max, v);
            }
        }
        return count == 0 ? "none" : String.format("%.1f / %.1f", sum / count, max);
    }

    private static double reconciles(OperatorProcess operator) {
        return operator.metrics()
                .lines()
                .filter(l -> l.startsWith("operator_sdk_reconciliations_started_total"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }

    private static long warnings(Path log) throws IOException {
        return Files.readAllLines(log).stream()
                .filter(l -> l.contains("\"level\":\"WARN\"") || l.contains("\"level\":\"ERROR\""))
                .filter(l -> !l.contains("VersionUsageUtils")) // "unstable version v1alpha1", once per type
                .count();
    }

    /** Log lines of the operator that tell of a request that timed out (Fabric8's or the JDK client's words). */
    private static long timeouts(Path log) throws IOException {
        return Files.readAllLines(log).stream()
                .filter(l -> l.matches("(?i).*(timed out|timeout).*"))
                .count();
    }

    /** The namespace the bench's VideoEdge lives in, with the default ServiceAccount its pods name. */
    static void benchNamespace(KubernetesClient admin) {
        admin.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(NS)
                        .endMetadata()
                        .build())
                .create();
        admin.serviceAccounts()
                .inNamespace(NS)
                .resource(new ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName("default")
                        .endMetadata()
                        .build())
                .create();
    }

    /** A client with room for the sims' concurrency (Fabric8 has no client-side rate limit). */
    static KubernetesClient bigClient(RealApiServer api) {
        Config config = Config.fromKubeconfig(api.kubeconfigYaml());
        config.setMaxConcurrentRequests(256);
        config.setMaxConcurrentRequestsPerHost(64);
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    /**
     * A kubeconfig with a token of the operator's ServiceAccount (TokenRequest), as the pod's projected
     * token gives it: the chart's RBAC applies, and the client authenticates as in a cluster.
     */
    private static Path operatorKubeconfig(KubernetesClient admin, RealApiServer api) throws IOException {
        return operatorKubeconfig(admin, api, null);
    }

    /** The same, with the API server reached at {@code server} (a relay in front of it) when not null. */
    static Path operatorKubeconfig(KubernetesClient admin, RealApiServer api, String server) throws IOException {
        String token = admin.serviceAccounts()
                .inNamespace(OperatorHarness.NAMESPACE)
                .withName(OperatorHarness.SERVICE_ACCOUNT)
                .tokenRequest(new io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder()
                        .withNewSpec()
                        .withExpirationSeconds(24 * 3600L)
                        .endSpec()
                        .build())
                .getStatus()
                .getToken();
        io.fabric8.kubernetes.api.model.Config admins =
                Serialization.unmarshal(api.kubeconfigYaml(), io.fabric8.kubernetes.api.model.Config.class);
        var cluster = admins.getClusters().getFirst().getCluster();
        Map<String, Object> clusterEntry = new LinkedHashMap<>();
        clusterEntry.put("server", server == null ? cluster.getServer() : server);
        if (cluster.getCertificateAuthorityData() != null) {
            clusterEntry.put("certificate-authority-data", cluster.getCertificateAuthorityData());
        } else {
            clusterEntry.put("certificate-authority", cluster.getCertificateAuthority());
        }
        String yaml = Serialization.asYaml(Map.of(
                "apiVersion",
                "v1",
                "kind",
                "Config",
                "clusters",
                List.of(Map.of("name", "bench", "cluster", clusterEntry)),
                "users",
                List.of(Map.of("name", "operator", "user", Map.of("token", token))),
                "contexts",
                List.of(Map.of(
                        "name",
                        "bench",
                        "context",
                        Map.of("cluster", "bench", "user", "operator", "namespace", OperatorHarness.NAMESPACE))),
                "current-context",
                "bench"));
        Path file = Files.createTempFile("scale-operator", ".kubeconfig");
        Files.writeString(file, yaml);
        file.toFile().deleteOnExit();
        return file;
    }

    static VideoEdge videoEdge() {
        VideoEdge ve = Serialization.unmarshal(TestFiles.read("examples/videoedge.yaml"), VideoEdge.class);
        ve.getMetadata().setName(NAME);
        ve.getMetadata().setNamespace(NS);
        VideoEdgeSpec s = ve.getSpec()
                .withNodeSelector(Map.of(FLEET_LABEL, NAME))
                .withTls(new TlsSpec(TlsMode.NONE, null, null, null, null))
                .withRollout(new RolloutSpec(
                        "10%",
                        600,
                        Integer.getInteger("scale.soakSeconds", 2),
                        true,
                        Integer.getInteger("scale.drainSeconds", 1)));
        ve.setSpec(s);
        return ve;
    }

    /** A tuning change (a sysctl): every node re-tuned in its turn, no server restarted. */
    static long edit(KubernetesClient admin) {
        return edit(admin, "8192");
    }

    /** Sets net.core.somaxconn to {@code somaxconn} in the bench's VideoEdge; returns its new generation. */
    static long edit(KubernetesClient admin, String somaxconn) {
        AtomicLong generation = new AtomicLong();
        for (int attempt = 0; ; attempt++) {
            try {
                VideoEdge ve = admin.resources(VideoEdge.class)
                        .inNamespace(NS)
                        .withName(NAME)
                        .edit(v -> {
                            v.setSpec(ItEnv.withSysctl(v.getSpec(), "net.core.somaxconn", somaxconn));
                            return v;
                        });
                generation.set(ve.getMetadata().getGeneration());
                return generation.get();
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt > 20) {
                    throw e;
                }
            }
        }
    }

    /** Watches the VideoEdge: its status size, when it first said tuned N/N, whether it settled. */
    static final class StatusWatch implements AutoCloseable {
        private final int n;
        private final SharedIndexInformer<VideoEdge> informer;
        private final AtomicReference<VideoEdge> latest = new AtomicReference<>();
        private final AtomicLong peakStatus = new AtomicLong();
        private final AtomicLong peakObject = new AtomicLong();
        private final AtomicLong peakListed = new AtomicLong();
        private volatile Instant tunedAt;
        private volatile Instant lastReportBeforeTuned;
        private SimAgents agents;

        StatusWatch(KubernetesClient admin, int n) {
            this.n = n;
            informer = admin.resources(VideoEdge.class).inNamespace(NS).runnableInformer(0);
            informer.addEventHandler(new ResourceEventHandler<>() {
                @Override
                public void onAdd(VideoEdge ve) {
                    seen(ve);
                }

                @Override
                public void onUpdate(VideoEdge old, VideoEdge ve) {
                    seen(ve);
                }

                @Override
                public void onDelete(VideoEdge ve, boolean unknown) {}
            });
            informer.run();
        }

        StatusWatch agents(SimAgents agents) {
            this.agents = agents;
            return this;
        }

        private void seen(VideoEdge ve) {
            latest.set(ve);
            VideoEdgeStatus s = ve.getStatus();
            peakObject.accumulateAndGet(Serialization.asJson(ve).getBytes(StandardCharsets.UTF_8).length, Math::max);
            if (s == null) {
                return;
            }
            peakStatus.accumulateAndGet(Serialization.asJson(s).getBytes(StandardCharsets.UTF_8).length, Math::max);
            if (s.nodesNeedingAttention() != null) {
                peakListed.accumulateAndGet(s.nodesNeedingAttention().size(), Math::max);
            }
            if (tunedAt == null && (n + "/" + n).equals(s.tuned())) {
                tunedAt = Instant.now();
                lastReportBeforeTuned = agents == null ? null : agents.lastReport();
            }
        }

        Instant tunedAt() {
            return tunedAt;
        }

        Instant lastReportBeforeTuned() {
            return lastReportBeforeTuned;
        }

        long peakStatusBytes() {
            return peakStatus.get();
        }

        /** The most nodes nodesNeedingAttention ever listed. */
        long peakListed() {
            return peakListed.get();
        }

        /** The VideoEdge as last seen. */
        VideoEdge latest() {
            return latest.get();
        }

        long peakObjectBytes() {
            return peakObject.get();
        }

        void resetRollout() {}

        boolean settled() {
            return rolledOut(1);
        }

        boolean rolledOut(long generation) {
            VideoEdge ve = latest.get();
            if (ve == null || ve.getStatus() == null || ve.getStatus().conditions() == null) {
                return false;
            }
            VideoEdgeStatus s = ve.getStatus();
            String all = n + "/" + n;
            return s.observedGeneration() != null
                    && s.observedGeneration() >= generation
                    && all.equals(s.tuned())
                    && all.equals(s.serving())
                    && all.equals(s.updated())
                    && s.conditions().stream()
                            .anyMatch(c -> Conditions.READY.equals(c.getType()) && "True".equals(c.getStatus()))
                    && s.conditions().stream()
                            .anyMatch(c -> Conditions.PROGRESSING.equals(c.getType())
                                    && Conditions.ROLLOUT_COMPLETE.equals(c.getReason()));
        }

        String summary() {
            VideoEdge ve = latest.get();
            VideoEdgeStatus s = ve == null ? null : ve.getStatus();
            return s == null
                    ? "no status"
                    : "tuned " + s.tuned() + ", serving " + s.serving() + ", updated " + s.updated() + ", generation "
                            + s.observedGeneration();
        }

        @Override
        public void close() {
            informer.close();
        }
    }

    private static String secs(Instant from, Instant to) {
        return String.format("%.1f s", Duration.between(from, to).toMillis() / 1000.0);
    }

    private static void log(String format, Object... args) {
        System.out.printf("[scale-bench %s] %s%n", Instant.now(), String.format(format, args));
    }

    /** The figures of every N as one markdown table, then the writes by resource and verb per N. */
    static String table(List<Result> results) {
        StringBuilder out = new StringBuilder();
        out.append("\n## make scale-bench, ")
                .append(LocalDate.now())
                .append(", ")
                .append(machine())
                .append("\n\n| figure |");
        results.forEach(r -> out.append(' ').append(r.nodes()).append(" nodes |"));
        out.append("\n|---|");
        results.forEach(r -> out.append("---|"));
        out.append('\n');
        TreeSet<String> seen = new TreeSet<>();
        List<String> rows = new ArrayList<>();
        results.forEach(r -> r.figures().keySet().forEach(k -> {
            if (seen.add(k)) {
                rows.add(k);
            }
        }));
        for (String row : rows) {
            out.append("| ").append(row).append(" |");
            results.forEach(r ->
                    out.append(' ').append(r.figures().getOrDefault(row, "")).append(" |"));
            out.append('\n');
        }
        for (Result r : results) {
            out.append("\nAPI writes at ")
                    .append(r.nodes())
                    .append(" nodes (resource verb: all clients / simulated cluster):\n\n");
            Map<String, Long> all = new TreeMap<>(r.api().writes());
            for (var e : all.entrySet()) {
                out.append(String.format(
                        "- %s: %d / %d%n",
                        e.getKey(), e.getValue(), r.simWrites().getOrDefault(e.getKey(), 0L)));
            }
            if (!r.api().failedWrites().isEmpty()) {
                out.append("\nFailed (all clients, API server metrics): ")
                        .append(r.api().failedWrites())
                        .append('\n');
            }
            out.append("\nThe operator's writes (audit log; server-side apply is a PATCH there): ")
                    .append(r.operatorWrites().all())
                    .append("; failed: ")
                    .append(r.operatorWrites().failed())
                    .append('\n');
            if (!r.notes().isEmpty()) {
                out.append("\nNotes: ").append(r.notes()).append('\n');
            }
        }
        return out.toString();
    }

    private static String machine() {
        try {
            String cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name"))
                    .findFirst()
                    .map(l -> l.substring(l.indexOf(':') + 2))
                    .orElse("?");
            long mem = Files.readAllLines(Path.of("/proc/meminfo")).stream()
                    .filter(l -> l.startsWith("MemTotal"))
                    .mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", "")))
                    .findFirst()
                    .orElse(0);
            return Runtime.getRuntime().availableProcessors() + " CPUs (" + cpu + "), " + (mem >> 20) + " GiB RAM";
        } catch (IOException e) {
            return "?";
        }
    }
}
