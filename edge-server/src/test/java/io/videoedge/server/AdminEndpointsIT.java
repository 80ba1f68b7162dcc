package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.videoedge.server.nativelib.NativeRuntime;
import io.videoedge.server.testing.EdgeFixture;

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
        java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(edge.http("/nope"))
                .method("HEAD", java.net.http.HttpRequest.BodyPublishers.noBody()).build(), java.net.http.HttpResponse.BodyHandlers.discarding());

        HttpResponse<byte[]> r = edge.get(edge.admin("/metrics"));
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain; version=0.0.4"));
        String text = new String(r.body());
        assertThat(edge.metric("videoedge_http_requests_total{method=\"GET\",status=\"200\"}")).isEqualTo(ok + 1);
        assertThat(edge.metric("videoedge_http_requests_total{method=\"HEAD\",status=\"404\"}")).isEqualTo(missing + 1);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).untilAsserted(() -> // counted after each write call
                assertThat(edge.metric("videoedge_http_response_body_bytes_total{via=\"sendfile\"}") - bytes).isEqualTo(edge.file("mp4/clip.mp4").length));
        assertThat(edge.gauge("videoedge_selectors")).isEqualTo(2);
        assertThat(edge.gauge("videoedge_connections")).isGreaterThanOrEqualTo(0);
        assertThat(text).contains("# TYPE videoedge_tls_handshakes_total counter")
                .contains("# TYPE videoedge_connections gauge")
                .contains("videoedge_native_library_info{build=\"one-nio=2.3.0 ")
                .contains("origin=\"" + NativeRuntime.BUILT + "\"")
                .contains("videoedge_selector_cpu_info{allowed=")
                .contains("videoedge_ktls_info{");
    }

    @Test
    void selectorsArePinnedToAllowedCpusAndThatIsReported() throws Exception {
        int[] allowed = io.videoedge.server.cpu.CpuList.allowedForThisProcess();
        String text = edge.metrics();
        for (int i = 0; i < 2; i++) {
            String cpu = Integer.toString(allowed[i % allowed.length]);
            assertThat(text).contains("videoedge_selector_cpu_info{allowed=\"" + cpu + "\",cpu=\"" + cpu + "\",selector=\"" + i + "\"} 1");
        }
    }
}
