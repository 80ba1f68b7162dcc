package io.videoedge.testing;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * A real kube-apiserver + etcd on loopback for the *IT tier, one per test JVM (startup ~7 s),
 * with the project's CRDs applied. Binaries come from `make k8s-binaries` (built from the Go
 * module proxy); when they are missing the first test fails with that instruction, never skips.
 *
 * <p>There is no controller-manager: namespaces never finish deleting and garbage collection of
 * owned objects does not happen. Tests use a fresh namespace each and do not rely on either.
 */
public final class RealApiServer {
    private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(2);
    private static RealApiServer shared;

    private final KubeAPIServer server;
    private final String kubeconfigYaml;
    private final Path kubeconfigFile;
    private final Path kubectl;
    private final AtomicInteger namespaces = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();

    private RealApiServer() {
        this(List.of());
    }

    /** @param flags extra kube-apiserver flags, each "--name=value" */
    private RealApiServer(List<String> flags) {
        String version = System.getProperty("kube.version", "1.34.4");
        Path testDir =
                Path.of(System.getProperty("kube.api.test.dir", System.getProperty("user.home") + "/.kubeapitest"));
        Path binDir = testDir.resolve("k8s").resolve(version + "-linux-amd64");
        for (String binary : List.of("kube-apiserver", "etcd", "kubectl")) {
            if (!Files.isExecutable(binDir.resolve(binary))) {
                throw new IllegalStateException(binary + " " + version + " not found in " + binDir
                        + ": run `make k8s-binaries` (builds it from the Go module proxy) or `make test`, which does");
            }
        }
        kubectl = binDir.resolve("kubectl");
        server = startOnFreshPorts(() -> {
            KubeAPIServerConfigBuilder config = KubeAPIServerConfigBuilder.anAPIServerConfig();
            flags.forEach(config::withApiServerFlag);
            return new KubeAPIServer(config.withTestDir(testDir.toString())
                    .withApiServerVersion(version)
                    .withOfflineMode(true)
                    // kube-api-test binds etcd on 0.0.0.0; keep the API server itself on loopback
                    .withApiServerFlag("--bind-address", "127.0.0.1")
                    .withStartupTimeout((int) STARTUP_TIMEOUT.toMillis())
                    .build());
        });
        kubeconfigYaml = server.getKubeConfigYaml();
        try {
            kubeconfigFile = Files.createTempFile("videoedge-it-kubeconfig", ".yaml");
            Files.writeString(kubeconfigFile, kubeconfigYaml);
            kubeconfigFile.toFile().deleteOnExit();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(this::stop, "kube-apiserver-stop"));
    }

    /**
     * Starts an API server and its etcd, once more on new ports if the first start fails: kube-api-test
     * picks its three ports by binding and closing a probe each, so another process (or one of the API
     * server's own connections to etcd) can take one before it is bound.
     */
    private static KubeAPIServer startOnFreshPorts(Supplier<KubeAPIServer> create) {
        waitOutMidnight();
        KubeAPIServer first = create.get();
        try {
            first.start();
            return first;
        } catch (RuntimeException e) {
            try {
                first.stop();
            } catch (RuntimeException stopFailed) {
                e.addSuppressed(stopFailed);
            }
            System.err.println("kube-apiserver did not start (" + e + "); once more on new ports");
            waitOutMidnight();
            KubeAPIServer second = create.get();
            second.start();
            return second;
        }
    }

    /**
     * kube-api-test 7.6.1 times a start with {@code LocalTime} ({@code ProcessReadinessChecker.pollWithTimeout}:
     * now, plus the timeout, compared as times of day), so a start whose timeout would run past midnight in the
     * JVM's zone ends at its first poll with "Kube API Server did not start properly" (a CI run's ScaleIT,
     * started at 23:59:42, failed so twice within a second). Such a start waits for the date to turn.
     */
    private static void waitOutMidnight() {
        LocalTime now = LocalTime.now();
        Duration window = STARTUP_TIMEOUT.plusSeconds(10);
        if (!now.plus(window).isBefore(now)) return; // the deadline is later the same day
        Duration left = Duration.between(now, LocalTime.MAX).plusSeconds(1);
        System.err.println("kube-apiserver: waiting " + left.toSeconds()
                + " s for midnight, which kube-api-test's start timeout cannot cross");
        try {
            Thread.sleep(left);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for midnight", e);
        }
    }

