package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.videoedge.server.config.ConfigLoader;
import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.FreePorts;
import io.videoedge.server.testing.Tools;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line as the container runs it: java -cp 'classes:lib/*' io.videoedge.server.EdgeServerMain. */
class EdgeServerMainIT {
    private static Tools.Result main(String... args) {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow",
                "-cp",
                System.getProperty("videoedge.runtime.classpath"),
                "io.videoedge.server.EdgeServerMain"));
        cmd.addAll(List.of(args));
        return Tools.run(cmd);
    }

    @Test
    void helpDescribesTheOptions() {
        Tools.Result r = main("--help");
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout())
                .contains("--config=FILE")
                .contains("--check")
                .contains("Exit codes")
                .contains("--reload-interval=DURATION")
                .contains("Default: 2s");
    }

    @Test
    void aReloadIntervalWithoutAUnitIsRefused(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("edge.yaml");
        Files.writeString(config, "acceptors:\n- port: 18080\ncontent:\n  root: " + dir + "\n");
        Tools.Result r = main("--config", config.toString(), "--check", "--reload-interval", "2");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr()).contains("'2' is not a duration");
    }

    /** The container's command line: the start log names the config's checksum, and a rewritten file is applied live. */
    @Test
    void theServerLogsItsConfigChecksumAndAppliesALiveChangeToItsFile() throws Exception {
        try (EdgeFixture edge = EdgeFixture.startProcess("", false, List.of("--reload-interval", "200ms"))) {
            Path config = edge.dir.resolve("edge-server.yaml");
            String text = Files.readString(config);
            String sha = ConfigLoader.sha256(text.getBytes(StandardCharsets.UTF_8));
            // logged just after /readyz answers (the fixture's start waits for that)
            awaitLogged(edge, "{\"configChecksum\":\"" + sha + "\"}", "{\"reloadIntervalMs\":\"200\"}");
            assertThat(edge.metrics()).contains("videoedge_config_info{checksum=\"" + sha + "\"} 1");

            Path next = edge.dir.resolve("edge-server.yaml.tmp");
            Files.writeString(next, text.replace("keepAlive: 2m", "keepAlive: 1m"));
            Files.move(next, config, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(edge.metric("videoedge_config_reloads_total{result=\"applied\"}"))
                            .isEqualTo(1));
            // logged just after the reload is counted
            awaitLogged(edge, "config applied live, no restart", "keepAlive: 120000 -> 60000");
            assertThat(edge.process.isAlive()).isTrue();
        }
    }

    @Test
    void aBadConfigExitsWith2NamingFileAndFieldBeforeBindingAnything(@TempDir Path dir) throws Exception {
        int port = FreePorts.distinct(1)[0];
        Path config = dir.resolve("edge.yaml");
        Files.writeString(config, "acceptors:\n- port: " + port + "\n  sendBuff: 4m\ncontent:\n  root: " + dir + "\n");
        Tools.Result r = main("--config", config.toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr()).contains(config + ":3: acceptors[0].sendBuff: unknown field (did you mean 'sendBuf'?)");
        try (ServerSocket stillFree = new ServerSocket(port)) {
            assertThat(stillFree.getLocalPort()).isEqualTo(port);
        }
    }

    @Test
    void checkValidatesAndReportsTheNativeLibrary(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("edge.yaml");
        Files.writeString(config, "acceptors:\n- port: 18080\ncontent:\n  root: " + dir + "\n");
        Tools.Result r = main("--config", config.toString(), "--check");
        assertThat(r.exitCode()).as(r.all()).isZero();
        assertThat(r.stdout()).contains("is valid").contains("native library videoedge-built one-nio=2.3.0");
    }

    @Test
    void anUnusableDiskCacheDirectoryExitsWith1NamingTheFieldInOneLine(@TempDir Path dir) throws Exception {
        int[] ports = FreePorts.distinct(2);
        int port = ports[0];
        int adminPort = ports[1];
        Path notADirectory = Files.writeString(dir.resolve("cache"), "a file");
        Path config = dir.resolve("edge.yaml");
        Files.writeString(
                config,
                "acceptors:\n- port: " + port + "\nadmin:\n  port: " + adminPort + "\ncontent:\n  root: " + dir
                        + "\ncache:\n  disk:\n    path: " + notADirectory + "\norigin:\n  url: http://127.0.0.1:9\n");
        Tools.Result r = main("--config", config.toString());
        assertThat(r.exitCode()).as(r.all()).isEqualTo(1);
        assertThat(r.stderr())
                .contains("edge server failed to start: cache.disk.path " + notADirectory + ": " + "cannot create "
                        + notADirectory.resolve("data"));
        assertThat(r.stderr()).doesNotContain("\tat java.base/");
        try (ServerSocket stillFree = new ServerSocket(port)) {
            assertThat(stillFree.getLocalPort()).isEqualTo(port);
        }
    }

    /** The server's log comes to hold every one of {@code lines} (a line written just after what a test waited for). */
    private static void awaitLogged(EdgeFixture edge, String... lines) {
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () -> assertThat(Files.readString(edge.processLog)).contains(lines));
    }
}
