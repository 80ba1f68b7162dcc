package io.videoedge.operator.it;

import static io.videoedge.operator.it.ItEnv.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.api.Conditions;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.RolloutSpec;
import io.videoedge.api.ServerSpec;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.api.VideoEdgeSpec;
import io.videoedge.api.VideoEdgeStatus;
import io.videoedge.operator.render.Names;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rollout state machine on a real kube-apiserver: fleets of three nodes, node agents that answer
 * every new NodeTuning generation (or fail where a test injects a fault, or hold), a DaemonSet
 * controller that never replaces a pod on its own (OnDelete, as the operator's DaemonSet asks), and a
 * sampler that sees every readiness transition. Each change is made as a user would make it: an edit of
 * the VideoEdge.
 */
class RolloutIT {
    static final int SOAK = 2;

    @BeforeAll
    static void start() {
        ItEnv.start();
    }

    @AfterAll
    static void stop() {
        ItEnv.stop();
    }

    /** Plain HTTP, maxUnavailable and deadline as given, a 2 s soak, a 1 s drain. */
    static UnaryOperator<VideoEdgeSpec> rollout(String maxUnavailable, int deadline, boolean autoRevert) {
        return s -> ItEnv.plainHttp(s).withRollout(new RolloutSpec(maxUnavailable, deadline, SOAK, autoRevert, 1));
    }

    static List<String> fleet(String prefix, int n) {
        List<String> nodes = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            node(prefix + "-" + i, prefix);
            nodes.add(prefix + "-" + i);
        }
        agents.manage(nodes.toArray(String[]::new));
        return nodes;
    }

    static void awaitComplete(String ns, String name) {
        eventually().atMost(Duration.ofSeconds(120)).untilAsserted(() -> {
            VideoEdge ve = get(ns, name);
            VideoEdgeStatus s = ve.getStatus();
            assertThat(s.observedGeneration()).isEqualTo(ve.getMetadata().getGeneration());
            assertCondition(s, Conditions.PROGRESSING, "True", Conditions.ROLLOUT_COMPLETE);
            assertCondition(s, Conditions.READY, "True", Conditions.AS_EXPECTED);
            assertThat(s.updated())
                    .isEqualTo(s.nodes().selected() + "/" + s.nodes().selected());
        });
    }

    static Map<String, String> podUids(String ns, List<String> nodes) {
        Map<String, String> uids = new TreeMap<>();
        nodes.forEach(n -> uids.put(n, podOn(ns, n).getMetadata().getUid()));
        return uids;
    }

    static String sysctl(NodeTuning nt, String name) {
        return nt.getSpec().tuning().sysctls().get(name);
    }

    // ---------------------------------------------------------------- scenarios

    @Test
    void aTuningChangeReachesTheNodesOneAtATimeAndNeverTakesMoreThanMaxUnavailableOutOfService() throws Exception {
        String ns = namespace("wave");
        List<String> nodes = fleet("wave", 3);
        create(videoEdge(ns, "edge", "wave", rollout("1", 120, true)));
        awaitComplete(ns, "edge");
        Map<String, String> pods = podUids(ns, nodes);
        Map<String, String> podNames = new TreeMap<>();
        nodes.forEach(n -> podNames.put(n, podOn(ns, n).getMetadata().getName()));
        String before = get(ns, "edge").getStatus().rollout().revision();

        try (ReadinessSampler sampler = new ReadinessSampler(admin, ns, Set.copyOf(nodes))) {
            sampler.reset();
            Instant changed = Instant.now();
            edit(ns, "edge", s -> withSysctl(s, "net.core.somaxconn", "4096"));
            // mid-rollout: a node updated, the others waiting with their old tuning, and serving
            eventually().untilAsserted(() -> {
                VideoEdgeStatus s = get(ns, "edge").getStatus();
                assertThat(s.rollout().revision()).isNotEqualTo(before);
                assertThat(s.updated()).isEqualTo("1/3");
                assertCondition(s, Conditions.PROGRESSING, "True", Conditions.ROLLING_OUT);
                assertThat(sysctl(tuning("wave-3"), "net.core.somaxconn")).isNotEqualTo("4096");
            });
            excerpt("rollout-wave-1-of-3", get(ns, "edge"));
            awaitComplete(ns, "edge");
            assertThat(nodes)
                    .allSatisfy(n ->
                            assertThat(sysctl(tuning(n), "net.core.somaxconn")).isEqualTo("4096"));
            excerpt("rollout-wave-complete", get(ns, "edge"));

            assertThat(sampler.maxUnready()).as("nodes out of service at once").isLessThanOrEqualTo(1);
            // each node out of service (its gate closed) while its agent applied the new tuning, one after another
            assertThat(sampler.transitions().stream()
                            .filter(t -> !t.ready())
                            .map(ReadinessSampler.Transition::node)
                            .distinct()
                            .toList())
                    .containsExactly("wave-1", "wave-2", "wave-3");
            // one after another: each node's agent applied the new tuning only after the one before it was
            // serving again for the soak time
            List<FakeAgents.Step> applied = agents.timeline().stream()
                    .filter(st -> nodes.contains(st.node())
                            && st.at().isAfter(changed)
                            && st.outcome().equals("Applied"))
                    .toList();
            assertThat(applied).extracting(FakeAgents.Step::node).containsExactly("wave-1", "wave-2", "wave-3");
            // each server drained (gate Draining) and out of service before its node's agent had the new tuning
            nodes.forEach(
                    n -> assertThat(sampler.gateReasons(podNames.get(n))).as(n).contains(Conditions.DRAINING));
            for (FakeAgents.Step step : applied) {
                assertThat(sampler.transitions().stream()
                                .filter(t -> t.node().equals(step.node()) && !t.ready())
                                .map(ReadinessSampler.Transition::at)
                                .filter(at -> at.isBefore(step.at()))
                                .findFirst())
                        .as(step.node() + " out of service before it was re-tuned")
                        .isPresent();
            }
            for (int i = 1; i < applied.size(); i++) {
                String previous = applied.get(i - 1).node();
                Instant previousTurn = applied.get(i - 1).at();
                Instant back = sampler.transitions().stream()
                        .filter(t ->
                                t.node().equals(previous) && t.ready() && t.at().isAfter(previousTurn.minusMillis(1)))
                        .map(ReadinessSampler.Transition::at)
                        .findFirst()
                        .orElseThrow(() -> new AssertionError(previous + " never seen ready again after its turn"));
                // a condition's time has whole seconds (as the API server keeps it), so the soak may count
                // from up to a second before this sampler saw the pod ready
                assertThat(applied.get(i).at())
                        .as(applied.get(i).node() + " re-tuned after " + previous + " soaked")
                        .isAfterOrEqualTo(back.plusSeconds(SOAK).minusMillis(1200));
            }
        }
        // a tuning change restarts no server
        assertThat(podUids(ns, nodes)).isEqualTo(pods);
        assertThat(events(ns)).contains("Normal RolloutStarted", "Normal RolloutComplete");
        assertThat(operator.registry()
                        .get("videoedge.nodes")
                        .tag("namespace", ns)
                        .tag("state", "updated")
                        .gauge()
                        .value())
                .isEqualTo(3);
    }

    @Test
    void aLiveServerChangeTouchesNeitherTheNodeTuningsNorThePods() {
        String ns = namespace("live");
        List<String> nodes = fleet("live", 2);
        create(videoEdge(ns, "edge", "live", rollout("1", 120, true)));
        awaitComplete(ns, "edge");
        Map<String, String> pods = podUids(ns, nodes);
        Map<String, String> tunings = nodes.stream()
                .collect(Collectors.toMap(n -> n, n -> tuning(n).getMetadata().getResourceVersion()));
        String podRevision = edgeDaemonSet(ns, "edge")
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations()
                .get(Names.POD_REVISION);

        edit(
                ns,
                "edge",
                s -> withServer(
                        s,
                        sv -> sv.withSocket(new ServerSpec.Socket(
                                "128k",
                                "1m",
                                "256k",
                                sv.socket().reusePort(),
                                sv.socket().acceptorThreads(),
                                sv.socket().backlog()))));
        eventually().untilAsserted(() -> {
            assertThat(admin.configMaps()
                            .inNamespace(ns)
                            .withName("edge-edge-server")
                            .get()
                            .getData()
                            .get("edge-server.yaml"))
                    .contains("sendBuf: 1m")
                    .contains("notsentLowat: 256k");
            assertThat(get(ns, "edge").getStatus().observedGeneration()).isEqualTo(2L);
        });
        awaitComplete(ns, "edge");
        holdsFor(Duration.ofSeconds(2), () -> {
            assertThat(podUids(ns, nodes)).isEqualTo(pods);
            assertThat(nodes.stream()
                            .collect(Collectors.toMap(
                                    n -> n, n -> tuning(n).getMetadata().getResourceVersion())))
                    .isEqualTo(tunings);
        });
        assertThat(edgeDaemonSet(ns, "edge")
                        .getSpec()
                        .getTemplate()
                        .getMetadata()
                        .getAnnotations()
                        .get(Names.POD_REVISION))
                .isEqualTo(podRevision);
    }

    @Test
    void aRestartChangeDrainsAndReplacesThePodsOneNodeAtATime() {
        String ns = namespace("restart");
        List<String> nodes = fleet("restart", 3);
        create(videoEdge(ns, "edge", "restart", rollout("1", 120, true)));
        awaitComplete(ns, "edge");
        Map<String, String> before = podUids(ns, nodes);
        Map<String, String> oldNames = new TreeMap<>();
        nodes.forEach(n -> oldNames.put(n, podOn(ns, n).getMetadata().getName()));

        try (ReadinessSampler sampler = new ReadinessSampler(admin, ns, Set.copyOf(nodes))) {
            sampler.reset();
            // selectors are fixed when the server starts: a restart, node by node
            edit(ns, "edge", s -> withServer(s, sv -> sv.withSelectors(2)));
            awaitComplete(ns, "edge");
            Map<String, String> after = podUids(ns, nodes);
            nodes.forEach(n -> assertThat(after.get(n)).as("new pod on " + n).isNotEqualTo(before.get(n)));
            assertThat(sampler.maxUnready()).as("nodes out of service at once").isLessThanOrEqualTo(1);
            // each old pod was taken out of service (its gate closed, reason Draining) and stayed out for the drain
            // (drainSeconds 1) before it was evicted; both moments as this watch saw them, so a few tens of
            // milliseconds either way: an eviction in the pass that closes the gate is ~0 s apart
            nodes.forEach(n -> {
                assertThat(sampler.gateReasons(oldNames.get(n))).as(n).contains(Conditions.DRAINING);
                assertThat(sampler.outOfServiceBeforeDeletion(oldNames.get(n)))
                        .as(n + ": out of service before its eviction")
                        .isNotNull()
                        .isGreaterThanOrEqualTo(Duration.ofMillis(800));
            });
            List<String> order = sampler.transitions().stream()
                    .filter(t -> !t.ready())
                    .map(ReadinessSampler.Transition::node)
                    .distinct()
                    .toList();
            assertThat(order).containsExactly("restart-1", "restart-2", "restart-3");
        }
        // the NodeTunings follow the new pods, and their tuning did not change
        nodes.forEach(n -> assertThat(tuning(n).getSpec().server().podUid())
                .isEqualTo(podOn(ns, n).getMetadata().getUid()));
    }

    @Test
    void aNodeThatFailsPausesTheRolloutAndAutoRevertGivesItItsLastGoodTuningBack() {
        String ns = namespace("fail");
        List<String> nodes = fleet("fail", 3);
        create(videoEdge(ns, "edge", "fail", rollout("1", 120, true)));
        awaitComplete(ns, "edge");
        String good = sysctl(tuning("fail-2"), "net.ipv4.tcp_notsent_lowat");
        // fail-2 refuses this one value (as a kernel refuses a write: EROFS, EINVAL)
        agents.fault("fail-2", nt -> "131072".equals(sysctl(nt, "net.ipv4.tcp_notsent_lowat")));

        edit(ns, "edge", s -> withSysctl(s, "net.ipv4.tcp_notsent_lowat", "131072"));
        eventually().untilAsserted(() -> {
            VideoEdgeStatus s = get(ns, "edge").getStatus();
            assertCondition(s, Conditions.PROGRESSING, "False", Conditions.ROLLOUT_PAUSED);
            assertThat(condition(s, Conditions.PROGRESSING).getMessage())
                    .contains("node fail-2 failed")
                    .contains("RolledBack");
            assertCondition(s, Conditions.DEGRADED, "True", Conditions.ROLLOUT_PAUSED);
            assertThat(s.rollout().state()).isEqualTo("Paused");
            // fail-1 (updated) and fail-3 (waiting on its old tuning, serving) are healthy: not listed
            assertThat(s.nodesNeedingAttention())
                    .extracting(VideoEdgeStatus.NodeSummary::node, VideoEdgeStatus.NodeSummary::rollout)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("fail-2", "Reverted"));
            assertThat(s.nodes().needingAttention()).isEqualTo(1);
            // the failed node has its last good tuning back, applied, and serves; the one after it never changed
            assertThat(sysctl(tuning("fail-2"), "net.ipv4.tcp_notsent_lowat")).isEqualTo(good);
            assertThat(ready(podOn(ns, "fail-2"))).isTrue();
            assertThat(sysctl(tuning("fail-3"), "net.ipv4.tcp_notsent_lowat")).isEqualTo(good);
            assertThat(s.serving()).isEqualTo("3/3");
        });
        excerpt("rollout-paused-reverted", get(ns, "edge"));
        assertThat(admin.v1().events().inNamespace(ns).list().getItems()).anySatisfy(e -> {
            assertThat(e.getType() + " " + e.getReason()).isEqualTo("Warning RolloutPaused");
            assertThat(e.getMessage()).contains("node fail-2 failed revision").contains("last good tuning");
        });
        assertThat(operator.registry()
                        .get("videoedge.rollout.paused")
                        .tag("namespace", ns)
                        .gauge()
                        .value())
                .isEqualTo(1);
        // paused means paused: nothing else moves
        holdsFor(
                Duration.ofSeconds(3),
                () -> assertThat(sysctl(tuning("fail-3"), "net.ipv4.tcp_notsent_lowat"))
                        .isEqualTo(good));

        // a fixed spec is a new revision: the rollout starts again and completes
        edit(ns, "edge", s -> withSysctl(s, "net.ipv4.tcp_notsent_lowat", "65536"));
        awaitComplete(ns, "edge");
        nodes.forEach(
                n -> assertThat(sysctl(tuning(n), "net.ipv4.tcp_notsent_lowat")).isEqualTo("65536"));
        assertThat(operator.registry()
                        .get("videoedge.rollout.paused")
                        .tag("namespace", ns)
                        .gauge()
                        .value())
                .isZero();
        agents.noFault("fail-2");
    }

    @Test
    void aServerNotReadyWithinTheDeadlinePausesWithoutAutoRevertAndTheRolloutResumesOnceItServes() {
        String ns = namespace("late");
        List<String> nodes = fleet("late", 2);
        create(videoEdge(ns, "edge", "late", rollout("1", 10, false)));
        awaitComplete(ns, "edge");
        String late2Pod = podOn(ns, "late-2").getMetadata().getUid();

        kubelets.serverDown("late-1", true);
        edit(ns, "edge", s -> withServer(s, sv -> sv.withSelectors(2)));
        eventually().untilAsserted(() -> {
            VideoEdgeStatus s = get(ns, "edge").getStatus();
            assertCondition(s, Conditions.PROGRESSING, "False", Conditions.ROLLOUT_PAUSED);
            assertThat(condition(s, Conditions.PROGRESSING).getMessage())
                    .contains("node late-1 failed: not tuned and serving within progressDeadlineSeconds (10 s)")
                    .contains("is not ready");
            assertThat(s.nodesNeedingAttention())
                    .extracting(VideoEdgeStatus.NodeSummary::node, VideoEdgeStatus.NodeSummary::rollout)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("late-1", "Failed"));
        });
        // late-2 keeps its server while paused
        assertThat(podOn(ns, "late-2").getMetadata().getUid()).isEqualTo(late2Pod);

        // the server on late-1 comes up (someone fixed the node): the failure no longer holds, the rollout goes on
        kubelets.serverDown("late-1", false);
        awaitComplete(ns, "edge");
        assertThat(podOn(ns, "late-2").getMetadata().getUid()).isNotEqualTo(late2Pod);
    }

    @Test
    void aNewNodeWhoseServerNeverServesStallsPastTheDeadlineWithoutPausingAndIsCountedAsNotServing() {
        String ns = namespace("stall");
        fleet("stall", 2);
        kubelets.serverDown("stall-2", true);
        create(videoEdge(ns, "edge", "stall", rollout("1", 10, true)));
        eventually().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
            VideoEdgeStatus s = get(ns, "edge").getStatus();
            assertThat(s.nodes().stalled()).isEqualTo(1);
            assertThat(s.nodes().updated()).isEqualTo(1);
            assertThat(s.nodes().serving())
                    .as("the stalled node counted as not serving")
                    .isEqualTo(1);
            assertThat(s.serving()).isEqualTo("1/2");
            // nothing to protect on a node that never served: the rollout goes on, it does not pause
            assertCondition(s, Conditions.PROGRESSING, "True", Conditions.ROLLING_OUT);
            assertThat(condition(s, Conditions.PROGRESSING).getMessage())
                    .contains("stalled (never tuned and serving within progressDeadlineSeconds): stall-2");
            assertThat(s.nodesNeedingAttention())
                    .extracting(VideoEdgeStatus.NodeSummary::node, VideoEdgeStatus.NodeSummary::rollout)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("stall-2", "Stalled"));
            assertThat(s.nodesNeedingAttention().getFirst().message())
                    .startsWith("not tuned and serving within progressDeadlineSeconds (10 s)")
                    .contains("is not ready");
        });
        // what the alerts read: the stalled node is no longer one the rollout has yet to update
        assertThat(operator.registry()
                        .get("videoedge.nodes")
                        .tag("namespace", ns)
                        .tag("state", "stalled")
                        .gauge()
                        .value())
                .isEqualTo(1);

        // the server comes up (someone fixed the node): updated after the soak, nothing stalled
        kubelets.serverDown("stall-2", false);
        awaitComplete(ns, "edge");
        assertThat(get(ns, "edge").getStatus().nodes().stalled()).isZero();
    }

    @Test
    void anOperatorRestartedMidRolloutCarriesOnWhereTheLastOneStopped() {
        String ns = namespace("resume");
        List<String> nodes = fleet("resume", 3);
        create(videoEdge(ns, "edge", "resume", rollout("1", 120, true)));
        awaitComplete(ns, "edge");
        agents.hold("resume-2"); // its agent is slow: resume-2's turn lasts

        edit(ns, "edge", s -> withSysctl(s, "net.core.somaxconn", "2048"));
        eventually().untilAsserted(() -> {
            assertThat(sysctl(tuning("resume-1"), "net.core.somaxconn")).isEqualTo("2048");
            assertThat(sysctl(tuning("resume-2"), "net.core.somaxconn")).isEqualTo("2048");
            assertThat(get(ns, "edge").getStatus().updated()).isEqualTo("1/3");
        });
        String state = tuning("resume-2").getMetadata().getAnnotations().get(Names.ROLLOUT_STATE);
        operator.stop();
        operator.start();
        // the new instance finds resume-2 in its turn (from the NodeTuning) and starts nobody else: watched
        // from its first finished pass on (start returns before it has made one)
        eventually().until(() -> operator.successfulReconciles(ns, "edge") >= 1);
        holdsFor(Duration.ofSeconds(3), () -> {
            assertThat(sysctl(tuning("resume-3"), "net.core.somaxconn")).isNotEqualTo("2048");
            assertThat(tuning("resume-2").getMetadata().getAnnotations().get(Names.ROLLOUT_STATE))
                    .isEqualTo(state);
        });
        agents.release("resume-2");
        awaitComplete(ns, "edge");
        nodes.forEach(n -> assertThat(sysctl(tuning(n), "net.core.somaxconn")).isEqualTo("2048"));
    }

    @Test
    void aNodeLeavingKeepsItsAgentUntilItIsRestoredAndOnlyThenLosesTheAgentLabel() {
        String ns = namespace("leave");
        fleet("leave", 2);
        create(videoEdge(ns, "edge", "leave", rollout("1", 120, true)));
        awaitComplete(ns, "edge");
        assertThat(agentLabel("leave-1")).isEqualTo("true");
        assertThat(agentLabel("leave-2")).isEqualTo("true");

        agents.hold("leave-2"); // its agent takes its time to restore the node
        admin.nodes().withName("leave-2").edit(n -> {
            n.getMetadata().getLabels().remove(POOL);
            return n;
        });
        eventually().until(() -> tuning("leave-2").getMetadata().getDeletionTimestamp() != null);
        // not restored yet: the agent must stay, so its label stays
        holdsFor(Duration.ofSeconds(2), () -> assertThat(agentLabel("leave-2")).isEqualTo("true"));
        agents.release("leave-2");
        eventually().untilAsserted(() -> {
            assertThat(tuning("leave-2")).isNull();
            assertThat(agentLabel("leave-2")).isNull();
            assertThat(agentLabel("leave-1")).isEqualTo("true");
        });
        assertThat(agents.timeline())
                .anySatisfy(st -> assertThat(st.node() + " " + st.outcome()).isEqualTo("leave-2 Restored"));

        // the VideoEdge deleted: every node restored by its agent, then unlabelled
        admin.resource(get(ns, "edge")).delete();
        eventually().untilAsserted(() -> {
            assertThat(get(ns, "edge")).isNull();
            assertThat(tuning("leave-1")).isNull();
            assertThat(agentLabel("leave-1")).isNull();
        });
    }

    static String agentLabel(String node) {
        var labels = admin.nodes().withName(node).get().getMetadata().getLabels();
        return labels == null ? null : labels.get(VideoEdgeApi.LABEL_NODE_AGENT);
    }

    /**
     * {@code check} holds for the whole {@code window}: run every 200 ms, failing at its first failure.
     * A slow API server makes the wait longer instead of failing it (Awaitility's during/atMost also
     * needs its last check to end before atMost, which a stalled list call on a loaded machine missed).
     */
    private static void holdsFor(Duration window, Runnable check) {
        Instant end = Instant.now().plus(window);
        check.run();
        while (Instant.now().isBefore(end)) {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            check.run();
        }
    }
}
