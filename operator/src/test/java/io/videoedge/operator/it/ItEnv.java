package io.videoedge.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.RolloutSpec;
import io.videoedge.api.ServerSpec;
import io.videoedge.api.TuningSpec;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.api.VideoEdgeSpec;
import io.videoedge.api.VideoEdgeStatus;
import io.videoedge.operator.testing.TestFiles;
import io.videoedge.testing.RealApiServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.awaitility.core.ConditionFactory;

/**
 * The world of the operator's API-server tests: a real kube-apiserver + etcd, the operator running in
 * this JVM as its least-privilege ServiceAccount ({@link OperatorHarness}), the DaemonSet controller and
 * kubelets ({@link FakeKubelets}) and node agents ({@link FakeAgents}) that this API server lacks,
 * and the helpers the scenarios share. One per test JVM; each test class starts and stops it.
 */
final class ItEnv {
    static final String POOL = "it.videoedge.io/pool";
    static RealApiServer api;
    static KubernetesClient admin;
    static OperatorHarness operator;
    static FakeKubelets kubelets;
    static FakeAgents agents;

    private ItEnv() {}

    static void start() {
        api = RealApiServer.shared();
        admin = api.newClient();
        operator = new OperatorHarness(api, admin);
        operator.start();
        kubelets = new FakeKubelets(admin);
        agents = new FakeAgents(admin);
    }

    static void stop() {
        agents.close();
        kubelets.close();
        operator.close();
        admin.close();
    }

    static ConditionFactory eventually() {
        return await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions();
    }

    static String namespace(String prefix) {
        String ns = api.createNamespace(prefix);
        // pods need the namespace's default ServiceAccount (made by a controller this API server lacks)
        admin.serviceAccounts()
                .inNamespace(ns)
                .resource(new ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName("default")
                        .endMetadata()
                        .build())
                .create();
        return ns;
    }

    static Node node(String name, String pool) {
        return node(name, pool, Map.of());
    }

    /** A Node as a kubelet registers it: labels, then 4 CPUs and 8Gi allocatable in its status. */
    static Node node(String name, String pool, Map<String, String> extraLabels) {
        Map<String, String> labels = new LinkedHashMap<>(extraLabels);
        labels.put(POOL, pool);
        labels.put("kubernetes.io/hostname", name);
        Node node = admin.nodes()
                .resource(new NodeBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withLabels(labels)
                        .endMetadata()
                        .build())
                .create();
        node.setStatus(new io.fabric8.kubernetes.api.model.NodeStatusBuilder()
                .addToCapacity("cpu", new Quantity("4"))
                .addToCapacity("memory", new Quantity("8Gi"))
                .addToAllocatable("cpu", new Quantity("4"))
                .addToAllocatable("memory", new Quantity("7Gi"))
                .build());
        return admin.resource(node).updateStatus();
    }

