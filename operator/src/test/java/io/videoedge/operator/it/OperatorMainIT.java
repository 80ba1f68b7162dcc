package io.videoedge.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.videoedge.server.testing.FreePorts;
import io.videoedge.testing.RealApiServer;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The packaged operator as its image runs it: `java -jar operator.jar` with target/lib beside it,
 * in its own process, against a real API server. Probes, metrics, JSON logs, leader election, and a
 * clean exit on SIGTERM that hands the Lease back.
 */
class OperatorMainIT {
    static final String LEASE_NAMESPACE = "videoedge-main-it";

    @Test
    void thePackagedOperatorServesProbesAndMetricsLogsJsonAndReleasesItsLeaseOnSigterm() throws Exception {
        RealApiServer api = RealApiServer.shared();
        Path jar;
        try (var files = Files.list(Path.of("target"))) {
            jar = files.filter(p -> p.getFileName().toString().matches("operator-.*\\.jar")
                            && !p.getFileName().toString().contains("tests"))
                    .findFirst()
                    .orElseThrow();
        }
        assertThat(Path.of("target", "lib")).isDirectory();
        int[] ports = FreePorts.distinct(2);
        int metricsPort = ports[0];
        int healthPort = ports[1];
        Path log = Files.createTempFile("operator-main", ".log");
        try (KubernetesClient admin = api.newClient()) {
            admin.namespaces()
                    .resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(LEASE_NAMESPACE)
                            .endMetadata()
                            .build())
                    .serverSideApply();
            ProcessBuilder pb = new ProcessBuilder(List.of(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-jar",
                            jar.toString(),
                            "--identity",
                            "main-it",
                            "--recheck-interval",
                            "5s"))
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            pb.environment().put("KUBECONFIG", api.kubeconfigFile().toString());
            pb.environment().put("OPERATOR_NAMESPACE", LEASE_NAMESPACE);
            pb.environment().put("METRICS_PORT", Integer.toString(metricsPort));
            pb.environment().put("HEALTH_PORT", Integer.toString(healthPort));
            Process process = pb.start();
            try {
                HttpClient http = HttpClient.newHttpClient();
                await().atMost(Duration.ofSeconds(60))
                        .ignoreExceptions()
                        .untilAsserted(() -> assertThat(
                                        get(http, healthPort, "/readyz").statusCode())
                                .isEqualTo(200));
                assertThat(get(http, healthPort, "/healthz").statusCode()).isEqualTo(200);
                HttpResponse<String> metrics = get(http, metricsPort, "/metrics");
                assertThat(metrics.statusCode()).isEqualTo(200);
                assertThat(metrics.body())
                        .contains("operator_sdk_reconciliations_queue_size_videoedge", "jvm_memory_used_bytes");
                await().atMost(Duration.ofSeconds(30))
                        .ignoreExceptions()
                        .until(() -> "main-it"
                                .equals(admin.leases()
                                        .inNamespace(LEASE_NAMESPACE)
                                        .withName("videoedge-operator")
                                        .get()
                                        .getSpec()
                                        .getHolderIdentity()));

                process.destroy(); // SIGTERM: the shutdown hook stops the operator and releases the Lease
                assertThat(process.waitFor(30, TimeUnit.SECONDS))
                        .as("exits on SIGTERM; its output:\n%s", Files.readString(log))
                        .isTrue();
                assertThat(admin.leases()
                                .inNamespace(LEASE_NAMESPACE)
                                .withName("videoedge-operator")
                                .get()
                                .getSpec()
                                .getHolderIdentity())
                        .isNull();
            } finally {
                process.destroyForcibly();
            }
            List<String> lines = Files.readAllLines(log).stream()
                    .filter(l -> l.startsWith("{"))
                    .toList();
            assertThat(lines).as(Files.readString(log)).isNotEmpty();
            ObjectMapper json = new ObjectMapper();
            for (String line : lines) {
                assertThat(json.readTree(line).has("level")).as(line).isTrue();
            }
            assertThat(lines).anySatisfy(l -> assertThat(l).contains("VideoEdge operator main-it started"));
        } finally {
            new File(log.toString()).delete();
        }
    }

    static HttpResponse<String> get(HttpClient http, int port, String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