    /**
     * An API server with an etcd of its own, the CRDs established, for a test that measures it alone
     * (its request counts, its objects); {@link #stop()} it when done. Not the shared one.
     */
    public static RealApiServer startNew() {
        return startNew(List.of());
    }

    /** The same, with extra kube-apiserver flags ("--audit-log-path=/tmp/audit.log"). */
    public static RealApiServer startNew(List<String> flags) {
        RealApiServer s = new RealApiServer(flags);
        s.applyCrds();
        return s;
    }

    /** Stops this API server and its etcd (once: the JVM's shutdown hook calls it too). */
    public void stop() {
        if (stopped.compareAndSet(false, true)) {
            server.stop();
        }
    }

    /** The API server of this test JVM, started on first use, with the CRDs under crds/ established. */
    public static synchronized RealApiServer shared() {
        if (shared == null) {
            shared = new RealApiServer();
            shared.applyCrds();
        }
        return shared;
    }

    public KubernetesClient newClient() {
        return new KubernetesClientBuilder()
                .withConfig(Config.fromKubeconfig(kubeconfigYaml))
                .build();
    }

    public String kubeconfigYaml() {
        return kubeconfigYaml;
    }

    public Path kubeconfigFile() {
        return kubeconfigFile;
    }

    /** A new namespace named prefix-N. */
    public String createNamespace(String prefix) {
        String name = prefix + "-" + namespaces.incrementAndGet();
        try (KubernetesClient client = newClient()) {
            client.namespaces()
                    .resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(name)
                            .endMetadata()
                            .build())
                    .create();
        }
        return name;
    }

    /** The CRD files, from -Dvideoedge.crds.dir (the repository's crds/). */
    public static List<Path> crdFiles() {
        Path dir = Path.of(System.getProperty("videoedge.crds.dir", "../crds"));
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> crds =
                    files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
            if (crds.isEmpty()) {
                throw new IllegalStateException("no CRDs in " + dir.toAbsolutePath() + ": run `make crds`");
            }
            return crds;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Applies the project's CRDs and waits until the API server serves them. */
    public void applyCrds() {
        try (KubernetesClient client = newClient()) {
            for (Path file : crdFiles()) {
                try (InputStream in = Files.newInputStream(file)) {
                    CustomResourceDefinition crd = client.apiextensions()
                            .v1()
                            .customResourceDefinitions()
                            .load(in)
                            .item();
                    client.resource(crd).forceConflicts().serverSideApply();
                    awaitEstablished(client, crd.getMetadata().getName());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    /** Waits until the API server serves the named CRD (its status may have no conditions at first). */
    public static void awaitEstablished(KubernetesClient client, String crdName) {
        client.apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName(crdName)
                .waitUntilCondition(
                        c -> c != null
                                && c.getStatus() != null
                                && c.getStatus().getConditions() != null
                                && c.getStatus().getConditions().stream()
                                        .anyMatch(cond -> "Established".equals(cond.getType())
                                                && "True".equals(cond.getStatus())),
                        60,
                        TimeUnit.SECONDS);
    }

    /** Runs the real kubectl against this API server; returns stdout, fails with stderr on a non-zero exit. */
    public String kubectl(String... args) {
        Result r = kubectlResult(args);
        if (r.exitCode() != 0) {
            throw new AssertionError(
                    "kubectl " + String.join(" ", args) + " exited " + r.exitCode() + ": " + r.stderr());
        }
        return r.stdout();
    }

    /** Runs kubectl and returns exit code, stdout and stderr (for commands expected to fail). */
    public Result kubectlResult(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(kubectl.toString());
        cmd.add("--kubeconfig=" + kubeconfigFile);
        cmd.addAll(List.of(args));
        return run(Duration.ofSeconds(60), cmd);
    }

    /** Runs a command with a deadline; its output goes through files, so a chatty child never blocks on a pipe. */
    public static Result run(Duration timeout, List<String> cmd) {
        try {
            Path out = Files.createTempFile("cmd", ".out");
            Path err = Files.createTempFile("cmd", ".err");
            Process p = new ProcessBuilder(cmd)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(String.join(" ", cmd) + " did not finish in " + timeout.toSeconds() + " s");
            }
            Result r = new Result(p.exitValue(), Files.readString(out), Files.readString(err));
            Files.delete(out);
            Files.delete(err);
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    public record Result(int exitCode, String stdout, String stderr) {}
}
