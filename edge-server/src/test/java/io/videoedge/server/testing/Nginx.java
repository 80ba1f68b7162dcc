package io.videoedge.server.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A real nginx (the Debian package, as in {@code make bench}) on loopback, one process in the
 * foreground ({@code master_process off}: no workers, so no switch to an unprivileged user that could
 * not read the tests' private temporary directories). The reference the edge is compared with.
 */
public final class Nginx implements AutoCloseable {
    public final Path dir;
    private final List<Integer> ports;
    private final Process process;

    private Nginx(Path dir, List<Integer> ports, Process process) {
        this.dir = dir;
        this.ports = ports;
        this.process = process;
    }

    /**
     * Starts nginx with {@code servers} as the body of its {@code http} block; {@code %1$d},
     * {@code %2$d}, ... in it are replaced by free ports (as many as {@code portCount}).
     */
    public static Nginx start(int portCount, String servers) throws IOException {
        Path dir = TempDirs.create("nginx-it");
        Object[] ports = Arrays.stream(FreePorts.distinct(portCount)).boxed().toArray();
        String conf = """
                daemon off;
                master_process off;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log info;
                events { worker_connections 256; }
                http {
                  access_log off;
                  client_body_temp_path %1$s/body; proxy_temp_path %1$s/proxy; fastcgi_temp_path %1$s/fastcgi;
                  uwsgi_temp_path %1$s/uwsgi; scgi_temp_path %1$s/scgi;
                  types { video/mp4 mp4; video/iso.segment m4s; application/vnd.apple.mpegurl m3u8; application/dash+xml mpd; video/mp2t ts; text/vtt vtt; }
                  default_type application/octet-stream;
                  sendfile on;
                %2$s
                }
                """.formatted(dir, servers.formatted(ports));
        Files.writeString(dir.resolve("nginx.conf"), conf);
        Process p = new ProcessBuilder(
                        "nginx",
                        "-p",
                        dir.toString(),
                        "-c",
                        dir.resolve("nginx.conf").toString(),
                        "-e",
                        dir.resolve("error.log").toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("stdout.log").toFile())
                .start();
        List<Integer> portList = Stream.of(ports).map(Integer.class::cast).toList();
        Nginx nginx = new Nginx(dir, portList, p);
        try {
            Awaitility.await("nginx listening")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> !p.isAlive() || portList.stream().allMatch(Nginx::listening));
        } catch (ConditionTimeoutException e) {
            nginx.close();
            throw new AssertionError("nginx did not start", e);
        }
        if (!p.isAlive()) {
            String log = Files.readString(dir.resolve("stdout.log")) + Files.readString(dir.resolve("error.log"));
            nginx.close();
            throw new AssertionError("nginx exited:\n" + conf + "\n" + log);
        }
        return nginx;
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The i-th port (0-based) of the configuration. */
    public int port(int i) {
        return ports.get(i);
    }

    public String errorLog() throws IOException {
        return Files.readString(dir.resolve("error.log"));
    }

    @Override
    public void close() throws IOException {
        process.destroy(); // SIGTERM: fast shutdown
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        TempDirs.remove(dir);
    }
}
