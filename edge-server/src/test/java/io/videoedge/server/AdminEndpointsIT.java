package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.nativelib.NativeRuntime;
import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.RawHttp;
import io.videoedge.server.testing.Tools;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** /metrics in Prometheus text format with what the issue asks for, /healthz and /readyz. */
class AdminEndpointsIT {
    static EdgeFixture edge;

    @BeforeAll
    static void start() throws Exception {
        edge = EdgeFixture.start();
    }

    @AfterAll
    static void stop() throws Exception {
        edge.close();
    }

    @Test
    void probesAnswer() throws Exception {
        assertThat(edge.get(edge.admin("/healthz")).statusCode()).isEqualTo(200);
        HttpResponse<byte[]> ready = edge.get(edge.admin("/readyz"));
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(new String(ready.body())).isEqualTo("ready\n");
    }

    @Test
    void metricsCountRequestsBytesAndReportTheServerSetup() throws Exception {
        double ok = edge.metric("videoedge_http_requests_total{method=\"GET\",status=\"200\"}");
        double missing = edge.metric("videoedge_http_requests_total{method=\"HEAD\",status=\"404\"}");
        double bytes = edge.metric("videoedge_http_response_body_bytes_total{via=\"sendfile\"}");
        edge.get(edge.http("/mp4/clip.mp4"));
        java.net.http.HttpClient.newHttpClient()
                .send(
                        java.net.http.HttpRequest.newBuilder(edge.http("/nope"))
                                .method("HEAD", java.net.http.HttpRequest.BodyPublishers.noBody())
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.discarding());

        HttpResponse<byte[]> r = edge.get(edge.admin("/metrics"));
        assertThat(r.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain; version=0.0.4"));
        String text = new String(r.body());
        assertThat(edge.metric("videoedge_http_requests_total{method=\"GET\",status=\"200\"}"))
                .isEqualTo(ok + 1);
        assertThat(edge.metric("videoedge_http_requests_total{method=\"HEAD\",status=\"404\"}"))
                .isEqualTo(missing + 1);
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(30))
                .untilAsserted(
                        () -> // counted after each write call
                        assertThat(edge.metric("videoedge_http_response_body_bytes_total{via=\"sendfile\"}") - bytes)
                                .isEqualTo(edge.file("mp4/clip.mp4").length));
        assertThat(edge.gauge("videoedge_selectors")).isEqualTo(2);
        // the gauge counts this connection: it goes down when the connection closes (the test's HTTP clients
        // keep theirs open, idle for less than the server's 60 s)
        double open;
        try (RawHttp raw = new RawHttp(edge.httpPort)) {
            assertThat(raw.send("HEAD /mp4/clip.mp4 HTTP/1.1\r\nHost: x\r\n\r\n")
                            .read(true)
                            .status())
                    .isEqualTo(200);
            open = edge.gauge("videoedge_connections");
            assertThat(open).isGreaterThanOrEqualTo(1);
        }
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(20))
                .until(() -> edge.gauge("videoedge_connections") <= open - 1);
        assertThat(text)
                .contains("# TYPE videoedge_tls_handshakes_total counter")
                .contains("# TYPE videoedge_connections gauge")
                .contains("videoedge_native_library_info{build=\"one-nio=2.3.0 ")
                .contains("origin=\"" + NativeRuntime.BUILT + "\"")
                .contains("videoedge_selector_cpu_info{allowed=")
                .contains("videoedge_ktls_info{");
    }

    /**
     * The packaged server started as the kubelet's cpuset would leave it, confined to CPU 1
     * ({@code taskset -c 1}): both selectors must run on CPU 1 exactly. Stock one-nio pins selector i to
     * CPU {@code i % availableProcessors()}, here CPU 0 for both, outside the set. The kernel's view is
     * read by this test from /proc (thread names and Cpus_allowed_list), not through the server's code,
     * and compared with what /metrics reports.
     */
    @Test
    void selectorsArePinnedInsideARestrictedCpuSetAndThatIsReported() throws Exception {
        assertThat(Tools.run(List.of("taskset", "-c", "1", "true")).exitCode())
                .as("this test needs CPU 1 (2 CPUs or more)")
                .isZero();
        try (EdgeFixture confined = EdgeFixture.startProcess(List.of("taskset", "-c", "1"), "", false, List.of())) {
            long pid = confined.process.pid();
            assertThat(cpusAllowed(Path.of("/proc", Long.toString(pid), "status")))
                    .as("the server process")
                    .isEqualTo("1");
            Map<String, String> selectors = new TreeMap<>();
            try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
                for (Path task : tasks.toList()) {
                    String comm = Files.readString(task.resolve("comm")).trim();
                    if (comm.startsWith("edge-sel-")) selectors.put(comm, cpusAllowed(task.resolve("status")));
                }
            }
            assertThat(selectors)
                    .as("selector threads as the kernel has them")
                    .isEqualTo(Map.of("edge-sel-0", "1", "edge-sel-1", "1"));
            String text = confined.metrics();
            for (int i = 0; i < 2; i++) {
                assertThat(text)
                        .contains("videoedge_selector_cpu_info{allowed=\"1\",cpu=\"1\",selector=\"" + i + "\"} 1");
            }
        }
    }

    /** The Cpus_allowed_list value of a /proc status file, as the kernel writes it. */
    private static String cpusAllowed(Path status) throws Exception {
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("Cpus_allowed_list:"))
                return line.substring(line.indexOf(':') + 1).trim();
        }
        throw new AssertionError("no Cpus_allowed_list in " + status);
    }
}
