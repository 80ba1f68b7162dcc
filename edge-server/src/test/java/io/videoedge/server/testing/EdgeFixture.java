package io.videoedge.server.testing;

import io.videoedge.server.EdgeService;
import io.videoedge.server.config.ConfigException;
import io.videoedge.server.config.ConfigLoader;
import io.videoedge.server.config.ConfigOverrides;
import io.videoedge.server.config.ConfigWriter;
import io.videoedge.server.config.EdgeServerConfig;
import io.videoedge.server.sample.SampleContent;
import java.io.IOException;
import java.net.BindException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A real edge server on loopback, in this JVM: generated sample content, a self-signed certificate,
 * free ports, a config file written and loaded through the same ConfigLoader as production.
 */
public final class EdgeFixture implements AutoCloseable {
    public final Path dir;
    public final Path content;
    public final Path tickets;
    /** The bearer token of POST /admin/purge ({@link #ADMIN_TOKEN}), in admin.tokenFile. */
    public final Path adminTokenFile;

    public static final String ADMIN_TOKEN = "test-admin-token-0123456789";
    public int httpPort;
    public int httpsPort;
    public int adminPort;
    public EdgeService service;
    public Process process;
    /** How long the last start of the server process took to become ready. */
    public Duration readyAfter;

    public Path processLog;
    private final String extraYaml;
    private UnaryOperator<String> edit = UnaryOperator.identity();
    /** Where the server reads its config: edge-server.yaml, or a ConfigMap-like volume's symlink (see {@link #startWatched}). */
    private Path configFile;

    private boolean configMapLayout;
    private int generation;
    private final HttpClient http;
    private final HttpClient https;
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(60);

    private EdgeFixture(String extraYaml, boolean benchSizes) throws IOException {
        this.extraYaml = extraYaml;
        this.dir = TempDirs.create("edge-it");
        this.content = dir.resolve("content");
        this.tickets = dir.resolve("tickets");
        SampleContent.generate(content, benchSizes);
        this.adminTokenFile = dir.resolve("admin-token");
        Files.writeString(adminTokenFile, ADMIN_TOKEN + "\n");
        // java.net.http's connect timeout covers the TLS handshake too: a client's first handshake in a cold
        // JVM took 10-12 s in the VM tier (qemu without KVM), so it is a guard against a hang, not a budget.
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(CONNECT_TIMEOUT)
                .build();
        this.https = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .sslContext(TestCerts.trustingContext())
                .connectTimeout(CONNECT_TIMEOUT)
                .build();
    }

    public static EdgeFixture start() throws Exception {
        return start("");
    }

    /** @param extraYaml top-level config lines appended to the default config (e.g. "drainTimeout: 10s") */
    public static EdgeFixture start(String extraYaml) throws Exception {
        return start(extraYaml, false);
    }

    public static EdgeFixture start(String extraYaml, boolean benchSizes) throws Exception {
        EdgeFixture f = new EdgeFixture(extraYaml, benchSizes);
        f.startService();
        return f;
    }

    /** A server in this JVM whose default config text is changed by {@code edit} before it is written. */
    public static EdgeFixture startEdited(UnaryOperator<String> edit) throws Exception {
        EdgeFixture f = new EdgeFixture("", false);
        f.edit = edit;
        f.startService();
        return f;
    }

    /**
     * A server in this JVM that watches its config file like the container does ({@code --config} on a
     * ConfigMap volume, re-read every {@code reloadInterval}): the file is laid out as the kubelet lays
     * out a ConfigMap ({@code edge-server.yaml -> ..data/edge-server.yaml}, {@code ..data -> ..<timestamp>}),
     * and {@link #swapConfig} replaces it the way the kubelet does.
     *
     * @param edit applied to the default config text before it is written
     */
    public static EdgeFixture startWatched(UnaryOperator<String> edit, boolean benchSizes, Duration reloadInterval)
            throws Exception {
        EdgeFixture f = new EdgeFixture("", benchSizes);
        f.edit = edit;
        f.configMapLayout = true;
        for (int attempt = 1; ; attempt++) {
            Path config = f.writeConfigOnFreePorts();
            try {
                f.service = EdgeService.start(config, ConfigLoader.read(config), reloadInterval);
                return f;
            } catch (BindException e) {
                if (attempt == 3) throw e;
            }
        }
    }

    /** The path the server was started with (a symlink in the ConfigMap layout). */
    public Path configFile() {
        return configFile;
    }

