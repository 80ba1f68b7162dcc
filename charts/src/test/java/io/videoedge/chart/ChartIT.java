package io.videoedge.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningSpec;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.testing.RealApiServer;
import io.videoedge.testing.RealApiServer.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Helm chart and the plain manifests on a real kube-apiserver with our CRDs and the Prometheus
 * Operator's CRDs: lint, helm-unittest, promtool unit tests of every alert, the values schema, server-side dry runs, a real
 * install/upgrade/uninstall, the admission policy that confines each agent to its own node, and
 * `kubectl apply -f crds/ -f deploy/videoedge.yaml`. There is no kubelet: nothing here runs a pod
 * (the kind e2e does).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChartIT {
    private static final Path ROOT = Path.of(System.getProperty("videoedge.root", ".."));
    private static final Path CHART = ROOT.resolve("charts/videoedge");
    private static final String HELM =
            System.getProperty("videoedge.helm", ROOT.resolve("bin/helm").toString());
    private static final String PROMTOOL = System.getProperty(
            "videoedge.promtool", ROOT.resolve("bin/promtool").toString());
    /** promtool unit tests of the alerts; their rule_files name the rules rendered here. */
    private static final Path ALERT_TESTS = CHART.resolve("tests/alerts");

    private static final String RENDERED_RULES = "videoedge-rules.yaml";
    private static final String RELEASE = "chart-it";
    private static final String NAMESPACE = "chart-it";

    private static RealApiServer api;
    private static KubernetesClient admin;

    @BeforeAll
    static void apiServerWithPrometheusOperatorCrds() {
        if (!Files.isExecutable(Path.of(HELM))) {
            throw new IllegalStateException("helm not found at " + HELM + ": run `make tools` (`make test` does)");
        }
        Path promCrds = Path.of(System.getProperty("videoedge.prometheus.crds.dir", ""));
        if (!Files.isDirectory(promCrds)) {
            throw new IllegalStateException("Prometheus Operator CRDs not found in " + promCrds
                    + ": run `make prometheus-crds` (`make test` does)");
        }
        api = RealApiServer.shared();
        admin = api.newClient();
        // too large for client-side apply's annotation: server-side, as the Prometheus Operator documents
        api.kubectl("apply", "--server-side", "-f", promCrds.toString());
        for (String crd : List.of("servicemonitors", "podmonitors", "prometheusrules")) {
            RealApiServer.awaitEstablished(admin, crd + ".monitoring.coreos.com");
        }
    }

    @AfterAll
    static void closeClient() {
        admin.close();
    }

    @Test
    @Order(1)
    void lintPassesWithDefaultAndMonitoringValues() {
        assertThat(helm("lint", CHART.toString()).stdout()).contains("0 chart(s) failed");
        assertThat(helm("lint", CHART.toString(), "--set", "monitoring.enabled=true", "--set", "example.enabled=true")
                        .stdout())
                .contains("0 chart(s) failed");
    }

    @Test
    @Order(2)
    void chartUnitTestsPass() {
        Result r = helm("unittest", CHART.toString());
        assertThat(r.stdout()).contains("Charts:      1 passed").doesNotContain("FAIL");
    }

    /**
     * Every alert of the PrometheusRule, proven with Prometheus' own rule engine: the chart's rules rendered
     * (monitoring enabled) into a rule file next to the test files of tests/alerts, then `promtool check rules`
     * and `promtool test rules`; promtool's output is the failure message. Each alert must have a test in
     * which it fires and one in which it does not.
     */
    @Test
    @Order(2)
    void alertsPassPromtoolUnitTests(@TempDir Path dir) throws IOException {
        if (!Files.isExecutable(Path.of(PROMTOOL))) {
            throw new IllegalStateException(
                    "promtool not found at " + PROMTOOL + ": run `make tools` (`make test` does)");
        }
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        JsonNode rule = yaml.readTree(helm(
                        "template",
                        "alerts",
                        CHART.toString(),
                        "--set",
                        "monitoring.enabled=true",
                        "--show-only",
                        "templates/prometheusrule.yaml")
                .stdout());
        ObjectNode ruleFile = yaml.createObjectNode();
        ruleFile.set("groups", rule.at("/spec/groups"));
        Path rules = dir.resolve(RENDERED_RULES);
        yaml.writeValue(rules.toFile(), ruleFile);
        List<String> testFiles = new ArrayList<>();
        try (Stream<Path> files = Files.list(ALERT_TESTS)) {
            for (Path f :
                    files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                Files.copy(f, dir.resolve(f.getFileName()));
                testFiles.add(dir.resolve(f.getFileName()).toString());
            }
        }
        assertThat(testFiles).as("promtool test files in " + ALERT_TESTS).isNotEmpty();

        Result check = run(PROMTOOL, "check", "rules", rules.toString());
        assertThat(check.exitCode())
                .as("promtool check rules:\n" + check.stdout() + check.stderr())
                .isZero();
        List<String> cmd = new ArrayList<>(List.of(PROMTOOL, "test", "rules"));
        cmd.addAll(testFiles);
        Result test = run(cmd.toArray(String[]::new));
        assertThat(test.exitCode())
                .as("promtool test rules (rules: " + rules + "):\n" + test.stdout() + test.stderr())
                .isZero();

        Set<String> alerts = new TreeSet<>();
        rule.at("/spec/groups")
                .forEach(g -> g.path("rules").forEach(r -> {
                    if (r.hasNonNull("alert")) {
                        alerts.add(r.get("alert").asText());
                    }
                }));
        Set<String> fires = new TreeSet<>();
        Set<String> staysQuiet = new TreeSet<>();
        for (String f : testFiles) {
            yaml.readTree(Path.of(f).toFile())
                    .path("tests")
                    .forEach(t -> t.path("alert_rule_test").forEach(a -> {
                        (a.path("exp_alerts").isEmpty() ? staysQuiet : fires)
                                .add(a.path("alertname").asText());
                    }));
        }
        assertThat(alerts).as("alerts of templates/prometheusrule.yaml").hasSizeGreaterThanOrEqualTo(9);
        assertThat(fires)
                .as("alerts with a test in which they fire (tests/alerts)")
                .containsAll(alerts);
        assertThat(staysQuiet)
                .as("alerts with a test in which they do not fire (tests/alerts)")
                .containsAll(alerts);
    }

    @ParameterizedTest(name = "{0} is refused: {1}")
    @Order(3)
    @CsvSource(
            delimiter = '|',
            value = {
                "unknownKey=1                         | additional properties 'unknownKey' not allowed",
                "operator.replica=2                   | at '/operator': additional properties 'replica' not allowed",
                "operator.replicas=-1                 | at '/operator/replicas'",
                "nodeAgent.driftInterval=soon         | at '/nodeAgent/driftInterval': 'soon' does not match pattern",
                "nodeAgent.driftInterval=500ms        | at '/nodeAgent/driftInterval': '500ms' does not match pattern",
                "nodeAgent.driftInterval=0s           | at '/nodeAgent/driftInterval': '0s' does not match pattern",
                "image.pullPolicy=Sometimes           | at '/image/pullPolicy'",
                "operator.metricsPort=0               | at '/operator/metricsPort'",
                "nodeAgent.journalDir=relative/path   | at '/nodeAgent/journalDir'",
                "monitoring.enabled=yes-please        | at '/monitoring/enabled'",
                "monitoring.interval=0s               | at '/monitoring/interval': '0s' does not match pattern",
                "monitoring.interval=1m30s            | at '/monitoring/interval': '1m30s' does not match pattern",
                "example.name=Not_A_Name              | at '/example/name'",
                "admissionPolicy.enabled=maybe        | at '/admissionPolicy/enabled'",
                "nodeAgent.maxUnavailable=0           | at '/nodeAgent/maxUnavailable'",
                "nodeAgent.maxUnavailable=0%          | at '/nodeAgent/maxUnavailable'",
                "nodeAgent.maxUnavailable=150%        | at '/nodeAgent/maxUnavailable'",
                "operator.resources.request.cpu=1     | at '/operator/resources': additional properties 'request' not allowed",
                "monitoring.labels.team=1             | at '/monitoring/labels/team'",
                "monitoring.labels.team=a b           | at '/monitoring/labels/team': 'a b' does not match pattern",
                "monitoring.labels.-team=video        | at '/monitoring/labels': additional properties '-team' not allowed",
            })
    void badValuesAreRefusedByTheSchemaNamingTheKey(String value, String message) {
        Result r = run(HELM, "template", "t", CHART.toString(), "--set", value);
        assertThat(r.exitCode()).as(value).isNotZero();
        assertThat(r.stderr()).contains(message);
    }

    /**
     * values.schema.json is generated from values.yaml (`make chart-docs`), where each object with keys of its own
     * must say additionalProperties: false: an object section added without it would take any key silently.
     * Maps (nodeSelector, labels, resources.requests) and pass-through objects (affinity, example.spec) list no
     * properties and are exempt.
     */
    @Test
    @Order(3)
    void theGeneratedSchemaRefusesUnknownKeysInEverySection() throws IOException {
        JsonNode schema =
                new ObjectMapper().readTree(CHART.resolve("values.schema.json").toFile());
        List<String> open = new ArrayList<>();
        closedObjects(schema, "", open);
        assertThat(open)
                .as("objects of values.schema.json with properties that accept unknown keys "
                        + "(mark them '# @schema additionalProperties: false' in values.yaml, then `make chart-docs`)")
                .isEmpty();
    }

    private static void closedObjects(JsonNode schema, String path, List<String> open) {
        JsonNode properties = schema.path("properties");
        if (!properties.isEmpty() && schema.path("additionalProperties").asBoolean(true)) {
            open.add(path.isEmpty() ? "(root)" : path);
        }
        properties.properties().forEach(e -> closedObjects(e.getValue(), path + "/" + e.getKey(), open));
    }

    /**
     * The chart reads the CRDs of the repository's crds/ through the symlink files/crds (Helm cannot read outside
     * the chart). `helm package` stores the files themselves: the packaged chart renders both CRDs exactly as the
     * chart directory does, one per file of crds/.
     */
    @Test
    @Order(3)
    void thePackagedChartCarriesTheCrdsItLinksTo(@TempDir Path out) throws IOException {
        assertThat(CHART.resolve("files/crds")).isSymbolicLink();
        helm("package", CHART.toString(), "--destination", out.toString());
        Path tgz;
        try (Stream<Path> files = Files.list(out)) {
            tgz = files.filter(f -> f.toString().endsWith(".tgz")).findFirst().orElseThrow();
        }
        String packaged = helm("template", "pkg", tgz.toString(), "--show-only", "templates/crds.yaml")
                .stdout();
        assertThat(packaged)
                .as("CRDs of the packaged chart")
                .isEqualTo(helm("template", "pkg", CHART.toString(), "--show-only", "templates/crds.yaml")
                        .stdout());
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        Set<String> names = new TreeSet<>();
        for (String doc : packaged.split("(?m)^---$")) {
            JsonNode crd = yaml.readTree(doc);
            if (crd != null && crd.path("kind").asText().equals("CustomResourceDefinition")) {
                names.add(crd.at("/metadata/name").asText());
            }
        }
        Set<String> committed = new TreeSet<>();
        try (Stream<Path> files = Files.list(ROOT.resolve("crds"))) {
            for (Path f : files.toList()) {
                committed.add(yaml.readTree(f.toFile()).at("/metadata/name").asText());
            }
        }
        assertThat(names)
                .as("CRDs of the packaged chart vs crds/")
                .isEqualTo(committed)
                .hasSize(3);
    }

    @ParameterizedTest(name = "rendered chart passes a server-side dry run ({0})")
    @Order(4)
    @ValueSource(strings = {"defaults", "monitoring"})
    void renderedChartPassesAServerSideDryRun(String values) throws IOException {
        List<String> args =
                new ArrayList<>(List.of("template", "dry-" + values, CHART.toString(), "--namespace", "chart-dry"));
        if (values.equals("monitoring")) {
            args.addAll(List.of("--set", "monitoring.enabled=true", "--set", "example.enabled=true"));
        }
        Path rendered = Files.createTempFile("chart-" + values, ".yaml");
        Files.writeString(rendered, helm(args.toArray(String[]::new)).stdout());
        if (admin.namespaces().withName("chart-dry").get() == null) {
            api.kubectl("create", "namespace", "chart-dry");
        }
        String out = api.kubectl("apply", "--dry-run=server", "-n", "chart-dry", "-f", rendered.toString());
        assertThat(out)
                .contains("deployment.apps/dry-" + values + "-videoedge-operator created (server dry run)")
                .contains("daemonset.apps/dry-" + values + "-videoedge-node-agent created (server dry run)");
        if (values.equals("monitoring")) {
            assertThat(out)
                    .contains(
                            "servicemonitor.monitoring.coreos.com/",
                            "podmonitor.monitoring.coreos.com/",
                            "prometheusrule.monitoring.coreos.com/",
                            "videoedge.videoedge.io/edge");
        }
    }

    @Test
    @Order(5)
    void installsUpgradesWithMonitoringAndUninstallKeepingTheCrds() {
        // the CRDs are already there (applied by another field manager, as kubectl users and this harness
        // do): the documented way to let the chart adopt and update them (README, "Install")
        helm(
                "install",
                RELEASE,
                CHART.toString(),
                "--namespace",
                NAMESPACE,
                "--create-namespace",
                "--take-ownership",
                "--force-conflicts");
        assertThat(admin.apps()
                        .deployments()
                        .inNamespace(NAMESPACE)
                        .withName("chart-it-videoedge-operator")
                        .get())
                .isNotNull();
        assertThat(admin.apps()
                        .daemonSets()
                        .inNamespace(NAMESPACE)
                        .withName("chart-it-videoedge-node-agent")
                        .get())
                .isNotNull();
        assertThat(admin.admissionRegistration()
                        .v1()
                        .validatingAdmissionPolicies()
                        .withName("chart-it-videoedge-node-agent-own-node")
                        .get())
                .as("admissionPolicy.enabled=auto creates the policy on a cluster that serves it")
                .isNotNull();
        assertThat(crd("videoedges.videoedge.io").getMetadata().getAnnotations())
                .containsEntry("helm.sh/resource-policy", "keep");

        helm("upgrade", RELEASE, CHART.toString(), "--namespace", NAMESPACE, "--set", "monitoring.enabled=true");
        assertThat(api.kubectl("get", "servicemonitor,podmonitor,prometheusrule", "-n", NAMESPACE, "-o", "name"))
                .contains(
                        "servicemonitor.monitoring.coreos.com/chart-it-videoedge-operator",
                        "podmonitor.monitoring.coreos.com/chart-it-videoedge-node-agent",
                        "prometheusrule.monitoring.coreos.com/chart-it-videoedge");
    }

    @Test
    @Order(6)
    void anAgentMayWriteOnlyTheNodeTuningOfItsOwnNode() {
        for (String node : List.of("vap-a", "vap-b")) {
            admin.nodes()
                    .resource(new NodeBuilder()
                            .withNewMetadata()
                            .withName(node)
                            .endMetadata()
                            .build())
                    .create();
            NodeTuning nt = new NodeTuning();
            nt.getMetadata().setName(node);
            nt.setSpec(new NodeTuningSpec(new NodeTuningSpec.Source("ns", "edge", "uid"), null, null, null));
            admin.resource(nt).create();
        }
        // the agent pod on vap-a and a token bound to it: Kubernetes puts the pod's node into the token
        String sa = "chart-it-videoedge-node-agent";
        Pod pod = admin.pods()
                .inNamespace(NAMESPACE)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName("agent-on-a")
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName("vap-a")
                        .withServiceAccountName(sa)
                        .addNewContainer()
                        .withName("agent")
                        .withImage("videoedge/node-tuning:test")
                        .endContainer()
                        .endSpec()
                        .build())
                .create();
        TokenRequest request = new TokenRequestBuilder()
                .withNewSpec()
                .withAudiences("https://localhost")
                .withExpirationSeconds(600L)
                .withNewBoundObjectRef()
                .withKind("Pod")
                .withApiVersion("v1")
                .withName(pod.getMetadata().getName())
                .withUid(pod.getMetadata().getUid())
                .endBoundObjectRef()
                .endSpec()
                .build();
        NodeTuningStatus status =
                new NodeTuningStatus(null, null, "written by the agent", null, null, null, null, null);
        try (KubernetesClient agent = tokenClient(sa, request)) {
            // the agent replaces its NodeTuning's status whole (update), as NodeTuningAgent does
            NodeTuning mine =
                    agent.resources(NodeTuning.class).withName("vap-a").get();
            mine.setStatus(status);
            NodeTuning own = agent.resource(mine).updateStatus();
            assertThat(own.getStatus().message()).isEqualTo("written by the agent");

            NodeTuning other =
                    agent.resources(NodeTuning.class).withName("vap-b").get();
            other.setStatus(status);
            assertThatThrownBy(() -> agent.resource(other).updateStatus())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                        assertThat(e.getCode()).isEqualTo(403);
                        assertThat(e.getMessage())
                                .contains("a node agent may only write the NodeTuning of its own node");
                    });
            // and RBAC still forbids what the agent never does
            assertThatThrownBy(() ->
                            agent.resources(NodeTuning.class).withName("vap-a").delete())
                    .isInstanceOfSatisfying(
                            KubernetesClientException.class,
                            e -> assertThat(e.getCode()).isEqualTo(403));
        }
        assertThat(admin.resources(NodeTuning.class).withName("vap-b").get().getStatus())
                .isNull();
    }

    @Test
    @Order(7)
    void theOperatorMayChangeNothingOnANodeButTheNodeAgentLabel() {
        // a Node with someone else's finalizer and owner: the label alone may still change
        admin.nodes()
                .resource(new NodeBuilder()
                        .withNewMetadata()
                        .withName("vap-op")
                        .addToLabels("team", "video")
                        .addToFinalizers("example.com/keep")
                        .addNewOwnerReference()
                        .withApiVersion("v1")
                        .withKind("ConfigMap")
                        .withName("owner")
                        .withUid("7d3f1e2a-0000-4000-8000-000000000002")
                        .endOwnerReference()
                        .endMetadata()
                        .build())
                .create();
        try (KubernetesClient operator = asOperator()) {
            var node = operator.nodes().withName("vap-op");
            node.patch(
                    PatchContext.of(PatchType.JSON_MERGE),
                    "{\"metadata\":{\"labels\":{\"videoedge.io/node-agent\":\"true\"}}}");
            assertThat(admin.nodes().withName("vap-op").get().getMetadata().getLabels())
                    .containsEntry("videoedge.io/node-agent", "true");
            node.patch(
                    PatchContext.of(PatchType.JSON_MERGE),
                    "{\"metadata\":{\"labels\":{\"videoedge.io/node-agent\":null}}}");
            assertThat(admin.nodes().withName("vap-op").get().getMetadata().getLabels())
                    .doesNotContainKey("videoedge.io/node-agent");
            for (String patch : List.of(
                    "{\"metadata\":{\"labels\":{\"team\":\"other\"}}}",
                    "{\"metadata\":{\"labels\":{\"team\":null}}}",
                    "{\"metadata\":{\"labels\":{\"videoedge.io/node-agent\":\"maybe\"}}}",
                    "{\"metadata\":{\"annotations\":{\"x\":\"y\"}}}",
                    "{\"metadata\":{\"finalizers\":[\"example.com/hold\"]}}",
                    "{\"metadata\":{\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                            + "\"name\":\"owner\",\"uid\":\"7d3f1e2a-0000-4000-8000-000000000001\"}]}}",
                    "{\"spec\":{\"unschedulable\":true}}")) {
                assertThatThrownBy(() -> node.patch(PatchContext.of(PatchType.JSON_MERGE), patch))
                        .as(patch)
                        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                            assertThat(e.getCode()).isEqualTo(403);
                            assertThat(e.getMessage())
                                    .contains("may only set or remove the label videoedge.io/node-agent=true");
                        });
            }
            assertThatThrownBy(() -> node.delete()).isInstanceOf(KubernetesClientException.class);
        }
        assertThat(admin.nodes().withName("vap-op").get().getMetadata().getLabels())
                .containsEntry("team", "video");
        admin.nodes().withName("vap-op").edit(n -> {
            n.getMetadata().setFinalizers(List.of());
            return n;
        });
    }

    /**
     * The CRD refuses the agent's default port for the edge server; a release whose agents listen elsewhere refuses
     * that port through its admission policy, for either acceptor, and only that one.
     */
    @Test
    @Order(7)
    void aVideoEdgeWhoseServerWouldListenOnTheAgentsPortIsRefused() throws Exception {
        // one admitted on 9500 before the agents move there
        GenericKubernetesResource before = exampleVideoEdge("kept-port");
        serverOf(before).put("http", Map.of("port", 9500));
        admin.resource(before).create();
        agentPort(9500);
        try {
            GenericKubernetesResource ve = exampleVideoEdge("agent-port");
            Map<String, Object> server = serverOf(ve);
            server.put("http", Map.of("port", 9500));
            // the API server loads a new policy within a second or so: asked until it refuses
            KubernetesClientException refused = null;
            Instant end = Instant.now().plusSeconds(30);
            while (refused == null && Instant.now().isBefore(end)) {
                try {
                    admin.resource(ve).dryRun().create();
                    Thread.sleep(200);
                } catch (KubernetesClientException e) {
                    refused = e;
                }
            }
            assertThat(refused).as("http.port 9500 refused within 30 s").isNotNull();
            assertThat(refused.getCode()).isEqualTo(422);
            assertThat(refused.getMessage())
                    .contains("spec.server.http.port: port 9500 is the node agent's metrics port on every tuned node");
            server.put("http", Map.of("port", 9500, "enabled", false));
            admin.resource(ve).dryRun().create(); // a disabled acceptor listens nowhere
            server.put("http", Map.of("port", 9401)); // the agents' port no more: the CRD's own rule still refuses it
            assertThatThrownBy(() -> admin.resource(ve).dryRun().create())
                    .hasMessageContaining("port 9401 is the node agent's metrics port");
            server.put("http", Map.of("port", 9501));
            server.put("https", Map.of("port", 9500));
            assertThatThrownBy(() -> admin.resource(ve).dryRun().create())
                    .hasMessageContaining("spec.server.https.port: port 9500 is the node agent's metrics port");
            server.put("https", Map.of("port", 9502));
            admin.resource(ve).create();
            // the one admitted before keeps its port through updates (a label; the operator's finalizer) and goes
            videoEdge("kept-port")
                    .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"team\":\"video\"}}}");
            // one that did not have the port cannot take it
            assertThatThrownBy(() -> videoEdge("agent-port")
                            .patch(
                                    PatchContext.of(PatchType.JSON_MERGE),
                                    "{\"spec\":{\"server\":{\"http\":{\"port\":9500}}}}"))
                    .hasMessageContaining("spec.server.http.port: port 9500 is the node agent's metrics port");
        } finally {
            videoEdge("kept-port").delete();
            videoEdge("agent-port").delete();
            agentPort(9401);
        }
    }

    private static io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource> videoEdge(String name) {
        return admin.genericKubernetesResources("videoedge.io/v1alpha1", "VideoEdge")
                .inNamespace(NAMESPACE)
                .withName(name);
    }

    private static void agentPort(int port) {
        helm(
                "upgrade",
                RELEASE,
                CHART.toString(),
                "--namespace",
                NAMESPACE,
                "--reuse-values",
                "--set",
                "nodeAgent.metricsPort=" + port);
    }

    private static GenericKubernetesResource exampleVideoEdge(String name) throws IOException {
        GenericKubernetesResource ve = Serialization.unmarshal(
                Files.readString(ROOT.resolve("examples/videoedge.yaml")), GenericKubernetesResource.class);
        ve.getMetadata().setName(name);
        ve.getMetadata().setNamespace(NAMESPACE);
        return ve;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> serverOf(GenericKubernetesResource ve) {
        return (Map<String, Object>)
                ((Map<String, Object>) ve.getAdditionalProperties().get("spec"))
                        .computeIfAbsent("server", k -> new LinkedHashMap<>());
    }

    @Test
    @Order(7)
    void theOperatorMayWriteTicketKeySecretsAndNoOtherSecret() {
        admin.secrets()
                .inNamespace(NAMESPACE)
                .resource(new io.fabric8.kubernetes.api.model.SecretBuilder()
                        .withNewMetadata()
                        .withName("someone-elses")
                        .endMetadata()
                        .addToStringData("password", "hunter2")
                        .build())
                .create();
        try (KubernetesClient operator = asOperator()) {
            var secrets = operator.secrets().inNamespace(NAMESPACE);
            java.util.function.Function<String, io.fabric8.kubernetes.api.model.Secret> ticketKeys =
                    name -> new io.fabric8.kubernetes.api.model.SecretBuilder()
                            .withNewMetadata()
                            .withName(name)
                            .addToLabels("app.kubernetes.io/component", "ticket-keys")
                            .addToLabels("app.kubernetes.io/managed-by", "videoedge-operator")
                            .endMetadata()
                            .addToData("t1800000000", "a2V5")
                            .build();
            var created = secrets.resource(ticketKeys.apply("edge-ticket-keys")).create();
            created.getData().put("t1800003600", "bmV4dA==");
            secrets.resource(created).update();
            assertThat(admin.secrets()
                            .inNamespace(NAMESPACE)
                            .withName("edge-ticket-keys")
                            .get()
                            .getData())
                    .containsKeys("t1800000000", "t1800003600");

            var unlabelled = ticketKeys.apply("other-ticket-keys");
            unlabelled.getMetadata().getLabels().remove("app.kubernetes.io/component");
            var otherComponent = ticketKeys.apply("forged-ticket-keys");
            otherComponent.getMetadata().getLabels().put("app.kubernetes.io/component", "edge-server");
            var otherName = ticketKeys.apply("edge-tls");
            var someoneElses = secrets.withName("someone-elses").get();
            someoneElses.getData().put("password", "b3duZWQ=");
            // the admin token Secret (cache purges): its own name and label, not the ticket keys'
            var adminToken = ticketKeys.apply("edge-admin-token");
            adminToken.getMetadata().getLabels().put("app.kubernetes.io/component", "admin-token");
            secrets.resource(adminToken).create();
            var adminTokenNamedOtherwise = ticketKeys.apply("edge-ticket-keys-2");
            adminTokenNamedOtherwise.getMetadata().getLabels().put("app.kubernetes.io/component", "admin-token");
            var relabelled = secrets.withName("edge-ticket-keys").get();
            relabelled.getMetadata().getLabels().put("app.kubernetes.io/component", "admin-token");
            for (Runnable write : List.<Runnable>of(
                    () -> secrets.resource(unlabelled).create(),
                    () -> secrets.resource(otherComponent).create(),
                    () -> secrets.resource(otherName).create(),
                    () -> secrets.resource(adminTokenNamedOtherwise).create(),
                    () -> secrets.resource(relabelled).update(),
                    () -> secrets.resource(someoneElses).update())) {
                assertThatThrownBy(write::run).isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(403);
                    assertThat(e.getMessage()).contains("may only write the Secrets it manages");
                });
            }
            assertThatThrownBy(() -> secrets.withName("edge-ticket-keys").delete())
                    .isInstanceOf(KubernetesClientException.class);
        }
        assertThat(admin.secrets()
                        .inNamespace(NAMESPACE)
                        .withName("someone-elses")
                        .get()
                        .getData())
                .containsEntry("password", java.util.Base64.getEncoder().encodeToString("hunter2".getBytes()));
    }

    /** A client with the operator's ServiceAccount token: its RBAC and the admission policies that name it. */
    private KubernetesClient asOperator() {
        return tokenClient(
                "chart-it-videoedge-operator",
                new TokenRequestBuilder()
                        .withNewSpec()
                        .withAudiences("https://localhost")
                        .withExpirationSeconds(600L)
                        .endSpec()
                        .build());
    }

    /** A client that authenticates with a token of {@code serviceAccount} (in the release namespace), not as admin. */
    private KubernetesClient tokenClient(String serviceAccount, TokenRequest request) {
        String token = admin.serviceAccounts()
                .inNamespace(NAMESPACE)
                .withName(serviceAccount)
                .tokenRequest(request)
                .getStatus()
                .getToken();
        Config config = new ConfigBuilder(Config.fromKubeconfig(api.kubeconfigYaml()))
                .withClientCertData(null)
                .withClientKeyData(null)
                .withClientCertFile(null)
                .withClientKeyFile(null)
                .withOauthToken(token)
                .build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    @Test
    @Order(8)
    void uninstallKeepsTheCrdsAndTheResources() {
        helm("uninstall", RELEASE, "--namespace", NAMESPACE);
        assertThat(admin.apps()
                        .deployments()
                        .inNamespace(NAMESPACE)
                        .withName("chart-it-videoedge-operator")
                        .get())
                .isNull();
        assertThat(crd("videoedges.videoedge.io")).isNotNull();
        assertThat(crd("nodetunings.videoedge.io")).isNotNull();
        assertThat(admin.resources(NodeTuning.class).withName("vap-a").get())
                .as("NodeTunings survive an uninstall")
                .isNotNull();
    }

    @Test
    @Order(9)
    void plainManifestsApplyWithKubectl() {
        String out = api.kubectl(
                "apply",
                "-f",
                ROOT.resolve("crds").toString(),
                "-f",
                ROOT.resolve("deploy/videoedge.yaml").toString());
        assertThat(out)
                .contains(
                        "namespace/videoedge-system",
                        "deployment.apps/videoedge-operator",
                        "daemonset.apps/videoedge-node-agent",
                        "validatingadmissionpolicy.admissionregistration.k8s.io/videoedge-node-agent-own-node",
                        "validatingadmissionpolicy.admissionregistration.k8s.io/videoedge-operator-node-label");
        assertThat(admin.apps()
                        .deployments()
                        .inNamespace("videoedge-system")
                        .withName("videoedge-operator")
                        .get())
                .isNotNull();
    }

    // --- helpers ---------------------------------------------------------------------------------

    private static io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition crd(String name) {
        return admin.apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName(name)
                .get();
    }

    /** helm with the test API server's kubeconfig; fails the test on a non-zero exit. */
    private static Result helm(String... args) {
        List<String> cmd = new ArrayList<>(List.of(
                HELM,
                "--kubeconfig",
                api == null ? "/dev/null" : api.kubeconfigFile().toString()));
        cmd.addAll(List.of(args));
        Result r = run(cmd.toArray(String[]::new));
        if (r.exitCode() != 0) {
            throw new AssertionError(
                    String.join(" ", args) + " exited " + r.exitCode() + ":\n" + r.stdout() + r.stderr());
        }
        return r;
    }

    private static Result run(String... cmd) {
        return RealApiServer.run(Duration.ofSeconds(120), List.of(cmd));
    }
}
