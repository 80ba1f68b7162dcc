package io.videoedge.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.api.Conditions;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeStatus;
import io.videoedge.operator.rollout.NodeDecision;
import io.videoedge.operator.rollout.RolloutPlan;
import io.videoedge.operator.rollout.RolloutPolicy;
import io.videoedge.operator.rollout.RolloutTarget;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class StatusAggregatorTest {
    static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    static final Instant T1 = Instant.parse("2026-03-01T10:05:00Z");

    static VideoEdge ve(long generation) {
        VideoEdge ve = new VideoEdge();
        ve.getMetadata().setName("edge");
        ve.getMetadata().setNamespace("video");
        ve.getMetadata().setGeneration(generation);
        return ve;
    }

    static NodeReport tunedAndServing(String node) {
        return NodeReport.of(
                node,
                NodeReportTest.applied(node, "r1"),
                NodeReportTest.readyPod(node),
                NodeReportTest.decision(node, io.videoedge.operator.rollout.NodeDecision.Phase.UPDATED, null),
                "r1",
                null,
                null,
                null);
    }

    static Condition condition(VideoEdgeStatus status, String type) {
        return status.conditions().stream()
                .filter(c -> type.equals(c.getType()))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void allNodesTunedAndServingIsReadyAsExpectedWithCounts() {
        VideoEdgeStatus s = new StatusAggregator(ve(1), T0)
                .node(tunedAndServing("a"), true)
                .node(tunedAndServing("b"), true)
                .build(null);
        assertThat(s.observedGeneration()).isEqualTo(1L);
        assertThat(s.conditions())
                .extracting(Condition::getType)
                .containsExactly(
                        Conditions.READY,
                        Conditions.TUNING_APPLIED,
                        Conditions.SERVER_AVAILABLE,
                        Conditions.PROGRESSING,
                        Conditions.DEGRADED);
        assertThat(condition(s, Conditions.READY).getStatus()).isEqualTo("True");
        assertThat(condition(s, Conditions.READY).getReason()).isEqualTo(Conditions.AS_EXPECTED);
        assertThat(condition(s, Conditions.DEGRADED).getStatus()).isEqualTo("False");
        assertThat(s.conditions())
                .allSatisfy(c -> assertThat(c.getObservedGeneration()).isEqualTo(1L));
        assertThat(s.nodes()).isEqualTo(new VideoEdgeStatus.NodeCounts(2, 2, 2, 2, 0, 0, 0));
        assertThat(s.tuned()).isEqualTo("2/2");
        assertThat(s.updated()).isEqualTo("2/2");
        assertThat(s.serving()).isEqualTo("2/2");
        assertThat(s.nodesNeedingAttention()).as("healthy nodes are not listed").isEmpty();
    }

    @Test
    void theTlsColumnSaysWhatTheNodesServeWith() {
        var withKtls = new io.videoedge.api.NodeCapabilities("6.12.0", null, true, "available", "v2", 1, "0-3", null);
        var withoutKtls =
                new io.videoedge.api.NodeCapabilities("6.1.0", null, true, "unavailable", "v2", 1, "0-3", null);
        java.util.function.BiFunction<String, io.videoedge.api.NodeCapabilities, NodeReport> node =
                (name, caps) -> NodeReport.of(
                        name,
                        NodeReportTest.tuning(
                                name,
                                "r1",
                                java.util.List.of(NodeReportTest.cond("Applied", "True", "AsExpected", "")),
                                caps),
                        NodeReportTest.readyPod(name),
                        null,
                        "r1",
                        io.videoedge.api.TlsMode.KTLS,
                        null,
                        null);
        VideoEdgeStatus mixed = new StatusAggregator(ve(1), T0)
                .node(node.apply("a", withKtls), true)
                .node(node.apply("b", withoutKtls), true)
                .node(node.apply("c", withKtls), true)
                .node(node.apply("d", withoutKtls), false) // another VideoEdge's node: listed, not counted
                .build(null);
        assertThat(mixed.tls()).isEqualTo("ktls 2, openssl 1");
        // the nodes without kernel TLS need attention (Degraded says so), the others are not listed
        assertThat(mixed.nodesNeedingAttention())
                .extracting(VideoEdgeStatus.NodeSummary::node, VideoEdgeStatus.NodeSummary::tls)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("b", "openssl"),
                        org.assertj.core.groups.Tuple.tuple("d", "openssl"));
        assertThat(mixed.nodes().needingAttention()).isEqualTo(2);
        VideoEdgeStatus alike = new StatusAggregator(ve(1), T0)
                .node(node.apply("a", withKtls), true)
                .build(null);
        assertThat(alike.tls()).isEqualTo("ktls");
        assertThat(new StatusAggregator(ve(1), T0).build(null).tls())
                .as("no node known")
                .isNull();
    }

    @Test
    void lastTransitionTimeIsKeptWhenNothingChanged() {
        VideoEdgeStatus first =
                new StatusAggregator(ve(1), T0).node(tunedAndServing("a"), true).build(null);
        VideoEdgeStatus again =
                new StatusAggregator(ve(1), T1).node(tunedAndServing("a"), true).build(first);
        assertThat(again).isEqualTo(first);
        assertThat(condition(again, Conditions.READY).getLastTransitionTime()).isEqualTo(T0.toString());
    }

    @Test
    void lastTransitionTimeMovesOnlyForConditionsWhoseStatusChanged() {
        VideoEdgeStatus first =
                new StatusAggregator(ve(1), T0).node(tunedAndServing("a"), true).build(null);
        VideoEdgeStatus next = new StatusAggregator(ve(1), T1)
                .node(tunedAndServing("a"), true)
                .warning(Conditions.KERNEL_TLS_UNAVAILABLE, "kernel TLS is unavailable on a")
                .build(first);
        assertThat(condition(next, Conditions.DEGRADED).getLastTransitionTime()).isEqualTo(T1.toString());
        assertThat(condition(next, Conditions.READY).getLastTransitionTime()).isEqualTo(T0.toString());
        assertThat(condition(next, Conditions.READY).getStatus()).isEqualTo("True");
    }

    @Test
    void notReadyHoldsReadyBackWithTheFirstReason() {
        VideoEdgeStatus s = new StatusAggregator(ve(2), T0)
                .node(tunedAndServing("a"), true)
                .notReady(Conditions.TUNING_APPLIED, Conditions.NODE_NOT_TUNED, "not tuned for generation 2 on b")
                .notReady(Conditions.SERVER_AVAILABLE, Conditions.SERVER_NOT_READY, "edge server not ready on b")
                .build(null);
        assertThat(condition(s, Conditions.READY)).satisfies(c -> {
            assertThat(c.getStatus()).isEqualTo("False");
            assertThat(c.getReason()).isEqualTo(Conditions.NODE_NOT_TUNED);
            assertThat(c.getMessage()).isEqualTo("not tuned for generation 2 on b; edge server not ready on b");
        });
        assertThat(condition(s, Conditions.TUNING_APPLIED).getReason()).isEqualTo(Conditions.NODE_NOT_TUNED);
        assertThat(condition(s, Conditions.SERVER_AVAILABLE).getReason()).isEqualTo(Conditions.SERVER_NOT_READY);
        assertThat(condition(s, Conditions.DEGRADED).getStatus()).isEqualTo("False");
    }

    @Test
    void anErrorComesFirstInReadyAndMakesDegraded() {
        VideoEdgeStatus s = new StatusAggregator(ve(3), T0)
                .node(tunedAndServing("a"), true)
                .notReady(Conditions.TUNING_APPLIED, Conditions.NODE_NOT_TUNED, "not tuned")
                .error(Conditions.INVALID_SPEC, "TLS Secret video/edge-tls (tls.secretName) not found")
                .build(null);
        assertThat(condition(s, Conditions.READY).getReason()).isEqualTo(Conditions.INVALID_SPEC);
        assertThat(condition(s, Conditions.DEGRADED)).satisfies(c -> {
            assertThat(c.getStatus()).isEqualTo("True");
            assertThat(c.getReason()).isEqualTo(Conditions.INVALID_SPEC);
        });
    }

    @Test
    void aWarningDegradesWithoutHoldingReadyBack() {
        VideoEdgeStatus s = new StatusAggregator(ve(1), T0)
                .node(tunedAndServing("a"), true)
                .warning(
                        Conditions.CONFLICT, "node c is also selected by the older VideoEdge video/old, which keeps it")
                .build(null);
        assertThat(condition(s, Conditions.READY).getStatus()).isEqualTo("True");
        assertThat(condition(s, Conditions.DEGRADED).getReason()).isEqualTo(Conditions.CONFLICT);
    }

    @Test
    void byRequestSetsTheConditionFalseButNotReady() {
        VideoEdgeStatus s = new StatusAggregator(ve(1), T0)
                .node(tunedAndServing("a"), true)
                .byRequest(Conditions.TUNING_APPLIED, Conditions.PLAN_ONLY, "tuning.mode is Plan")
                .build(null);
        assertThat(condition(s, Conditions.TUNING_APPLIED).getStatus()).isEqualTo("False");
        assertThat(condition(s, Conditions.TUNING_APPLIED).getReason()).isEqualTo(Conditions.PLAN_ONLY);
        assertThat(condition(s, Conditions.READY).getStatus()).isEqualTo("True");
    }

    @Test
    void noNodesSelectedIsNotReady() {
        VideoEdgeStatus s = new StatusAggregator(ve(1), T0).build(null);
        assertThat(condition(s, Conditions.READY).getReason()).isEqualTo(Conditions.NO_NODES_SELECTED);
        assertThat(condition(s, Conditions.TUNING_APPLIED).getReason()).isEqualTo(Conditions.NO_NODES_SELECTED);
        assertThat(condition(s, Conditions.SERVER_AVAILABLE).getReason()).isEqualTo(Conditions.NO_NODES_SELECTED);
        assertThat(s.tuned()).isEqualTo("0/0");
    }

    @Test
    void uncountedNodesAreListedButNotCounted() {
        VideoEdgeStatus s = new StatusAggregator(ve(1), T0)
                .node(tunedAndServing("a"), true)
                .node(
                        NodeReport.notOurs(
                                "c",
                                io.videoedge.operator.health.NodeHealth.Tuning.CONFLICT,
                                "selected by the older VideoEdge video/old"),
                        false)
                .build(null);
        assertThat(s.nodes()).isEqualTo(new VideoEdgeStatus.NodeCounts(1, 1, 1, 1, 1, 0, 0));
        assertThat(s.nodesNeedingAttention())
                .extracting(VideoEdgeStatus.NodeSummary::node, VideoEdgeStatus.NodeSummary::tuning)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("c", "Conflict"));
    }

    @Test
    void stalledAndPlannedNodesAreCountedApart() {
        Function<String, NodeReport> stalled = node -> NodeReport.of(
                node,
                NodeReportTest.applied(node, "r1"),
                null,
                NodeReportTest.decision(node, NodeDecision.Phase.STALLED, "past the deadline"),
                "r1",
                null,
                null,
                null);
        NodeReport planned = NodeReport.of(
                "p",
                NodeReportTest.tuning(
                        "p", "r1", List.of(NodeReportTest.cond("Applied", "False", "PlanOnly", "m")), null),
                NodeReportTest.readyPod("p"),
                NodeReportTest.decision("p", NodeDecision.Phase.UPDATED, null),
                "r1",
                null,
                null,
                null);
        VideoEdgeStatus s = new StatusAggregator(ve(1), T0)
                .node(tunedAndServing("a"), true)
                .node(stalled.apply("s1"), true)
                .node(stalled.apply("s2"), true)
                .node(planned, true)
                .build(null);
        // the stalled nodes' agents applied, their servers are down: tuned, not serving
        assertThat(s.nodes()).isEqualTo(new VideoEdgeStatus.NodeCounts(4, 3, 2, 2, 3, 1, 2));
        assertThat(s.nodesNeedingAttention())
                .extracting(VideoEdgeStatus.NodeSummary::node)
                .containsExactly("s1", "s2", "p");
    }

    static NodeReport notServing(String node) {
        return NodeReport.of(
                node,
                NodeReportTest.applied(node, "r1"),
                null,
                NodeReportTest.decision(node, NodeDecision.Phase.UPDATED, null),
                "r1",
                null,
                null,
                null);
    }

    static NodeReport inPhase(String node, NodeDecision.Phase phase) {
        return NodeReport.of(
                node,
                NodeReportTest.applied(node, "r1"),
                NodeReportTest.readyPod(node),
                NodeReportTest.decision(node, phase, "because " + "x".repeat(1000)),
                "r1",
                null,
                null,
                null);
    }

    static int jsonBytes(VideoEdgeStatus s) {
        return Serialization.asJson(s).getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void theStatusDoesNotGrowWithHealthyNodes() {
        // 1,000 and 9,999 healthy nodes: counts of the same number of digits, so not one byte more
        StatusAggregator few = new StatusAggregator(ve(1), T0);
        StatusAggregator many = new StatusAggregator(ve(1), T0);
        for (int i = 0; i < 9_999; i++) {
            String node = String.format("edge-%05d", i);
            if (i < 1_000) {
                few.node(tunedAndServing(node), true);
            }
            many.node(tunedAndServing(node), true);
        }
        VideoEdgeStatus small = few.build(null);
        VideoEdgeStatus large = many.build(null);
        assertThat(large.nodes()).isEqualTo(new VideoEdgeStatus.NodeCounts(9_999, 9_999, 9_999, 9_999, 0, 0, 0));
        assertThat(large.nodesNeedingAttention()).isEmpty();
        assertThat(jsonBytes(large)).isEqualTo(jsonBytes(small));
    }

    @Test
    void nodesNeedingAttentionAreCappedTheMostPressingFirstThenByNameAndAllCounted() {
        StatusAggregator a = new StatusAggregator(ve(1), T0);
        for (int i = 0; i < 5_000; i++) {
            String node = String.format("edge-%05d", i);
            NodeReport r = switch (i % 5) {
                case 0 -> tunedAndServing(node);
                case 1 -> inPhase(node, NodeDecision.Phase.UPDATING);
                case 2 -> notServing(node);
                case 3 -> inPhase(node, NodeDecision.Phase.WAITING); // healthy on its old tuning: not listed
                default -> i == 4_999 ? inPhase(node, NodeDecision.Phase.REVERTED) : tunedAndServing(node);
            };
            a.node(r, true);
        }
        VideoEdgeStatus s = a.build(null);
        // 1000 in their turn, 1000 not serving, one reverted
        assertThat(s.nodes().needingAttention()).isEqualTo(2_001);
        assertThat(s.nodesNeedingAttention())
                .hasSize(VideoEdgeStatus.MAX_LISTED_NODES)
                .extracting(VideoEdgeStatus.NodeSummary::node)
                .containsExactly(
                        "edge-04999", // failed first
                        "edge-00002", // then not serving, by name
                        "edge-00007",
                        "edge-00012",
                        "edge-00017",
                        "edge-00022",
                        "edge-00027",
                        "edge-00032",
                        "edge-00037",
                        "edge-00042");
        assertThat(s.nodesNeedingAttention().getFirst().rollout()).isEqualTo("Reverted");
        assertThat(s.nodesNeedingAttention().getFirst().message()).hasSize(256).endsWith("...");
    }

    @Test
    void aFleetWhereEveryNodeNeedsAttentionStillHasASmallStatus() {
        StatusAggregator a = new StatusAggregator(ve(1), T0);
        for (int i = 0; i < 10_000; i++) {
            a.node(
                    inPhase(String.format("a-very-long-node-name-of-a-large-fleet-%05d", i), NodeDecision.Phase.FAILED),
                    true);
        }
        a.warning(Conditions.APPLY_FAILED, "tuning failed on " + "x".repeat(5000));
        a.notReady(Conditions.TUNING_APPLIED, Conditions.ROLLOUT_PAUSED, "y".repeat(5000));
        a.notReady(Conditions.SERVER_AVAILABLE, Conditions.SERVER_NOT_READY, "z".repeat(5000));
        VideoEdgeStatus s = a.build(null);
        assertThat(s.nodes().needingAttention()).isEqualTo(10_000);
        assertThat(jsonBytes(s)).isLessThan(16 * 1024);
    }

    @Test
    void longMessagesAreCut() {
        VideoEdgeStatus s = new StatusAggregator(ve(1), T0)
                .node(tunedAndServing("a"), true)
                .warning("X", "m".repeat(5000))
                .build(null);
        assertThat(condition(s, Conditions.DEGRADED).getMessage())
                .hasSize(StatusAggregator.MAX_MESSAGE)
                .endsWith("...");
    }

    @Test
    void aFailedReconcileDegradesButLeavesWhatServesAndTheObservedGenerationAlone() {
        VideoEdgeStatus ok =
                new StatusAggregator(ve(1), T0).node(tunedAndServing("a"), true).build(null);
        VideoEdgeStatus failed = StatusAggregator.reconcileFailed(ve(2), ok, T1, "forbidden");
        assertThat(failed.observedGeneration()).isEqualTo(1L);
        assertThat(condition(failed, Conditions.READY)).isEqualTo(condition(ok, Conditions.READY));
        assertThat(condition(failed, Conditions.DEGRADED)).satisfies(c -> {
            assertThat(c.getStatus()).isEqualTo("True");
            assertThat(c.getReason()).isEqualTo(StatusAggregator.RECONCILE_FAILED);
            assertThat(c.getLastTransitionTime()).isEqualTo(T1.toString());
        });
        assertThat(failed.nodes()).isEqualTo(ok.nodes());
    }

    static String pausedMessage(NodeDecision.Phase failedPhase) {
        return pausedMessage(failedPhase, failedPhase == NodeDecision.Phase.REVERTED);
    }

    static String pausedMessage(NodeDecision.Phase failedPhase, boolean untilNewRevision) {
        var nodes = new TreeMap<String, NodeDecision>();
        nodes.put("a", NodeReportTest.decision("a", failedPhase, "failed"));
        nodes.put("b", NodeReportTest.decision("b", NodeDecision.Phase.WAITING, "waiting"));
        var policy = new RolloutPolicy(1, Duration.ofSeconds(600), Duration.ofSeconds(10), true, Duration.ofSeconds(5));
        var plan = new RolloutPlan(
                new RolloutTarget(null, "t1", "p1"), policy, nodes, "a", "why", untilNewRevision, List.of(), List.of());
        VideoEdgeStatus s = new StatusAggregator(ve(1), T0).rollout(plan).build(null);
        return condition(s, Conditions.PROGRESSING).getMessage();
    }

    @Test
    void aBlockedRolloutIsNotProgressingAndNamesWhatHoldsItsRoom() {
        var nodes = new TreeMap<String, NodeDecision>();
        nodes.put("a", NodeReportTest.decision("a", NodeDecision.Phase.UPDATED, "updated"));
        nodes.put("b", NodeReportTest.decision("b", NodeDecision.Phase.WAITING, "waiting"));
        var policy = new RolloutPolicy(1, Duration.ofSeconds(600), Duration.ofSeconds(10), true, Duration.ofSeconds(5));
        var plan = new RolloutPlan(
                new RolloutTarget(null, "t1", "p1"), policy, nodes, null, null, false, List.of("a"), List.of());
        VideoEdgeStatus s = new StatusAggregator(ve(1), T0).rollout(plan).build(null);
        assertThat(condition(s, Conditions.PROGRESSING).getStatus()).isEqualTo("False");
        assertThat(condition(s, Conditions.PROGRESSING).getReason()).isEqualTo(Conditions.ROLLOUT_BLOCKED);
        assertThat(condition(s, Conditions.PROGRESSING).getMessage())
                .isEqualTo(
                        "rollout of revision t1-p1 blocked: 1/2 nodes updated, 1 waiting for room held by node(s) out"
                                + " of service outside the rollout: a (they count against maxUnavailable 1 until their servers"
                                + " are ready again or they leave the selection)");
        assertThat(s.rollout().state()).isEqualTo("Progressing");
    }

    @Test
    void aPausedRolloutSaysWhatResumesIt() {
        // given its last good tuning back: only a new spec resumes it
        assertThat(pausedMessage(NodeDecision.Phase.REVERTED))
                .startsWith("rollout of revision t1-p1 paused: node a failed: why; 0/2 nodes updated.")
                .endsWith("Fix the spec (or revert it) to roll out again");
        // left failed (no autoRevert, or nothing to give back): the node fixed resumes it too
        assertThat(pausedMessage(NodeDecision.Phase.FAILED))
                .endsWith("It goes on once that node is tuned and serving on this revision for soakSeconds, or with a "
                        + "new spec (a fix, or a revert)");
        // failed before it was re-tuned on the revision: nothing of it on the node to fix
        assertThat(pausedMessage(NodeDecision.Phase.FAILED, true))
                .endsWith(
                        "It goes on with a new spec (a fix, or a revert): the node's turn failed before it was re-tuned"
                                + " on this revision (its drain), so nothing of it there can be fixed in place");
    }
}