    static void tlsSecret(String ns, String name) {
        admin.secrets()
                .inNamespace(ns)
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .withType("kubernetes.io/tls")
                        .addToData(
                                "tls.crt", Base64.getEncoder().encodeToString("-----BEGIN CERTIFICATE-----".getBytes()))
                        .addToData(
                                "tls.key", Base64.getEncoder().encodeToString("-----BEGIN PRIVATE KEY-----".getBytes()))
                        .build())
                .create();
    }

    /** examples/videoedge.yaml, in this namespace, selecting this pool's nodes. */
    static VideoEdge videoEdge(String ns, String name, String pool, UnaryOperator<VideoEdgeSpec> change) {
        return videoEdge(ns, name, Map.of(POOL, pool), change);
    }

    static VideoEdge videoEdge(
            String ns, String name, Map<String, String> selector, UnaryOperator<VideoEdgeSpec> change) {
        VideoEdge ve = Serialization.unmarshal(TestFiles.read("examples/videoedge.yaml"), VideoEdge.class);
        ve.getMetadata().setName(name);
        ve.getMetadata().setNamespace(ns);
        VideoEdgeSpec s = ve.getSpec();
        // quick rollouts for tests: a short soak and drain (the deadline stays long: slow machines)
        ve.setSpec(change.apply(s.withNodeSelector(selector).withRollout(new RolloutSpec(null, 120, 1, true, 1))));
        return ve;
    }

    static VideoEdge create(VideoEdge ve) {
        return admin.resource(ve).create();
    }

    static VideoEdge get(String ns, String name) {
        return admin.resources(VideoEdge.class).inNamespace(ns).withName(name).get();
    }

    /** A user's edit, retried when the operator wrote the object meanwhile (409), as kubectl edit would be. */
    static void edit(String ns, String name, UnaryOperator<VideoEdgeSpec> change) {
        eventually().until(() -> {
            admin.resources(VideoEdge.class).inNamespace(ns).withName(name).edit(ve -> {
                ve.setSpec(change.apply(ve.getSpec()));
                return ve;
            });
            return true;
        });
    }

    static VideoEdgeSpec plainHttp(VideoEdgeSpec s) {
        return s.withTls(new io.videoedge.api.TlsSpec(io.videoedge.api.TlsMode.NONE, null, null, null, null));
    }

    static VideoEdgeSpec withServer(VideoEdgeSpec s, UnaryOperator<ServerSpec> change) {
        return s.withServer(change.apply(s.server()));
    }

    static VideoEdgeSpec withRollout(VideoEdgeSpec s, UnaryOperator<RolloutSpec> change) {
        return s.withRollout(change.apply(s.rollout()));
    }

    static VideoEdgeSpec withTuning(VideoEdgeSpec s, UnaryOperator<TuningSpec> change) {
        return s.withTuning(change.apply(s.tuning()));
    }

    static VideoEdgeSpec withSysctl(VideoEdgeSpec s, String name, String value) {
        return withTuning(s, t -> {
            Map<String, String> sysctls = new LinkedHashMap<>(t.sysctls());
            sysctls.put(name, value);
            return new TuningSpec(
                    t.mode(),
                    t.congestionControl(),
                    sysctls,
                    t.cpusetRelaxDomainLevel(),
                    t.numaInterleave(),
                    t.kernelModules());
        });
    }

    /** The node's agent, once the NodeTuning names the edge-server pod there (the last spec change before serving). */
    static FakeAgent placed(String node) {
        eventually()
                .until(() ->
                        tuning(node) != null && tuning(node).getSpec().server().podUid() != null);
        return new FakeAgent(admin, node);
    }

    static NodeTuning tuning(String node) {
        return admin.resources(NodeTuning.class).withName(node).get();
    }

    static List<NodeTuning> tunings(String owner, String ns) {
        return admin
                .resources(NodeTuning.class)
                .withLabel(VideoEdgeApi.LABEL_OWNER_NAME, owner)
                .withLabel(VideoEdgeApi.LABEL_OWNER_NAMESPACE, ns)
                .list()
                .getItems()
                .stream()
                .sorted(java.util.Comparator.comparing(nt -> nt.getMetadata().getName()))
                .toList();
    }

    /** The edge-server DaemonSet of VideoEdge {@code name}; null while there is none. */
    static DaemonSet edgeDaemonSet(String ns, String name) {
        return admin.apps()
                .daemonSets()
                .inNamespace(ns)
                .withName(name + "-edge-server")
                .get();
    }

    /** The edge-server DaemonSet of VideoEdge {@code name}, once the operator made it. */
    static DaemonSet awaitEdgeDaemonSet(String ns, String name) {
        return eventually().until(() -> edgeDaemonSet(ns, name), d -> d != null);
    }

    static Pod podOn(String ns, String node) {
        return admin.pods().inNamespace(ns).list().getItems().stream()
                .filter(p -> node.equals(p.getSpec().getNodeName())
                        && p.getMetadata().getDeletionTimestamp() == null)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no pod on " + node));
    }

    static PodCondition gate(Pod pod) {
        return pod.getStatus().getConditions().stream()
                .filter(c -> VideoEdgeApi.READINESS_GATE_NODE_TUNED.equals(c.getType()))
                .findFirst()
                .orElseThrow(() -> new AssertionError(
                        "no gate condition on " + pod.getMetadata().getName()));
    }

    static boolean ready(Pod pod) {
        return pod.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    static Condition condition(VideoEdgeStatus s, String type) {
        return s.conditions().stream()
                .filter(c -> type.equals(c.getType()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no condition " + type));
    }

    static void assertCondition(VideoEdgeStatus s, String type, String status, String reason) {
        Condition c = condition(s, type);
        assertThat(c.getStatus() + " " + c.getReason())
                .as(type + ": " + c.getMessage())
                .isEqualTo(status + " " + reason);
    }

    static List<String> events(String ns) {
        return admin.v1().events().inNamespace(ns).list().getItems().stream()
                .map(e -> e.getType() + " " + e.getReason())
                .toList();
    }

    static void assertNothingRolledOut(String ns, String name) {
        assertThat(admin.configMaps()
                        .inNamespace(ns)
                        .withName(name + "-edge-server")
                        .get())
                .isNull();
        assertThat(edgeDaemonSet(ns, name)).isNull();
        assertThat(tunings(name, ns)).isEmpty();
    }

    /** resourceVersions of everything the operator writes for one VideoEdge: its status, config, DaemonSet, NodeTunings, pods. */
    static Map<String, String> resourceVersions(String ns, String name) {
        Map<String, String> versions = new LinkedHashMap<>();
        List<HasMetadata> objects = new ArrayList<>();
        objects.add(get(ns, name));
        objects.add(admin.configMaps()
                .inNamespace(ns)
                .withName(name + "-edge-server")
                .get());
        objects.add(edgeDaemonSet(ns, name));
        objects.addAll(tunings(name, ns));
        objects.addAll(admin.pods().inNamespace(ns).list().getItems());
        objects.forEach(o -> versions.put(
                o.getKind() + "/" + o.getMetadata().getName(), o.getMetadata().getResourceVersion()));
        return versions;
    }

    /** The status as `kubectl get ve -o yaml` shows it, kept in target/it-status for the docs and the report. */
    static void excerpt(String name, VideoEdge ve) {
        try {
            Path dir = Path.of("target", "it-status");
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(name + ".yaml"), Serialization.asYaml(Map.of("status", ve.getStatus())));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