    /**
     * Replaces the config as the kubelet updates a ConfigMap volume (its AtomicWriter): the new content
     * goes into a new timestamped directory, a {@code ..data_tmp} symlink to it is renamed over
     * {@code ..data} (one atomic rename), and the old directory is removed.
     */
    public void swapConfig(String text) throws IOException {
        if (!configMapLayout) throw new IllegalStateException("started without the ConfigMap layout");
        Path volume = configFile.getParent();
        Path data = volume.resolve("..data");
        Path old = volume.resolve(Files.readSymbolicLink(data));
        String name = "..%s.%09d"
                .formatted(
                        LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy_MM_dd_HH_mm_ss")), ++generation);
        Path fresh = Files.createDirectory(volume.resolve(name));
        Files.writeString(fresh.resolve("edge-server.yaml"), text);
        Path tmp = volume.resolve("..data_tmp");
        Files.deleteIfExists(tmp);
        Files.createSymbolicLink(tmp, Path.of(name));
        Files.move(tmp, data, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Files.delete(old.resolve("edge-server.yaml"));
        Files.delete(old);
    }

    /** Stops the in-process server (gracefully) and starts a new one on the same config and directories. */
    public void restart() throws Exception {
        service.shutdown();
        service = null;
        service = EdgeService.start(ConfigLoader.load(configFile));
    }

    /**
     * The server as a separate JVM running EdgeServerMain, as the container does (for measuring the
     * server process alone: direct memory, file descriptors).
     */
    public static EdgeFixture startProcess(String extraYaml, boolean benchSizes, String... jvmArgs) throws Exception {
        return startProcess(extraYaml, benchSizes, java.util.List.of(), jvmArgs);
    }

    /** @param programArgs EdgeServerMain options after {@code --config FILE} */
    public static EdgeFixture startProcess(
            String extraYaml, boolean benchSizes, java.util.List<String> programArgs, String... jvmArgs)
            throws Exception {
        return startProcess(java.util.List.of(), extraYaml, benchSizes, programArgs, jvmArgs);
    }

    /**
     * @param launcher a command that runs the JVM, e.g. {@code taskset -c 1} (it must exec the command,
     *                 so the process is the server)
     */
    public static EdgeFixture startProcess(
            java.util.List<String> launcher,
            String extraYaml,
            boolean benchSizes,
            java.util.List<String> programArgs,
            String... jvmArgs)
            throws Exception {
        EdgeFixture f = new EdgeFixture(extraYaml, benchSizes);
        f.startProcess(launcher, programArgs, jvmArgs);
        return f;
    }

    private java.util.List<String> launcher = java.util.List.of();
    private java.util.List<String> programArgs = java.util.List.of();
    private String[] jvmArgs = new String[0];

    /**
     * Stops the server process with SIGTERM (the graceful path) and waits for it to exit.
     *
     * @return its exit code, or -1 when it had not exited after {@code timeout} (it is then killed)
     */
    public int stopProcess(Duration timeout) throws InterruptedException {
        process.destroy();
        if (process.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
            return process.exitValue();
        }
        process.destroyForcibly().waitFor();
        return -1;
    }

    /** Starts the server process again, as {@link #startProcess} did, on the same directories (new free ports). */
    public void restartProcess() throws Exception {
        if (process != null && process.isAlive()) throw new IllegalStateException("the server process still runs");
        startProcess(launcher, programArgs, jvmArgs);
    }

    /**
     * How long a server process may take to become ready: 60 s, or the system property
     * videoedge.test.readySeconds (the VM tier runs its JVMs in software emulation, where a start takes
     * 30-70 s; its own edge server is given 300 s).
     */
    static final Duration READY_TIMEOUT = Duration.ofSeconds(Long.getLong("videoedge.test.readySeconds", 60));

    private void startProcess(java.util.List<String> launcher, java.util.List<String> programArgs, String... jvmArgs)
            throws Exception {
        this.launcher = launcher;
        this.programArgs = programArgs;
        this.jvmArgs = jvmArgs;
        String classpath = System.getProperty("videoedge.runtime.classpath");
        if (classpath == null)
            throw new IllegalStateException("videoedge.runtime.classpath not set (run through Maven failsafe)");
        for (int attempt = 1; ; attempt++) {
            Path config = writeConfigOnFreePorts();
            java.util.List<String> cmd = new java.util.ArrayList<>(launcher);
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(
                    java.util.List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"));
            cmd.addAll(java.util.List.of(jvmArgs));
            cmd.addAll(java.util.List.of(
                    "-cp", classpath, "io.videoedge.server.EdgeServerMain", "--config", config.toString()));
            cmd.addAll(programArgs);
            processLog = dir.resolve("server-" + attempt + ".log");
            long started = System.nanoTime();
            process = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(processLog.toFile())
                    .start();
            try {
                org.awaitility.Awaitility.await("server process ready")
                        .atMost(READY_TIMEOUT)
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> !process.isAlive() || ready());
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                process.destroyForcibly();
                throw new AssertionError(
                        "server did not become ready in %d s:%n%s"
                                .formatted(READY_TIMEOUT.toSeconds(), Files.readString(processLog)),
                        e);
            }
            if (process.isAlive()) {
                readyAfter = Duration.ofNanos(System.nanoTime() - started);
                return;
            }
            String log = Files.readString(processLog);
            if (attempt == 3 || !log.contains("Address already in use")) {
                throw new AssertionError("server exited with " + process.exitValue() + ":\n" + log);
            }
        }
    }

    private boolean ready() {
        try {
            return get(admin("/readyz")).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void startService() throws Exception {
        for (int attempt = 1; ; attempt++) {
            Path config = writeConfigOnFreePorts();
            try {
                service = EdgeService.start(ConfigLoader.load(config));
                return;
            } catch (BindException e) {
                if (attempt == 3) throw e; // another process took a port between probe and bind
            }
        }
    }

    /** Picks free ports and writes the config for them; returns the config file. */
    private Path writeConfigOnFreePorts() throws IOException {
        int[] ports = FreePorts.distinct(3);
        httpPort = ports[0];
        httpsPort = ports[1];
        adminPort = ports[2];
        if (!configMapLayout) {
            configFile = dir.resolve("edge-server.yaml");
            Files.writeString(configFile, edit.apply(configText()));
            return configFile;
        }
        Path volume = Files.createDirectories(dir.resolve("configmap"));
        configFile = volume.resolve("edge-server.yaml");
        if (!Files.exists(configFile, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Path first = Files.createDirectory(volume.resolve("..first"));
            Files.createSymbolicLink(volume.resolve("..data"), first.getFileName());
            Files.createSymbolicLink(configFile, Path.of("..data", "edge-server.yaml"));
        }
        Files.writeString(configFile, edit.apply(configText())); // through the links, into the current directory
        return configFile;
    }

    /** Where this fixture's server writes its access log (standard output would be the test's). */
    public Path accessLogFile() {
        return dir.resolve("access.log");
    }

    /**
     * The golden rendering (testdata/edge-server/edge-server.yaml, what the operator renders for
     * examples/videoedge.yaml) made local: loopback addresses, free ports, this fixture's certificate,
     * ticket and content directories, two selectors, tighter limits; then {@code extraYaml} appended
     * (a section there replaces the one above, as ConfigParser reads it).
     */
    public String configText() {
        EdgeServerConfig c;
        try {
            c = ConfigLoader.parse(Files.readString(TestData.goldenConfig()), "golden");
        } catch (IOException | ConfigException e) {
            throw new IllegalStateException(e);
        }
        ConfigOverrides.apply(
                c,
                List.of(
                        "selectors=2",
                        "acceptors[].address=127.0.0.1",
                        "acceptors[0].port=" + httpPort,
                        "acceptors[1].port=" + httpsPort,
                        // the TLS acceptor with one-nio's defaults but for the send buffer
                        "acceptors[1].recvBuf=0",
                        "acceptors[1].notsentLowat=0",
                        "acceptors[1].backlog=128",
                        "acceptors[1].ssl.certFile=" + TestCerts.cert(),
                        "acceptors[1].ssl.privateKeyFile=" + TestCerts.key(),
                        "acceptors[1].ssl.ticketDir=" + tickets,
                        // one-nio's default refresh; tests that need another set it
                        "acceptors[1].ssl.refreshInterval=0",
                        "admin.address=127.0.0.1",
                        "admin.port=" + adminPort,
                        "admin.tokenFile=" + adminTokenFile,
                        "content.root=" + content,
                        "limits.maxUriLength=2k",
                        "limits.maxConnections=1000",
                        "accessLog.path=" + accessLogFile(),
                        "cache.disk.path=",
                        // the server's own keys, rotated hourly (the shared keys' Secret is the operator's)
                        "ticketKeys.source=",
                        "ticketKeys.rotation=1h"));
        return ConfigWriter.write(c, "EdgeFixture: the golden config made local") + extraYaml;
    }

    public URI http(String path) {
        return URI.create("http://127.0.0.1:" + httpPort + path);
    }

    public URI https(String path) {
        return URI.create("https://localhost:" + httpsPort + path);
    }

    public URI admin(String path) {
        return URI.create("http://127.0.0.1:" + adminPort + path);
    }

    public HttpResponse<byte[]> get(URI uri, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60));
        if (headers.length > 0) b.headers(headers);
        return (uri.getScheme().equals("https") ? https : http)
                .send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    public String metrics() throws IOException, InterruptedException {
        return new String(get(admin("/metrics")).body(), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** A metric sample's value from the Prometheus text, e.g. value("videoedge_connections"), or 0 when absent. */
    public double metric(String series) throws IOException, InterruptedException {
        return Metrics.value(metrics(), series);
    }

    /**
     * Waits up to 5 s for a counter to reach {@code expected}, for counts made just after the response a
     * test has read (a fill counts its result when it finishes, after its error response went out).
     */
    public void awaitMetric(String series, double expected) {
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> org.assertj.core.api.Assertions.assertThat(metric(series))
                        .as(series)
                        .isEqualTo(expected));
    }

    /** A sample that must be exposed (gauges, unlabelled counters); fails when it is not. */
    public double gauge(String series) throws IOException, InterruptedException {
        return Metrics.required(metrics(), series);
    }

    public byte[] file(String relative) throws IOException {
        return Files.readAllBytes(content.resolve(relative));
    }

    @Override
    public void close() throws IOException {
        if (service != null) {
            service.shutdown();
        }
        if (process != null) {
            process.destroy(); // SIGTERM: the graceful path
            try {
                if (!process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) process.destroyForcibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
        TempDirs.remove(dir);
    }
}
