package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.videoedge.server.testing.Tools;

/** The command line as the container runs it: java -cp 'classes:lib/*' io.videoedge.server.EdgeServerMain. */
class EdgeServerMainIT {
    private static Tools.Result main(String... args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-cp", System.getProperty("videoedge.runtime.classpath"), "io.videoedge.server.EdgeServerMain"));
        cmd.addAll(List.of(args));
        return Tools.run(cmd);
    }

    @Test
    void helpDescribesTheOptions() {
        Tools.Result r = main("--help");
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout()).contains("--config=FILE").contains("--check").contains("Exit codes");
    }

    @Test
    void aBadConfigExitsWith2NamingFileAndFieldBeforeBindingAnything(@TempDir Path dir) throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
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
        int port;
        int adminPort;
        try (ServerSocket probe = new ServerSocket(0); ServerSocket adminProbe = new ServerSocket(0)) {
            port = probe.getLocalPort();
            adminPort = adminProbe.getLocalPort();
        }
        Path notADirectory = Files.writeString(dir.resolve("cache"), "a file");
        Path config = dir.resolve("edge.yaml");
        Files.writeString(config, "acceptors:\n- port: " + port + "\nadmin:\n  port: " + adminPort + "\ncontent:\n  root: " + dir
                + "\ncache:\n  disk:\n    path: " + notADirectory + "\norigin:\n  url: http://127.0.0.1:9\n");
        Tools.Result r = main("--config", config.toString());
        assertThat(r.exitCode()).as(r.all()).isEqualTo(1);
        assertThat(r.stderr()).contains("edge server failed to start: cache.disk.path " + notADirectory + ": "
                + "cannot create " + notADirectory.resolve("data"));
        assertThat(r.stderr()).doesNotContain("\tat java.base/");
        try (ServerSocket stillFree = new ServerSocket(port)) {
            assertThat(stillFree.getLocalPort()).isEqualTo(port);
        }
    }
}
