package io.videoedge.operator.it;

import static io.videoedge.operator.it.ItEnv.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.api.Conditions;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.ServerSpec;
import io.videoedge.api.TuningSpec;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.api.VideoEdgeStatus;
import io.videoedge.operator.dependent.PodMonitor;
import io.videoedge.operator.render.EdgeServerConfigRenderer;
import io.videoedge.operator.render.Names;
import io.videoedge.operator.status.StatusAggregator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator on a real kube-apiserver + etcd, running in this JVM as its least-privilege
 * ServiceAccount (the chart's RBAC rule files, nothing more). The test creates the Nodes, stands in
 * for the node agents (NodeTuning status, finalizers) and for the DaemonSet controller and kubelets
 * ({@link FakeKubelets}); everything else is the operator's doing. Each test has its own namespace
 * and its own nodes (a pool label of its own).
 */
class VideoEdgeOperatorIT {
    @BeforeAll
    static void start() {
        ItEnv.start();
    }

    @AfterAll
    static void stop() {
        ItEnv.stop();
    }

    // ---------------------------------------------------------------- scenarios

    @Test
    void rollsOutConfigDaemonSetAndNodeTuningsAndServesOnlyOnTunedNodes() throws Exception {
        String ns = namespace("rollout");
        node("rollout-1", "rollout");
        node("rollout-2", "rollout");
        tlsSecret(ns, "edge-tls");
        VideoEdge ve = create(videoEdge(ns, "edge", "rollout", s -> s));

        // the config, the DaemonSet and one NodeTuning per selected node
        ConfigMap cm = eventually()
                .until(
                        () -> admin.configMaps()
                                .inNamespace(ns)
                                .withName("edge-edge-server")
                                .get(),
                        c -> c != null);
        VideoEdge read = get(ns, "edge");
        assertThat(cm.getData().get("edge-server.yaml"))
                .isEqualTo(EdgeServerConfigRenderer.render(ns + "/edge", read.getSpec()));
        DaemonSet ds = awaitEdgeDaemonSet(ns, "edge");
        var pod = ds.getSpec().getTemplate().getSpec();
        assertThat(pod.getHostNetwork()).isTrue();
        assertThat(pod.getDnsPolicy()).isEqualTo("ClusterFirstWithHostNet");
        assertThat(pod.getReadinessGates())
                .extracting(g -> g.getConditionType())
                .containsExactly(VideoEdgeApi.READINESS_GATE_NODE_TUNED);
        assertThat(pod.getContainers().getFirst().getResources().getLimits()).containsEntry("cpu", new Quantity("1"));
        assertThat(ds.getSpec().getTemplate().getMetadata().getAnnotations())
                .containsKeys(Names.CONFIG_CHECKSUM, Names.POD_REVISION);
        assertThat(ds.getSpec().getUpdateStrategy().getType()).isEqualTo("OnDelete");
        assertThat(ds.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(
                        o -> assertThat(o.getUid()).isEqualTo(ve.getMetadata().getUid()));
        // the session ticket keys every edge server of this VideoEdge shares, written under the chart's rules:
        // one key, in effect already, owned by the VideoEdge (deleted with it)
        var ticketKeys =
                admin.secrets().inNamespace(ns).withName("edge-ticket-keys").get();
        assertThat(ticketKeys).isNotNull();
        assertThat(ticketKeys.getMetadata().getLabels()).containsEntry("app.kubernetes.io/component", "ticket-keys");
        assertThat(ticketKeys.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(
                        o -> assertThat(o.getUid()).isEqualTo(ve.getMetadata().getUid()));
        assertThat(ticketKeys.getData().entrySet()).singleElement().satisfies(e -> {
            assertThat(Long.parseLong(e.getKey().substring(1))).isLessThanOrEqualTo(System.currentTimeMillis() / 1000);
            assertThat(java.util.Base64.getDecoder().decode(e.getValue())).hasSize(48);
        });
        assertThat(pod.getVolumes())
                .anySatisfy(v -> assertThat(
                                v.getSecret() == null ? null : v.getSecret().getSecretName())
                        .isEqualTo("edge-ticket-keys"));
        eventually()
                .untilAsserted(() -> assertThat(tunings("edge", ns))
                        .extracting(nt -> nt.getMetadata().getName())
                        .containsExactly("rollout-1", "rollout-2"));
        NodeTuning nt1 = tuning("rollout-1");
        assertThat(nt1.getSpec().tuning().kernelModules()).contains("tls");

        // pods scheduled: their UIDs go into the NodeTunings; nothing is tuned, so nothing serves
        eventually()
                .untilAsserted(
                        () -> assertThat(tuning("rollout-1").getSpec().server().podUid())
                                .isEqualTo(podOn(ns, "rollout-1").getMetadata().getUid()));
        eventually()
                .untilAsserted(
                        () -> assertThat(tuning("rollout-2").getSpec().server().podUid())
                                .isNotNull());
        eventually().untilAsserted(() -> {
            VideoEdgeStatus s = get(ns, "edge").getStatus();
            assertThat(s.nodes()).isEqualTo(new VideoEdgeStatus.NodeCounts(2, 0, 0, 0, 2, 0, 0));
            assertCondition(s, Conditions.READY, "False", Conditions.NODE_NOT_TUNED);
            assertCondition(s, Conditions.TUNING_APPLIED, "False", Conditions.NODE_NOT_TUNED);
            assertCondition(s, Conditions.SERVER_AVAILABLE, "False", Conditions.SERVER_NOT_READY);
            assertThat(condition(s, Conditions.SERVER_AVAILABLE).getMessage())
                    .contains("readiness gate \"videoedge.io/node-tuned\"");
            assertThat(gate(podOn(ns, "rollout-1")).getStatus()).isEqualTo("False");
        });
        excerpt("rollout-0-nothing-tuned", get(ns, "edge"));

        // the agent on node 1 applies: its server serves, node 2's does not
        new FakeAgent(admin, "rollout-1").applied("available");
        eventually().untilAsserted(() -> {
            assertThat(gate(podOn(ns, "rollout-1")).getStatus()).isEqualTo("True");
            assertThat(ready(podOn(ns, "rollout-1"))).isTrue();
            assertThat(ready(podOn(ns, "rollout-2"))).isFalse();
            VideoEdgeStatus s = get(ns, "edge").getStatus();
            assertThat(s.tuned()).isEqualTo("1/2");
            assertThat(s.serving()).isEqualTo("1/2");
            // tuned and serving for the soak time: node 1 is updated and healthy, so not listed; node 2
            // is in its turn
            assertThat(s.nodes().updated()).isEqualTo(1);
            assertThat(s.nodesNeedingAttention())
                    .extracting(VideoEdgeStatus.NodeSummary::node, VideoEdgeStatus.NodeSummary::rollout)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("rollout-2", "Updating"));
            assertThat(s.nodes().needingAttention()).isEqualTo(1);
        });
        excerpt("rollout-1-one-node-tuned", get(ns, "edge"));

        // an operator restart in the middle changes nothing that was already right
        Map<String, String> before = resourceVersions(ns, "edge");
        operator.stop();
        operator.start();
        eventually().until(() -> operator.successfulReconciles(ns, "edge") >= 1);
        assertThat(resourceVersions(ns, "edge")).isEqualTo(before);

        // node 2 applied too, but its kernel has no TLS: served with userspace OpenSSL, and the status says so
        new FakeAgent(admin, "rollout-2").applied("unavailable");
        eventually().untilAsserted(() -> {
            VideoEdgeStatus s = get(ns, "edge").getStatus();
            // node 2 needs attention (no kernel TLS), node 1 is healthy
            assertThat(s.nodes()).isEqualTo(new VideoEdgeStatus.NodeCounts(2, 2, 2, 2, 1, 0, 0));
            assertCondition(s, Conditions.READY, "True", Conditions.AS_EXPECTED);
            assertCondition(s, Conditions.TUNING_APPLIED, "True", Conditions.AS_EXPECTED);
            assertCondition(s, Conditions.PROGRESSING, "True", Conditions.ROLLOUT_COMPLETE);
            assertCondition(s, Conditions.SERVER_AVAILABLE, "True", Conditions.AS_EXPECTED);
            assertCondition(s, Conditions.DEGRADED, "True", Conditions.KERNEL_TLS_UNAVAILABLE);
            assertThat(condition(s, Conditions.DEGRADED).getMessage())
                    .contains("rollout-2")
                    .contains("userspace OpenSSL");
            assertThat(s.nodesNeedingAttention())
                    .extracting(
                            VideoEdgeStatus.NodeSummary::node,
                            VideoEdgeStatus.NodeSummary::ktls,
                            VideoEdgeStatus.NodeSummary::tls)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("rollout-2", "unavailable", "openssl"));
            assertThat(s.nodesNeedingAttention().getFirst().message())
                    .as("the node's summary leads with kernel TLS, ahead of the agent's report")
                    .startsWith(
                            "kernel TLS unavailable: the server uses userspace OpenSSL; agent reports Degraded=True");
            assertThat(s.tls()).as("the TLS column: what serves").isEqualTo("ktls 1, openssl 1");
        });
        excerpt("rollout-2-serving", get(ns, "edge"));
        assertThat(events(ns))
                .anySatisfy(e -> assertThat(e).isEqualTo("Normal Ready"))
                .anySatisfy(e -> assertThat(e).isEqualTo("Warning KernelTlsUnavailable"));

        // a tuning change (generation 2): rolled out node by node (RolloutIT proves the waves); the agents
        // answer every new NodeTuning generation from here on
        String podRevision =
                ds.getSpec().getTemplate().getMetadata().getAnnotations().get(Names.POD_REVISION);
        agents.manage("rollout-1", "rollout-2");
        edit(ns, "edge", s -> withSysctl(s, "net.core.somaxconn", "65535"));
        eventually().untilAsserted(() -> {
            assertThat(tuning("rollout-1").getSpec().tuning().sysctls()).containsEntry("net.core.somaxconn", "65535");
            assertThat(tuning("rollout-2").getSpec().tuning().sysctls()).containsEntry("net.core.somaxconn", "65535");
            VideoEdgeStatus s = get(ns, "edge").getStatus();
            assertThat(s.observedGeneration()).isEqualTo(2L);
            assertCondition(s, Conditions.READY, "True", Conditions.AS_EXPECTED);
            assertCondition(s, Conditions.PROGRESSING, "True", Conditions.ROLLOUT_COMPLETE);
            assertCondition(s, Conditions.DEGRADED, "False", Conditions.AS_EXPECTED);
        });
        // a sysctl is no server config: same pod revision, no pod restart
        assertThat(edgeDaemonSet(ns, "edge")
                        .getSpec()
                        .getTemplate()
                        .getMetadata()
                        .getAnnotations()
                        .get(Names.POD_REVISION))
                .isEqualTo(podRevision);
        excerpt("rollout-3-generation-2-serving", get(ns, "edge"));
    }

    @Test
    void aConfigChangeRollsThePodsAndEachNewPodWaitsForItsNodesAgent() {
        String ns = namespace("reconfig");
        node("reconfig-1", "reconfig");
        create(videoEdge(ns, "edge", "reconfig", ItEnv::plainHttp));
        placed("reconfig-1").applied("available");
        eventually().until(() -> ready(podOn(ns, "reconfig-1")));
        Pod before = podOn(ns, "reconfig-1");
        String checksum = edgeDaemonSet(ns, "edge")
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations()
                .get(Names.CONFIG_CHECKSUM);

        edit(ns, "edge", s -> withServer(s, sv -> sv.withSelectors(2)));
        // the config is rewritten, the template's checksum moves, the pod is replaced; the new pod is not
        // Ready before the agent has applied the NodeTuning that names it
        eventually().untilAsserted(() -> {
            assertThat(admin.configMaps()
                            .inNamespace(ns)
                            .withName("edge-edge-server")
                            .get()
                            .getData()
                            .get("edge-server.yaml"))
                    .startsWith("# Edge server configuration")
                    .contains("\nselectors: 2\n");
            assertThat(edgeDaemonSet(ns, "edge")
                            .getSpec()
                            .getTemplate()
                            .getMetadata()
                            .getAnnotations()
                            .get(Names.CONFIG_CHECKSUM))
                    .isNotEqualTo(checksum);
            Pod after = podOn(ns, "reconfig-1");
            assertThat(after.getMetadata().getUid())
                    .isNotEqualTo(before.getMetadata().getUid());
            assertThat(tuning("reconfig-1").getSpec().server().podUid())
                    .isEqualTo(after.getMetadata().getUid());
            assertThat(gate(after).getStatus()).isEqualTo("False");
            assertThat(ready(after)).isFalse();
        });
        new FakeAgent(admin, "reconfig-1").applied("available");
        eventually().untilAsserted(() -> {
            assertThat(ready(podOn(ns, "reconfig-1"))).isTrue();
            assertCondition(get(ns, "edge").getStatus(), Conditions.READY, "True", Conditions.AS_EXPECTED);
        });
    }

    @Test
    void removingANodeLabelDeletesItsNodeTuningOnceTheAgentRestoredIt() {
        String ns = namespace("unlabel");
        node("unlabel-1", "unlabel");
        node("unlabel-2", "unlabel");
        create(videoEdge(ns, "edge", "unlabel", ItEnv::plainHttp));
        eventually().until(() -> tunings("edge", ns).size() == 2);
        placed("unlabel-1").applied("available");
        placed("unlabel-2").applied("available");
        eventually()
                .until(() -> "True"
                        .equals(condition(get(ns, "edge").getStatus(), Conditions.READY)
                                .getStatus()));

        admin.nodes().withName("unlabel-2").edit(n -> {
            n.getMetadata().getLabels().remove(POOL);
            return n;
        });
        // deleted, but held by the agent until it has restored the node's originals
        eventually().until(() -> tuning("unlabel-2").getMetadata().getDeletionTimestamp() != null);
        new FakeAgent(admin, "unlabel-2").restored();
        eventually().untilAsserted(() -> {
            assertThat(tuning("unlabel-2")).isNull();
            assertThat(admin.pods().inNamespace(ns).list().getItems())
                    .extracting(p -> p.getSpec().getNodeName())
                    .containsExactly("unlabel-1");
            VideoEdgeStatus s = get(ns, "edge").getStatus();
            assertThat(s.nodes()).isEqualTo(new VideoEdgeStatus.NodeCounts(1, 1, 1, 1, 0, 0, 0));
            assertThat(s.nodesNeedingAttention()).isEmpty();
            assertCondition(s, Conditions.READY, "True", Conditions.AS_EXPECTED);
        });
        assertThat(tuning("unlabel-1").getMetadata().getDeletionTimestamp()).isNull();
        excerpt("unlabel-after", get(ns, "edge"));
    }

    @Test
    void aSecondVideoEdgeOnTheSameNodeReportsConflictAndTakesTheNodeOnlyWhenTheOlderLetsGo() {
        String ns = namespace("conflict");
        node("conflict-1", "conflict-a");
        node("conflict-2", "conflict-a", Map.of("it.videoedge.io/also", "conflict-b"));
        node("conflict-3", "conflict-b-only", Map.of("it.videoedge.io/also", "conflict-b"));
        // named so that name order would pick the newer one: age decides
        VideoEdge older = create(videoEdge(ns, "z-older", "conflict-a", ItEnv::plainHttp));
        eventually().until(() -> tunings("z-older", ns).size() == 2);
        Instant olderCreated = Instant.parse(older.getMetadata().getCreationTimestamp());
        await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(olderCreated.plusSeconds(1)));
        create(videoEdge(ns, "a-newer", Map.of("it.videoedge.io/also", "conflict-b"), ItEnv::plainHttp));

        eventually().untilAsserted(() -> {
            VideoEdgeStatus s = get(ns, "a-newer").getStatus();
            assertCondition(s, Conditions.DEGRADED, "True", Conditions.CONFLICT);
            assertThat(condition(s, Conditions.DEGRADED).getMessage())
                    .isEqualTo("node conflict-2 is also selected by the older VideoEdge " + ns
                            + "/z-older, which keeps it");
            assertThat(s.nodes().selected()).isEqualTo(1);
            assertThat(s.nodes().needingAttention()).isEqualTo(2);
            assertThat(s.nodesNeedingAttention())
                    .extracting(VideoEdgeStatus.NodeSummary::node, VideoEdgeStatus.NodeSummary::tuning)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("conflict-2", "Conflict"),
                            org.assertj.core.groups.Tuple.tuple("conflict-3", "Pending"));
            // nothing merged: the contested NodeTuning is the older one's, the newer server stays off the node
            assertThat(Names.ownerOf(tuning("conflict-2"))).hasValue(ns + "/z-older");
            assertThat(tuning("conflict-3"))
                    .satisfies(nt -> assertThat(Names.ownerOf(nt)).hasValue(ns + "/a-newer"));
            assertThat(admin.pods()
                            .inNamespace(ns)
                            .withLabel(VideoEdgeApi.LABEL_OWNER_NAME, "a-newer")
                            .list()
                            .getItems())
                    .extracting(p -> p.getSpec().getNodeName())
                    .containsExactly("conflict-3");
        });
        assertThat(get(ns, "z-older").getStatus().nodes().selected()).isEqualTo(2);
        excerpt("conflict-newer", get(ns, "a-newer"));
        assertThat(events(ns)).contains("Warning Conflict");

        // the older one goes (its agents restore first); then the node is the newer one's
        new FakeAgent(admin, "conflict-1").adopt();
        new FakeAgent(admin, "conflict-2").adopt();
        admin.resource(get(ns, "z-older")).delete();
        eventually().until(() -> tuning("conflict-2").getMetadata().getDeletionTimestamp() != null);
        new FakeAgent(admin, "conflict-1").restored();
        new FakeAgent(admin, "conflict-2").restored();
        eventually().untilAsserted(() -> {
            assertThat(Names.ownerOf(tuning("conflict-2"))).hasValue(ns + "/a-newer");
            VideoEdgeStatus s = get(ns, "a-newer").getStatus();
            assertThat(s.nodes().selected()).isEqualTo(2);
            assertThat(s.nodesNeedingAttention())
                    .extracting(VideoEdgeStatus.NodeSummary::tuning)
                    .doesNotContain("Conflict");
            assertThat(condition(s, Conditions.DEGRADED).getReason()).isNotEqualTo(Conditions.CONFLICT);
        });
    }

    /**
     * The other order: an older VideoEdge comes to select a node a newer one holds (a label added). Handing it
     * over would take its server out there and then (and every such node's at once); the holder keeps it and
     * says so, the older waits for its release, which comes when the holder no longer selects it.
     */
    @Test
    void aNodeANewerVideoEdgeHoldsStaysItsOwnWhenAnOlderOneComesToSelectIt() {
        String ns = namespace("contest");
        node("contest-1", "contest-a");
        node("contest-2", "contest-b-only", Map.of("it.videoedge.io/also", "contest-b"));
        VideoEdge older = create(videoEdge(ns, "z-older", "contest-a", ItEnv::plainHttp));
        eventually().until(() -> tunings("z-older", ns).size() == 1);
        Instant olderCreated = Instant.parse(older.getMetadata().getCreationTimestamp());
        await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(olderCreated.plusSeconds(1)));
        create(videoEdge(ns, "a-newer", Map.of("it.videoedge.io/also", "contest-b"), ItEnv::plainHttp));
        eventually().until(() -> tunings("a-newer", ns).size() == 1);

        admin.nodes().withName("contest-2").edit(n -> {
            n.getMetadata().getLabels().put(ItEnv.POOL, "contest-a");
            return n;
        });
        eventually().untilAsserted(() -> {
            VideoEdgeStatus s = get(ns, "a-newer").getStatus();
            assertCondition(s, Conditions.DEGRADED, "True", Conditions.CONFLICT);
            assertThat(condition(s, Conditions.DEGRADED).getMessage())
                    .isEqualTo("node contest-2 is also selected by the older VideoEdge " + ns
                            + "/z-older: this one keeps serving it until it no longer selects it (handing nodes over"
                            + " would take their servers out together)");
            // the older one neither counts nor serves it meanwhile, and says why
            VideoEdgeStatus o = get(ns, "z-older").getStatus();
            assertThat(o.nodes().selected()).isEqualTo(1);
            assertThat(o.nodesNeedingAttention())
                    .extracting(VideoEdgeStatus.NodeSummary::node, VideoEdgeStatus.NodeSummary::tuning)
                    .contains(org.assertj.core.groups.Tuple.tuple("contest-2", "Conflict"));
            assertThat(condition(o, Conditions.DEGRADED).getMessage())
                    .isEqualTo("node contest-2 is held by the newer VideoEdge " + ns + "/a-newer, which selects it too:"
                            + " this one takes it once that one no longer selects it");
            assertThat(admin.apps()
                            .daemonSets()
                            .inNamespace(ns)
                            .withLabel(VideoEdgeApi.LABEL_OWNER_NAME, "z-older")
                            .list()
                            .getItems())
                    .singleElement()
                    .satisfies(ds -> assertThat(Serialization.asJson(
                                    ds.getSpec().getTemplate().getSpec().getAffinity()))
                            .contains("\"NotIn\"", "contest-2"));
        });
        // some passes later still the holder's: its NodeTuning, its server placed there
        await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> true);
        assertThat(Names.ownerOf(tuning("contest-2"))).hasValue(ns + "/a-newer");
        assertThat(tuning("contest-2").getMetadata().getDeletionTimestamp()).isNull();
        assertThat(admin.apps()
                        .daemonSets()
                        .inNamespace(ns)
                        .withLabel(VideoEdgeApi.LABEL_OWNER_NAME, "a-newer")
                        .list()
                        .getItems())
                .singleElement()
                .satisfies(ds -> assertThat(Serialization.asJson(
                                ds.getSpec().getTemplate().getSpec().getAffinity()))
                        .doesNotContain("contest-2"));

        // the holder lets it go (its label removed): released once its agent restored the node, then the older one's
        new FakeAgent(admin, "contest-2").adopt();
        admin.nodes().withName("contest-2").edit(n -> {
            n.getMetadata().getLabels().remove("it.videoedge.io/also");
            return n;
        });
        eventually().until(() -> tuning("contest-2").getMetadata().getDeletionTimestamp() != null);
        new FakeAgent(admin, "contest-2").restored();
        eventually()
                .untilAsserted(
                        () -> assertThat(Names.ownerOf(tuning("contest-2"))).hasValue(ns + "/z-older"));
    }

    @Test
    void aNodeTuningChangedByHandIsPutBack() {
        String ns = namespace("drift");
        node("drift-1", "drift");
        create(videoEdge(ns, "edge", "drift", ItEnv::plainHttp));
        eventually().until(() -> tunings("edge", ns).size() == 1);
        placed("drift-1").applied("available");
        eventually().until(() -> tuning("drift-1").getSpec().server().podUid() != null);
        NodeTuning settled = tuning("drift-1");
        String swappiness = settled.getSpec().tuning().sysctls().get("vm.swappiness");
        String revision = settled.getMetadata().getAnnotations().get(Names.TUNING_REVISION);

        // someone edits the spec and an annotation the operator applies: both are put back
        assertThat(swappiness).isNotEqualTo("60");
        NodeTuning edited = admin.resources(NodeTuning.class)
                .withName("drift-1")
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"metadata\":{\"annotations\":{\"" + Names.TUNING_REVISION
                                + "\":\"by-hand\"}},\"spec\":{\"tuning\":{\"sysctls\":{\"vm.swappiness\":\"60\"}}}}");
        assertThat(edited.getSpec().tuning().sysctls()).containsEntry("vm.swappiness", "60");
        assertThat(edited.getMetadata().getAnnotations()).containsEntry(Names.TUNING_REVISION, "by-hand");
        eventually().untilAsserted(() -> {
            NodeTuning nt = tuning("drift-1");
            assertThat(nt.getSpec().tuning().sysctls()).containsEntry("vm.swappiness", swappiness);
            assertThat(nt.getMetadata().getAnnotations()).containsEntry(Names.TUNING_REVISION, revision);
        });
    }

    @Test
    void deletionWaitsForTheAgentsToRestoreTheirNodes() {
        String ns = namespace("delete");
        node("delete-1", "delete");
        node("delete-2", "delete");
        create(videoEdge(ns, "edge", "delete", ItEnv::plainHttp));
        eventually().until(() -> tunings("edge", ns).size() == 2);
        placed("delete-1").applied("available");
        placed("delete-2").applied("available");

        admin.resource(get(ns, "edge")).delete();
        eventually().untilAsserted(() -> {
            assertThat(tuning("delete-1").getMetadata().getDeletionTimestamp()).isNotNull();
            assertThat(tuning("delete-2").getMetadata().getDeletionTimestamp()).isNotNull();
            VideoEdge ve = get(ns, "edge");
            assertThat(ve.getMetadata().getDeletionTimestamp()).isNotNull();
            assertCondition(ve.getStatus(), Conditions.READY, "False", Conditions.RESTORING);
            assertCondition(ve.getStatus(), Conditions.SERVER_AVAILABLE, "False", Conditions.RESTORING);
            assertThat(condition(ve.getStatus(), Conditions.TUNING_APPLIED).getMessage())
                    .isEqualTo("deleting: waiting for the node agents to restore delete-1, delete-2");
        });
        excerpt("delete-waiting", get(ns, "edge"));
        new FakeAgent(admin, "delete-1").restored();
        eventually().untilAsserted(() -> {
            assertThat(tuning("delete-1")).isNull();
            assertThat(condition(get(ns, "edge").getStatus(), Conditions.TUNING_APPLIED)
                            .getMessage())
                    .endsWith("restore delete-2");
        });
        new FakeAgent(admin, "delete-2").restored();
        eventually().until(() -> get(ns, "edge") == null);
        // the agents may go: their nodes are restored
        eventually()
                .untilAsserted(() -> assertThat(List.of("delete-1", "delete-2"))
                        .allSatisfy(n -> assertThat(admin.nodes()
                                        .withName(n)
                                        .get()
                                        .getMetadata()
                                        .getLabels())
                                .doesNotContainKey(VideoEdgeApi.LABEL_NODE_AGENT)));
    }

    @Test
    void aNodeTuningWhoseNodeIsGoneIsReleasedByTheOperator() {
        String ns = namespace("gone");
        node("gone-1", "gone");
        node("gone-2", "gone");
        create(videoEdge(ns, "edge", "gone", ItEnv::plainHttp));
        eventually().until(() -> tunings("edge", ns).size() == 2);
        placed("gone-1").applied("available");
        placed("gone-2").applied("available");

        admin.nodes().withName("gone-2").delete();
        // no agent will ever release it: the operator does
        eventually().untilAsserted(() -> {
            assertThat(tuning("gone-2")).isNull();
            assertThat(get(ns, "edge").getStatus().nodes().selected()).isEqualTo(1);
        });
        assertThat(tuning("gone-1").getMetadata().getFinalizers()).contains(VideoEdgeApi.AGENT_FINALIZER);
    }

    @Test
    void invalidSpecIsReportedWithAReasonAndNothingIsRolledOut() {
        String ns = namespace("invalid");
        node("invalid-1", "invalid");
        create(videoEdge(ns, "edge", "invalid", s -> s));
        eventually().untilAsserted(() -> {
            VideoEdgeStatus s = get(ns, "edge").getStatus();
            assertCondition(s, Conditions.READY, "False", Conditions.INVALID_SPEC);
            assertCondition(s, Conditions.DEGRADED, "True", Conditions.INVALID_SPEC);
            assertThat(condition(s, Conditions.DEGRADED).getMessage())
                    .isEqualTo(
                            "TLS Secret " + ns
                                    + "/edge-tls (tls.secretName) not found: create a Secret of type kubernetes.io/tls with tls.crt and tls.key");
            assertThat(condition(s, Conditions.READY).getMessage())
                    .startsWith(condition(s, Conditions.DEGRADED).getMessage());
        });
        excerpt("invalid-missing-secret", get(ns, "edge"));
        assertNothingRolledOut(ns, "edge");

        // the wrong type of Secret: still refused, with the reason
        admin.secrets()
                .inNamespace(ns)
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName("edge-tls")
                        .endMetadata()
                        .withType("Opaque")
                        .addToStringData("tls.crt", "x")
                        .build())
                .create();
        eventually()
                .untilAsserted(() -> assertThat(condition(get(ns, "edge").getStatus(), Conditions.DEGRADED)
                                .getMessage())
                        .isEqualTo("TLS Secret " + ns + "/edge-tls is of type Opaque, not kubernetes.io/tls"));
        assertNothingRolledOut(ns, "edge");

        // fixed (the Secret is not watched: the operator looks again after the recheck interval)
        admin.secrets().inNamespace(ns).withName("edge-tls").delete();
        eventually()
                .until(() ->
                        admin.secrets().inNamespace(ns).withName("edge-tls").get() == null);
        tlsSecret(ns, "edge-tls");
        eventually().until(() -> tuning("invalid-1") != null && edgeDaemonSet(ns, "edge") != null);

        // a server larger than any selected node: refused as a whole, the running one is left as it was
        eventually()
                .until(() -> tuning("invalid-1").getSpec().server().podUid() != null); // placed: nothing more to write
        DaemonSet running = edgeDaemonSet(ns, "edge");
        String tuned = tuning("invalid-1").getMetadata().getResourceVersion();
        edit(ns, "edge", s -> withServer(s, sv -> sv.withCpus(64)));
        eventually().untilAsserted(() -> {
            VideoEdgeStatus s = get(ns, "edge").getStatus();
            assertThat(s.observedGeneration()).isEqualTo(2L);
            assertCondition(s, Conditions.READY, "False", Conditions.INVALID_SPEC);
            assertThat(condition(s, Conditions.DEGRADED).getMessage())
                    .isEqualTo(
                            "server.cpus 64 / server.memory 1Gi do not fit on node invalid-1 (4 CPUs allocatable): lower them or narrow nodeSelector");
        });
        excerpt("invalid-cpus", get(ns, "edge"));
        assertThat(edgeDaemonSet(ns, "edge").getMetadata().getResourceVersion())
                .isEqualTo(running.getMetadata().getResourceVersion());
        assertThat(tuning("invalid-1").getMetadata().getResourceVersion()).isEqualTo(tuned);
    }

    @Test
    void anHttpsOriginWaitsForItsCaSecretThenTrustsItAndANewBundleRollsTheServers() {
        String ns = namespace("origin-ca");
        create(videoEdge(
                ns,
                "edge",
                "origin-ca",
                s -> withServer(
                        plainHttp(s),
                        sv -> sv.withOrigin(new ServerSpec.Origin(
                                "https://origin.example:8443/video", "origin-ca", "1s", "10s", 64)))));
        eventually().untilAsserted(() -> {
            VideoEdgeStatus s = get(ns, "edge").getStatus();
            assertCondition(s, Conditions.READY, "False", Conditions.INVALID_SPEC);
            assertCondition(s, Conditions.DEGRADED, "True", Conditions.INVALID_SPEC);
            assertThat(condition(s, Conditions.DEGRADED).getMessage())
                    .isEqualTo(
                            "origin CA Secret " + ns + "/origin-ca "
                                    + "(server.origin.caSecretName) not found: create it with the PEM bundle of the CAs the origin's certificate "
                                    + "chains to under the key ca.crt (kubectl create secret generic origin-ca --from-file=ca.crt=bundle.pem)");
        });
        excerpt("invalid-missing-origin-ca", get(ns, "edge"));
        assertNothingRolledOut(ns, "edge");

        // created (read, not watched: the operator looks again after the recheck interval)
        String pem = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n";
        admin.secrets()
                .inNamespace(ns)
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName("origin-ca")
                        .endMetadata()
                        .addToData("ca.crt", Base64.getEncoder().encodeToString(pem.getBytes()))
                        .build())
                .create();
        ConfigMap cm = eventually()
                .until(
                        () -> admin.configMaps()
                                .inNamespace(ns)
                                .withName("edge-edge-server")
                                .get(),
                        c -> c != null);
        assertThat(cm.getData().get("edge-server.yaml")).contains("""
        origin:
          url: https://origin.example:8443/video
          caFile: /etc/videoedge/origin-ca/ca.crt
        """);
        DaemonSet ds = awaitEdgeDaemonSet(ns, "edge");
        var pod = ds.getSpec().getTemplate().getSpec();
        assertThat(pod.getVolumes())
                .filteredOn(v -> v.getName().equals("origin-ca"))
                .singleElement()
                .satisfies(v -> {
                    assertThat(v.getSecret().getSecretName()).isEqualTo("origin-ca");
                    assertThat(v.getSecret().getItems())
                            .extracting(i -> i.getKey() + "->" + i.getPath())
                            .containsExactly("ca.crt->ca.crt");
                });
        assertThat(pod.getContainers().getFirst().getVolumeMounts())
                .filteredOn(m -> m.getName().equals("origin-ca"))
                .singleElement()
                .satisfies(m -> {
                    assertThat(m.getMountPath()).isEqualTo("/etc/videoedge/origin-ca");
                    assertThat(m.getReadOnly()).isTrue();
                });
        eventually()
                .untilAsserted(() -> assertThat(condition(get(ns, "edge").getStatus(), Conditions.READY)
                                .getReason())
                        .isNotEqualTo(Conditions.INVALID_SPEC));
        String revision =
                ds.getSpec().getTemplate().getMetadata().getAnnotations().get(Names.POD_REVISION);
        assertThat(ds.getSpec().getTemplate().getMetadata().getAnnotations()).containsKey(Names.ORIGIN_CA_CHECKSUM);

        // a new bundle: the same config, a new pod revision (the server loads the bundle only at start: the rollout
        // restarts it)
        String rotated = pem.replace("MIIB", "MIIC");
        admin.secrets()
                .inNamespace(ns)
                .withName("origin-ca")
                .edit(sec -> new SecretBuilder(sec)
                        .withData(Map.of("ca.crt", Base64.getEncoder().encodeToString(rotated.getBytes())))
                        .build());
        eventually()
                .untilAsserted(() -> assertThat(edgeDaemonSet(ns, "edge")
                                .getSpec()
                                .getTemplate()
                                .getMetadata()
                                .getAnnotations()
                                .get(Names.POD_REVISION))
                        .isNotEqualTo(revision));
        assertThat(admin.configMaps()
                        .inNamespace(ns)
                        .withName("edge-edge-server")
                        .get()
                        .getData())
                .isEqualTo(cm.getData());
    }

    @Test
    void planModeServesUntunedAndSaysSo() {
        String ns = namespace("plan");
        node("plan-1", "plan");
        create(videoEdge(
                ns,
                "edge",
                "plan",
                s -> withTuning(
                        plainHttp(s),
                        t -> new TuningSpec(
                                io.videoedge.api.TuningMode.PLAN,
                                t.congestionControl(),
                                t.sysctls(),
                                t.cpusetRelaxDomainLevel(),
                                t.numaInterleave(),
                                t.kernelModules()))));
        placed("plan-1").planned();
        eventually().untilAsserted(() -> {
            assertThat(gate(podOn(ns, "plan-1"))).satisfies(g -> {
                assertThat(g.getStatus()).isEqualTo("True");
                assertThat(g.getReason()).isEqualTo(Conditions.PLAN_ONLY);
            });
            VideoEdgeStatus s = get(ns, "edge").getStatus();
            assertCondition(s, Conditions.READY, "True", Conditions.AS_EXPECTED);
            assertCondition(s, Conditions.TUNING_APPLIED, "False", Conditions.PLAN_ONLY);
            assertCondition(s, Conditions.SERVER_AVAILABLE, "True", Conditions.AS_EXPECTED);
            assertCondition(s, Conditions.DEGRADED, "True", Conditions.PLAN_ONLY);
            assertThat(s.tuned()).isEqualTo("0/1");
            assertThat(s.serving()).isEqualTo("1/1");
            // serving untuned by request: listed, so kubectl shows why TuningApplied is False
            assertThat(s.nodesNeedingAttention().getFirst().tuning()).isEqualTo("Planned");
        });
        excerpt("plan-mode", get(ns, "edge"));
    }

    /**
     * A selected node tainted against the edge server: tuned, but no pod can be placed there; the status names the
     * taint (the operator's Node cache keeps taints, and a taint's change reaches it), and a matching toleration
     * brings the server.
     */
    @Test
    void aNodeWhoseTaintKeepsTheServerOffIsNamedWithItsTaintUntilTolerated() {
        String ns = namespace("taint");
        node("taint-1", "taint");
        taint("taint-1", new Taint("NoSchedule", "videoedge.test/first", null, "x"));
        create(videoEdge(ns, "edge", "taint", ItEnv::plainHttp));
        eventually()
                .untilAsserted(() -> assertThat(condition(get(ns, "edge").getStatus(), Conditions.SERVER_AVAILABLE)
                                .getMessage())
                        .contains("taint-1 (no edge-server pod on this node: the DaemonSet places none, as "
                                + "spec.tolerations does not tolerate its taint videoedge.test/first=x:NoSchedule)"));
        // another taint: the operator's Node cache follows
        taint("taint-1", new Taint("NoExecute", "videoedge.test/second", null, null));
        eventually()
                .untilAsserted(() -> assertThat(condition(get(ns, "edge").getStatus(), Conditions.SERVER_AVAILABLE)
                                .getMessage())
                        .contains("does not tolerate its taint videoedge.test/second:NoExecute"));
        assertThat(admin.pods().inNamespace(ns).list().getItems()).isEmpty();

        edit(
                ns,
                "edge",
                s -> s.withTolerations(List.of(
                        new io.videoedge.api.Toleration("videoedge.test/second", "Exists", null, "NoExecute", null))));
        placed("taint-1").applied("available");
        eventually()
                .untilAsserted(() -> assertCondition(
                        get(ns, "edge").getStatus(), Conditions.SERVER_AVAILABLE, "True", Conditions.AS_EXPECTED));
    }

    /** The node's taints, replaced by {@code taint}. */
    private static void taint(String node, Taint taint) {
        admin.nodes().withName(node).edit(n -> {
            n.getSpec().setTaints(List.of(taint));
            return n;
        });
    }

    @Test
    void podMonitorOnlyWhereThePrometheusOperatorCrdsExist() {
        String ns = namespace("monitor");
        node("monitor-1", "monitor");
        create(videoEdge(ns, "edge", "monitor", ItEnv::plainHttp));
        eventually().until(() -> edgeDaemonSet(ns, "edge") != null);
        // without the CRD the operator just runs: a reconcile succeeds (a failed PodMonitor write would fail
        // it, and the error status would be written all the same), no PodMonitor is attempted
        eventually().until(() -> operator.successfulReconciles(ns, "edge") >= 1);
        assertThat(get(ns, "edge").getStatus().conditions())
                .noneSatisfy(c -> assertThat(c.getReason()).isEqualTo(StatusAggregator.RECONCILE_FAILED));
        assertThat(admin.apiextensions()
                        .v1()
                        .customResourceDefinitions()
                        .withName("podmonitors.monitoring.coreos.com")
                        .get())
                .isNull();

        CustomResourceDefinition crd = admin.apiextensions()
                .v1()
                .customResourceDefinitions()
                .load(getClass().getResourceAsStream("/podmonitors.monitoring.coreos.com.yaml"))
                .item();
        admin.resource(crd).serverSideApply();
        try {
            PodMonitor monitor = eventually()
                    .until(
                            () -> admin.resources(PodMonitor.class)
                                    .inNamespace(ns)
                                    .withName("edge-edge-server")
                                    .get(),
                            m -> m != null);
            assertThat(Serialization.asJson(monitor.getSpec()))
                    .contains("\"port\":\"admin\"")
                    .contains("\"path\":\"/metrics\"")
                    .contains("\"" + VideoEdgeApi.LABEL_OWNER_NAME + "\":\"edge\"");
            assertThat(monitor.getMetadata().getOwnerReferences())
                    .singleElement()
                    .satisfies(o -> assertThat(o.getName()).isEqualTo("edge"));
            // what a Prometheus selects PodMonitors by: the operator's --pod-monitor-labels, beside its own
            assertThat(monitor.getMetadata().getLabels())
                    .containsAllEntriesOf(OperatorHarness.POD_MONITOR_LABELS)
                    .containsEntry(VideoEdgeApi.LABEL_OWNER_NAME, "edge");
        } finally {
            admin.resource(crd).delete();
        }
    }

    @Test
    void theOperatorHoldsOnlyTheChartsRulesAndServesMetricsAndProbes() throws Exception {
        // the client the operator runs with is the ServiceAccount: no secrets list, no node creation
        KubernetesClient sa = operator.operatorClient();
        assertThatThrownBy(() -> sa.secrets().inAnyNamespace().list())
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getCode()).isEqualTo(403));
        assertThatThrownBy(() -> sa.nodes()
                        .resource(new NodeBuilder()
                                .withNewMetadata()
                                .withName("rbac-probe")
                                .endMetadata()
                                .build())
                        .create())
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getCode()).isEqualTo(403));
        assertThat(admin.leases()
                        .inNamespace(OperatorHarness.NAMESPACE)
                        .withName("videoedge-operator")
                        .get()
                        .getSpec()
                        .getHolderIdentity())
                .startsWith("videoedge-operator-it-");

        String ns = namespace("metrics");
        create(videoEdge(ns, "edge", "metrics", ItEnv::plainHttp));
        HttpClient http = HttpClient.newHttpClient();
        eventually().untilAsserted(() -> {
            HttpResponse<String> metrics = http.send(
                    HttpRequest.newBuilder(URI.create(
                                    "http://127.0.0.1:" + operator.endpoints().metricsPort() + "/metrics"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.body())
                    .contains(
                            "operator_sdk_reconciliations_success_total{group=\"videoedge.io\",kind=\"VideoEdge\",name=\"edge\",namespace=\""
                                    + ns + "\"")
                    .contains("operator_sdk_controllers_execution_reconcile_seconds")
                    .contains("videoedge_nodes{namespace=\"" + ns + "\",state=\"selected\",videoedge=\"edge\"}")
                    .contains("videoedge_condition{namespace=\"" + ns + "\",type=\"Ready\",videoedge=\"edge\"}");
        });
        for (String probe : List.of("/healthz", "/readyz")) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(
                                    "http://127.0.0.1:" + operator.endpoints().healthPort() + probe))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(probe).isEqualTo(200);
        }
    }
}
