package io.videoedge.agent.k8s;

import static io.videoedge.agent.testing.Specs.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.Config;
import io.videoedge.agent.testing.FakeNode;
import io.videoedge.agent.testing.TlsClientFloor;
import io.videoedge.api.Conditions;
import io.videoedge.api.NodeTuning;
import io.videoedge.testing.RealApiServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged agent as a process with the JVM flags the image uses, against the real API
 * server: serves /healthz and /metrics on its port, tunes (a fake tree), then idles through
 * drift checks; its resident memory is read from /proc/PID/status, printed and written to
 * target/agent-idle-rss.txt, and must stay within the regression guard below.
 */
class AgentFootprintIT {
    /** The flags the image runs the agent with, with MALLOC_ARENA_MAX=2 (node-tuning/README.md). */
    static final List<String> JVM_FLAGS = List.of(
            "-XX:+UseSerialGC",
            "-Xms4m",
            "-Xmx16m",
            "-XX:MinHeapFreeRatio=10",
            "-XX:MaxHeapFreeRatio=30",
            "-Xss256k",
            "-Xint",
            "-XX:MaxMetaspaceSize=48m",
            "-XX:MaxDirectMemorySize=4m",
            "-XX:+UseCompactObjectHeaders",
            "-XX:-UsePerfData",
            "-Xshare:off");
    /**
     * The budget asked for is 48 MiB; the agent on the Fabric8 client measures 83-87.4 MiB with these
     * flags (README, footprint; 87.4 on 2026-11-28), so the test guards that figure against
     * regressions, a few MiB above it and under the 96 MiB the project settled on, instead of claiming
     * the goal. (88 MiB left 0.6 MiB between a normal run and a red one.)
     */
    static final long BUDGET_KIB = 92 * 1024;

    /** -Dagent.jvm.flags overrides the list, to compare settings. */
    static List<String> flags() {
        String o = System.getProperty("agent.jvm.flags");
        return o == null || o.isBlank() ? JVM_FLAGS : List.of(o.strip().split("\\s+"));
    }

    @TempDir
    Path tmp;

    @Test
    void idleAgentResidentMemoryIsMeasuredAndStaysWithinItsGuard() throws Exception {
        RealApiServer api = RealApiServer.shared();
        String node = "footprint-node";
        // the process runs the real ethtool: the fake NIC has a name no host interface has, so every
        // ethtool query fails with "No such device" and nothing of the host is touched
        FakeNode fs = new FakeNode(Files.createDirectories(tmp.resolve("root")))
                .cpus(8)
                .defaultRoute("vefake0")
                .nic("vefake0", "mlx5_core", 4, 40, 0);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String jar = System.getProperty("node-tuning.jar");
        Process agent = startJvm(
                jar + ":" + Path.of(jar).getParent().resolve("lib") + "/*",
                tmp.resolve("agent.log"),
                Map.of("NODE_NAME", node, "KUBECONFIG", api.kubeconfigFile().toString()),
                "io.videoedge.agent.NodeTuningMain",
                "agent",
                "--root",
                fs.root().toString(),
                "--journal",
                tmp.resolve("journal.json").toString(),
                "--drift-interval",
                "1s",
                "--metrics-port",
                Integer.toString(port));
        try (var client = api.newClient()) {
            NodeTuning nt = new NodeTuning();
            nt.getMetadata().setName(node);
            nt.setSpec(spec().interfaces("vefake0")
                    .rfs(32768)
                    .sysctls(Map.of("vm.swappiness", "0"))
                    .build());
            client.resource(nt).create();
            HttpClient http = HttpClient.newHttpClient();
            await().atMost(Duration.ofSeconds(90))
                    .ignoreExceptions()
                    .until(() -> http.send(
                                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz"))
                                                    .build(),
                                            HttpResponse.BodyHandlers.ofString())
                                    .statusCode()
                            == 200);
            await().atMost(Duration.ofSeconds(90)).until(() -> {
                NodeTuning got =
                        client.resources(NodeTuning.class).withName(node).get();
                return got.getStatus() != null
                        && got.getStatus().conditions().stream()
                                .anyMatch(c -> c.getType().equals(Conditions.APPLIED)
                                        && c.getStatus().equals("True"));
            });
            // idle: let it run 20 drift checks that find nothing to do
            await().atMost(Duration.ofSeconds(120)).until(() -> passes(http, port) >= 20);
            String metrics = http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            assertThat(metrics).contains("videoedge_agent_settings{state=\"Applied\"}");
            long rssKib = vmRss(agent.pid());
            String detail = io.videoedge.agent.testing.Shell.run(
                    "grep", "-E", "^(VmRSS|RssAnon|RssFile|Threads)", "/proc/" + agent.pid() + "/status");
            System.out.printf(
                    "node agent idle RSS: %d KiB (%.1f MiB) with %s%n%s%n",
                    rssKib, rssKib / 1024.0, String.join(" ", flags()), detail);
            writeRss("agent-idle-rss.txt", rssKib);
            assertThat(rssKib)
                    .as("idle RSS in KiB, log: %s", Files.readString(tmp.resolve("agent.log")))
                    .isLessThanOrEqualTo(BUDGET_KIB);
            assertThat(fs.value("proc/sys/vm/swappiness")).isEqualTo("0");
            client.resources(NodeTuning.class).withName(node).delete();
            await().atMost(Duration.ofSeconds(60))
                    .until(() ->
                            client.resources(NodeTuning.class).withName(node).get() == null);
            assertThat(fs.value("proc/sys/vm/swappiness")).isEqualTo("60");
        } finally {
            agent.destroy();
            agent.waitFor();
            System.out.println("agent log:\n" + Files.readString(tmp.resolve("agent.log")));
        }
    }

