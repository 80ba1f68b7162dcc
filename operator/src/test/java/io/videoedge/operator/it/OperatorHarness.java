package io.videoedge.operator.it;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.videoedge.operator.EdgeOperator;
import io.videoedge.operator.OpsEndpoints;
import io.videoedge.operator.config.OperatorSettings;
import io.videoedge.operator.testing.TestFiles;
import io.videoedge.testing.RealApiServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The operator as it runs in a cluster, inside the test JVM: a client impersonating the
 * ServiceAccount videoedge-system/videoedge-operator, bound to exactly the chart's RBAC rule files
 * (charts/videoedge/files/rbac/*.yaml), leader election on a Lease, Micrometer metrics and the
 * /metrics, /healthz, /readyz endpoints on free ports.
 */
final class OperatorHarness implements AutoCloseable {
    static final String NAMESPACE = "videoedge-system";
    static final String SERVICE_ACCOUNT = "videoedge-operator";
    static final String USER = "system:serviceaccount:" + NAMESPACE + ":" + SERVICE_ACCOUNT;
    /** Where the operator finds a node's edge-server admin listener: none unless a test puts one here. */
    static final Map<String, URI> ADMIN_ENDPOINTS = new ConcurrentHashMap<>();

    private final RealApiServer api;
    private final KubernetesClient admin;
    private final KubernetesClient operatorClient;
    private final AtomicInteger instances = new AtomicInteger();
    private final RequestLog requests = new RequestLog();
    private EdgeOperator operator;
    private PrometheusMeterRegistry registry;
    private OpsEndpoints endpoints;

    OperatorHarness(RealApiServer api, KubernetesClient admin) {
        this.api = api;
        this.admin = admin;
        installRbac(admin);
        Config config = new ConfigBuilder(Config.fromKubeconfig(api.kubeconfigYaml()))
                .withImpersonateUsername(USER)
                .withImpersonateGroups(
                        "system:serviceaccounts", "system:serviceaccounts:" + NAMESPACE, "system:authenticated")
                .build();
        operatorClient = new KubernetesClientBuilder()
                .withConfig(config)
                .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("videoedge-it-requests", requests))
                .build();
    }

    /** The chart's rule files, applied as a ClusterRole and a Role bound to the operator's ServiceAccount. */
    static void installRbac(KubernetesClient admin) {
        admin.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(NAMESPACE)
                        .endMetadata()
                        .build())
                .serverSideApply();
        admin.serviceAccounts()
                .inNamespace(NAMESPACE)
                .resource(new ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName(SERVICE_ACCOUNT)
                        .endMetadata()
                        .build())
                .serverSideApply();
        admin.rbac()
                .clusterRoles()
                .resource(new ClusterRoleBuilder()
                        .withNewMetadata()
                        .withName("videoedge-operator")
                        .endMetadata()
                        .withRules(rules("charts/videoedge/files/rbac/operator-rules.yaml"))
                        .build())
                .serverSideApply();
        admin.rbac()
                .clusterRoleBindings()
                .resource(new ClusterRoleBindingBuilder()
                        .withNewMetadata()
                        .withName("videoedge-operator")
                        .endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "videoedge-operator")
                        .addNewSubject()
                        .withKind("ServiceAccount")
                        .withName(SERVICE_ACCOUNT)
                        .withNamespace(NAMESPACE)
                        .endSubject()
                        .build())
                .serverSideApply();
        admin.rbac()
                .roles()
                .inNamespace(NAMESPACE)
                .resource(new RoleBuilder()
                        .withNewMetadata()
                        .withName("videoedge-operator-leader-election")
                        .endMetadata()
                        .withRules(rules("charts/videoedge/files/rbac/operator-leader-election-rules.yaml"))
                        .build())
                .serverSideApply();
        admin.rbac()
                .roleBindings()
                .inNamespace(NAMESPACE)
                .resource(new RoleBindingBuilder()
                        .withNewMetadata()
                        .withName("videoedge-operator-leader-election")
                        .endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "Role", "videoedge-operator-leader-election")
                        .addNewSubject()
                        .withKind("ServiceAccount")
                        .withName(SERVICE_ACCOUNT)
                        .withNamespace(NAMESPACE)
                        .endSubject()
                        .build())
                .serverSideApply();
    }

    static List<PolicyRule> rules(String file) {
        return Arrays.asList(Serialization.unmarshal(TestFiles.read(file), PolicyRule[].class));
    }

    /** Every request the operator's client has sent. */
    RequestLog requests() {
        return requests;
    }

    KubernetesClient operatorClient() {
        return operatorClient;
    }

    /** The extra labels the operator puts on the edge servers' PodMonitors (the chart's monitoring.labels). */
    static final Map<String, String> POD_MONITOR_LABELS = Map.of("prometheus", "it");

    /** Starts an operator instance (a new identity each time, as a new pod would have). */
    void start() {
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        String identity = "videoedge-operator-it-" + instances.incrementAndGet();
        OperatorSettings settings = new OperatorSettings(
                        "videoedge/edge-server:it", "-XX:+UseStringDeduplication", Duration.ofSeconds(1), identity)
                .withPodMonitorLabels(POD_MONITOR_LABELS);
        operator = EdgeOperator.start(
                operatorClient,
                new EdgeOperator.Options(
                        settings,
                        Set.of(),
                        NAMESPACE,
                        Duration.ofSeconds(15),
                        false,
                        registry,
                        Clock.systemUTC(),
                        // the nodes' edge servers are stand-ins on loopback (CachePurgeIT)
                        node -> Optional.ofNullable(
                                ADMIN_ENDPOINTS.get(node.getMetadata().getName())),
                        // no slow retry of a late purge within a test: only a pod turning ready brings one
                        // (CachePurgeIT proves that without timing it)
                        Duration.ofHours(1)));
        try {
            endpoints = new OpsEndpoints(0, 0, registry, operator::runtimeInfo);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void stop() {
        if (endpoints != null) {
            endpoints.close();
            endpoints = null;
        }
        if (operator != null) {
            operator.close();
            operator = null;
        }
    }

    EdgeOperator operator() {
        return operator;
    }

    PrometheusMeterRegistry registry() {
        return registry;
    }

    OpsEndpoints endpoints() {
        return endpoints;
    }

    /** Reconciles of one VideoEdge that this instance finished without an error. */
    double successfulReconciles(String namespace, String name) {
        var counter = registry.find("operator.sdk.reconciliations.success")
                .tag("name", name)
                .tag("namespace", namespace)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    @Override
    public void close() {
        stop();
        operatorClient.close();
    }

    RealApiServer api() {
        return api;
    }
}