    /**
     * The floor under the agent: a JVM with the same flags that only verifies the API server's
     * certificate and sends it 20 HTTP/1.1 requests over TLS (TlsClientFloor), then idles. What it
     * takes is what any agent on this JVM takes before JSON, a watch or any tuning.
     */
    @Test
    void aJvmThatOnlyTalksTlsToTheApiServerSetsTheFloor() throws Exception {
        RealApiServer api = RealApiServer.shared();
        Config config = Config.fromKubeconfig(api.kubeconfigYaml());
        Path ca = tmp.resolve("ca.pem");
        if (config.getCaCertData() != null) {
            Files.write(ca, Base64.getDecoder().decode(config.getCaCertData()));
        } else {
            Files.copy(Path.of(config.getCaCertFile()), ca);
        }
        String classes = Path.of(TlsClientFloor.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI())
                .toString();
        Process floor = startJvm(
                classes,
                tmp.resolve("floor.log"),
                Map.of(),
                TlsClientFloor.class.getName(),
                config.getMasterUrl().replaceAll("/$", ""),
                ca.toString());
        try {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> Files.readString(tmp.resolve("floor.log")).contains("idle"));
            Thread.sleep(3000);
            long rssKib = vmRss(floor.pid());
            List<String> statuses = Files.readAllLines(tmp.resolve("floor.log")).stream()
                    .filter(l -> l.matches("[0-9]{3}"))
                    .toList();
            // 20 answers over verified TLS (200, or 401/403 where anonymous requests are refused): not a server error
            assertThat(statuses)
                    .as(Files.readString(tmp.resolve("floor.log")))
                    .hasSize(20)
                    .allMatch(status -> status.matches("200|401|403"));
            assertThat(rssKib)
                    .as("a floor: what the agent takes before its own work, so under the agent's guard")
                    .isPositive()
                    .isLessThan(BUDGET_KIB);
            System.out.printf(
                    "TLS-client floor RSS: %d KiB (%.1f MiB), HTTP statuses %s, with %s%n",
                    rssKib, rssKib / 1024.0, new TreeSet<>(statuses), String.join(" ", flags()));
            writeRss("tls-floor-rss.txt", rssKib);
        } finally {
            floor.destroy();
            floor.waitFor();
        }
    }

    /** A JVM with the flags under test and the image's MALLOC_ARENA_MAX, output to log. */
    private static Process startJvm(
            String classpath, Path log, Map<String, String> env, String mainClass, String... args) throws IOException {
        List<String> cmd =
                new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
        cmd.addAll(flags());
        cmd.addAll(List.of("-cp", classpath, mainClass));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        pb.environment().put("MALLOC_ARENA_MAX", "2");
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        return pb.start();
    }

    /** The figure and the flags, next to the jar (target/), for the README and comparisons. */
    private static void writeRss(String file, long rssKib) throws IOException {
        Files.writeString(
                Path.of(System.getProperty("node-tuning.jar")).getParent().resolve(file),
                rssKib + " KiB\n" + String.join(" ", flags()) + "\n");
    }

    private static double passes(HttpClient http, int port) throws IOException, InterruptedException {
        String body = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        return body.lines()
                .filter(l -> l.startsWith("videoedge_agent_apply_passes_total "))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.indexOf(' ') + 1)))
                .findFirst()
                .orElse(0);
    }

    private static long vmRss(long pid) throws IOException {
        return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
                .filter(l -> l.startsWith("VmRSS:"))
                .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")))
                .findFirst()
                .orElseThrow();
    }
}
