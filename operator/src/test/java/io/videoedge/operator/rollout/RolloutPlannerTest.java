package io.videoedge.operator.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.videoedge.api.NicSpec;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.SettingState;
import io.videoedge.api.TuningMode;
import io.videoedge.api.TuningSpec;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.operator.render.Names;
import io.videoedge.operator.render.NodeTuningRenderer;
import io.videoedge.operator.render.TuningInputs;
import io.videoedge.operator.rollout.NodeDecision.Phase;
import io.videoedge.operator.rollout.NodeDecision.PodAction;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The rollout state machine, pass by pass, on nodes described as their NodeTuning and pod would be:
 * waves within maxUnavailable, soak, drain then evict, pause on failure (agent Failed, a regression,
 * the deadline), revert to the last good tuning, resume on a new spec, and the state it keeps.
 */
class RolloutPlannerTest {
    static final Instant T0 = Instant.parse("2026-11-01T10:00:00Z");
    static final TuningInputs OLD = tuning("262144");
    static final TuningInputs NEW = tuning("131072");
    /** One node at a time, no drain: a turn re-tunes its node in its first pass. */
    static final RolloutPolicy ONE =
            new RolloutPolicy(1, Duration.ofSeconds(600), Duration.ofSeconds(10), true, Duration.ZERO);
    /** One node at a time, each out of service for 5 s before its node changes. */
    static final RolloutPolicy DRAINED = new RolloutPolicy(1, ONE.deadline(), ONE.soak(), true, Duration.ofSeconds(5));
    /** Two nodes at a time, each drained for 5 s. */
    static final RolloutPolicy TWO_DRAINED =
            new RolloutPolicy(2, DRAINED.deadline(), DRAINED.soak(), true, DRAINED.drain());

    static TuningInputs tuning(String lowat) {
        return new TuningInputs(
                new NicSpec(null, null, null, null, null, null, null),
                new TuningSpec(
                        TuningMode.APPLY,
                        "bbr",
                        new TreeMap<>(Map.of("net.ipv4.tcp_notsent_lowat", lowat)),
                        null,
                        false,
                        List.of()),
                1,
                null);
    }

    static RolloutTarget target(TuningInputs tuning, String podRevision) {
        return RolloutTarget.of(tuning, podRevision);
    }

    /** One node as the cluster shows it: its NodeTuning (tuning, rollout state, agent status) and its pod. */
    static final class Node {
        final String name;
        TuningInputs tuning;
        NodeRolloutState state = NodeRolloutState.NONE;
        long generation = 1;
        long observed = 1;
        String applied = "True";
        String appliedReason = "AsExpected";
        boolean degraded;
        List<NodeTuningStatus.Setting> settings = List.of();
        String podRevision = "p1";
        boolean podReady = true;
        /** The pod's Ready condition's lastTransitionTime: Ready, or out of service, since then. */
        Instant readyChanged = T0.minusSeconds(3600);

        boolean podTerminating;
        boolean noPod;
        /** The operator closed its pod's readiness gate; the kubelet may not have taken it out of service yet. */
        boolean gateClosed;
        /** A taint of the node that keeps an edge-server pod off it. */
        String untoleratedTaint;

        Node(String name, TuningInputs tuning) {
            this.name = name;
            this.tuning = tuning;
            settings = List.of(setting("sysctl/net.ipv4.tcp_notsent_lowat", SettingState.APPLIED));
        }

        NodeView view() {
            NodeTuning nt = NodeTuningRenderer.render(
                    ve(),
                    name,
                    tuning,
                    Map.of(Names.TUNING_REVISION, tuning.revision(), Names.ROLLOUT_STATE, state.toJson()),
                    null);
            nt.getMetadata().setGeneration(generation);
            var conditions = new ArrayList<io.fabric8.kubernetes.api.model.Condition>();
            conditions.add(new ConditionBuilder()
                    .withType("Applied")
                    .withStatus(applied)
                    .withReason(appliedReason)
                    .withMessage("m")
                    .build());
            conditions.add(new ConditionBuilder()
                    .withType("Degraded")
                    .withStatus(degraded ? "True" : "False")
                    .withReason(degraded ? "UnsupportedSettings" : "AsExpected")
                    .withMessage(degraded ? "1 unsupported" : "")
                    .build());
            nt.setStatus(new NodeTuningStatus(observed, conditions, null, null, null, settings, null, null));
            Pod pod = noPod
                    ? null
                    : new PodBuilder()
                            .withNewMetadata()
                            .withName("pod-" + name)
                            .withUid("uid-" + name)
                            .withAnnotations(Map.of(Names.POD_REVISION, podRevision))
                            .withDeletionTimestamp(podTerminating ? T0.toString() : null)
                            .endMetadata()
                            .withNewSpec()
                            .withNodeName(name)
                            .endSpec()
                            .withNewStatus()
                            .withPhase("Running")
                            .addNewCondition()
                            .withType("Ready")
                            .withStatus(podReady ? "True" : "False")
                            .withLastTransitionTime(readyChanged.toString())
                            .endCondition()
                            .addNewCondition()
                            .withType(VideoEdgeApi.READINESS_GATE_NODE_TUNED)
                            .withStatus(gateClosed ? "False" : "True")
                            .endCondition()
                            .endStatus()
                            .build();
            return new NodeView(name, nt, pod, untoleratedTaint);
        }

        /** The kubelet reported its pod Ready at {@code t} (its gate open, its server up). */
        void readyAt(Instant t) {
            podReady = true;
            readyChanged = t;
        }

        /** The kubelet took its pod out of service at {@code t}: its readiness gate closed, or its server went down. */
        void outOfServiceAt(Instant t) {
            podReady = false;
            readyChanged = t;
        }

        /** What the operator writes back after a pass: the decided tuning and state (the agent has not acted yet). */
        void write(NodeDecision d) {
            if (!d.tuningRevision().equals(tuning.revision())) {
                generation++;
            }
            tuning = d.tuning();
            state = d.state();
        }

        /** The agent applied the NodeTuning's latest spec. */
        void agentApplies() {
            observed = generation;
            applied = "True";
            appliedReason = "AsExpected";
        }

        void agentFails(String reason) {
            observed = generation;
            applied = "False";
            appliedReason = reason;
        }
    }

    static io.videoedge.api.VideoEdge ve() {
        var ve = new io.videoedge.api.VideoEdge();
        ve.getMetadata().setName("edge");
        ve.getMetadata().setNamespace("video");
        ve.getMetadata().setUid("uid");
        return ve;
    }

    static NodeTuningStatus.Setting setting(String name, SettingState state) {
        return new NodeTuningStatus.Setting(name, "1", "1", "0", state, null);
    }

    static List<Node> fleet(int n, TuningInputs tuning) {
        List<Node> nodes = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            nodes.add(new Node("n" + i, tuning));
        }
        return nodes;
    }

    static RolloutPlan pass(RolloutTarget target, RolloutPolicy policy, List<Node> nodes, Instant now) {
        RolloutPlan plan = RolloutPlanner.plan(
                target, policy, nodes.stream().map(Node::view).toList(), now);
        nodes.forEach(n -> n.write(plan.nodes().get(n.name)));
        return plan;
    }

    static List<String> inPhase(RolloutPlan plan, Phase phase) {
        return plan.nodes().values().stream()
                .filter(d -> d.phase() == phase)
                .map(NodeDecision::node)
                .toList();
    }

    /** Nodes settled on OLD for an hour: first pass records their last good tuning. */
    static List<Node> settled(int n) {
        List<Node> nodes = fleet(n, OLD);
        RolloutPlan plan = pass(target(OLD, "p1"), ONE, nodes, T0);
        assertThat(plan.complete()).isTrue();
        nodes.forEach(node -> assertThat(node.state.lastGood().revision()).isEqualTo(OLD.revision()));
        return nodes;
    }

    @Test
    void nodesTunedAndServingThatHaveNotSoakedYetWaitForRoom() {
        List<Node> nodes = fleet(3, OLD);
        nodes.forEach(n -> n.readyAt(T0.minusSeconds(3))); // serving, tuned, no last good tuning yet
        RolloutPlan plan = pass(target(NEW, "p1"), ONE, nodes, T0);
        assertThat(inPhase(plan, Phase.UPDATING)).as("maxUnavailable 1").containsExactly("n1");
        assertThat(inPhase(plan, Phase.WAITING)).containsExactly("n2", "n3");

        // one that serves without ever having been tuned has nothing to protect: it starts without room. Its agent
        // has just failed, in the pass that will close its gate: its pod is still Ready (the kubelet acts later)
        nodes.get(2).agentFails("ApplyFailed");
        plan = pass(target(NEW, "p1"), ONE, nodes, T0.plusSeconds(1));
        assertThat(inPhase(plan, Phase.UPDATING)).containsExactly("n1", "n3");
        assertThat(inPhase(plan, Phase.WAITING)).containsExactly("n2");

        // a pass later, its gate closed and its pod out of service, as the failure keeps them: still in its turn,
        // and still not taking n2's room
        nodes.get(2).gateClosed = true;
        nodes.get(2).outOfServiceAt(T0.plusSeconds(2));
        plan = pass(target(NEW, "p1"), ONE, nodes, T0.plusSeconds(3));
        assertThat(inPhase(plan, Phase.UPDATING)).containsExactly("n1", "n3");
        assertThat(inPhase(plan, Phase.WAITING)).containsExactly("n2");
    }

    @Test
    void newNodesGetTheTargetAtOnceWithoutWaitingForRoom() {
        List<NodeView> none =
                List.of(new NodeView("a", null, null), new NodeView("b", null, null), new NodeView("c", null, null));
        RolloutPlan plan = RolloutPlanner.plan(target(NEW, "p1"), ONE, none, T0);
        assertThat(plan.nodes().values()).allSatisfy(d -> {
            assertThat(d.phase()).isEqualTo(Phase.UPDATING);
            assertThat(d.tuningRevision()).isEqualTo(NEW.revision());
            assertThat(d.state().target()).isEqualTo(target(NEW, "p1").key());
        });
    }

    @Test
    void aTuningChangeMovesOneNodeAtATimeEachTunedServingAndSoakedBeforeTheNext() {
        List<Node> nodes = settled(3);
        RolloutTarget target = target(NEW, "p1");

        RolloutPlan plan = pass(target, ONE, nodes, T0);
        assertThat(inPhase(plan, Phase.UPDATING)).containsExactly("n1");
        assertThat(inPhase(plan, Phase.WAITING)).containsExactly("n2", "n3");
        // waiting nodes keep their tuning: their NodeTuning does not change
        assertThat(plan.nodes().get("n2").tuningRevision()).isEqualTo(OLD.revision());
        assertThat(plan.nodes().get("n2").message()).contains("waiting for its turn");
        assertThat(nodes.get(0).tuning).isEqualTo(NEW);

        // n1's agent has not applied yet: nothing else starts
        Instant t = T0.plusSeconds(1);
        assertThat(inPhase(pass(target, ONE, nodes, t), Phase.UPDATING)).containsExactly("n1");
        // applied, the gate reopened, Ready again: soaking, still n1's turn
        nodes.get(0).agentApplies();
        nodes.get(0).readyAt(t.plusSeconds(1));
        plan = pass(target, ONE, nodes, t.plusSeconds(5));
        assertThat(inPhase(plan, Phase.UPDATING)).containsExactly("n1");
        assertThat(plan.nodes().get("n1").message()).startsWith("soaking");
        assertThat(RolloutPlanner.recheck(plan, nodes.stream().map(Node::view).toList(), t.plusSeconds(5)))
                .hasValueSatisfying(d -> assertThat(d).isBetween(Duration.ofSeconds(6), Duration.ofSeconds(7)));
        // soaked: n1 updated (and its new tuning is its last good one), n2's turn
        plan = pass(target, ONE, nodes, t.plusSeconds(12));
        assertThat(inPhase(plan, Phase.UPDATED)).containsExactly("n1");
        assertThat(inPhase(plan, Phase.UPDATING)).containsExactly("n2");
        assertThat(nodes.get(0).state.lastGood().revision()).isEqualTo(NEW.revision());
        assertThat(plan.complete()).isFalse();

        Instant now = t.plusSeconds(12);
        for (int i = 1; i < 3; i++) {
            nodes.get(i).agentApplies();
            nodes.get(i).readyAt(now.plusSeconds(1));
            now = now.plusSeconds(12);
            plan = pass(target, ONE, nodes, now);
        }
        assertThat(plan.complete()).isTrue();
        assertThat(plan.updated()).isEqualTo(3);
    }

    @Test
    void aTuningChangeTakesTheNodeOutOfServiceBeforeItsNodeTuningChanges() {
        List<Node> nodes = settled(3);
        nodes.get(1).noPod = true; // n2 has no server: nothing to drain
        nodes.get(2).outOfServiceAt(T0.minusSeconds(60)); // n3's server is down for a minute: drained long ago
        RolloutTarget target = target(NEW, "p1");
        RolloutPolicy three = new RolloutPolicy(3, DRAINED.deadline(), DRAINED.soak(), true, DRAINED.drain());

        RolloutPlan plan = pass(target, three, nodes, T0);
        NodeDecision n1 = plan.nodes().get("n1");
        assertThat(n1.phase()).isEqualTo(Phase.DRAINING);
        assertThat(n1.podAction()).as("its readiness gate closes").isEqualTo(PodAction.DRAIN);
        assertThat(n1.message()).isEqualTo("draining its edge server before re-tuning the node");
        // clients still on it are served by the tuning they came to: its NodeTuning keeps it while it drains
        assertThat(n1.tuningRevision()).isEqualTo(OLD.revision());
        assertThat(nodes.get(0).tuning).isEqualTo(OLD);
        assertThat(plan.nodes().get("n2").tuningRevision()).isEqualTo(NEW.revision());
        assertThat(plan.nodes().get("n3").phase()).isEqualTo(Phase.UPDATING);
        assertThat(plan.nodes().get("n3").tuningRevision()).isEqualTo(NEW.revision());

        // the drain counts from when its pod is out of service, not from the turn's start: the kubelet has not
        // taken it out yet (or the gate's patch failed), so at the turn's drain time it still serves on OLD
        plan = pass(target, three, nodes, T0.plusSeconds(6));
        assertThat(plan.nodes().get("n1").phase()).isEqualTo(Phase.DRAINING);
        assertThat(nodes.get(0).tuning).isEqualTo(OLD);
        nodes.get(0).outOfServiceAt(T0.plusSeconds(6)); // the gate closed: out of service
        assertThat(RolloutPlanner.recheck(plan, nodes.stream().map(Node::view).toList(), T0.plusSeconds(6)))
                .as("out for 5 s from the Ready condition's whole second, and a second for its rounding")
                .contains(Duration.ofSeconds(6).plusMillis(500));
        plan = pass(target, three, nodes, T0.plusSeconds(11));
        assertThat(nodes.get(0).tuning).as("still draining").isEqualTo(OLD);
        plan = pass(target, three, nodes, T0.plusSeconds(12));
        n1 = plan.nodes().get("n1");
        assertThat(n1.phase()).isEqualTo(Phase.UPDATING);
        assertThat(n1.podAction()).as("re-tuned, not restarted").isEqualTo(PodAction.NONE);
        assertThat(n1.message()).isEqualTo("tuning it");
        assertThat(nodes.get(0).tuning).isEqualTo(NEW);
    }

    @Test
    void maxUnavailableCountsNodesAlreadyOutOfServiceAndThoseStartFirst() {
        List<Node> nodes = settled(4);
        nodes.get(2).podReady = false; // n3 is down anyway
        RolloutPolicy two = new RolloutPolicy(2, ONE.deadline(), ONE.soak(), true, ONE.drain());
        RolloutPlan plan = pass(target(NEW, "p1"), two, nodes, T0);
        // n3 (down) starts for free; of the room for two, n3 takes one place: one more starts
        assertThat(inPhase(plan, Phase.UPDATING)).containsExactly("n1", "n3");
        assertThat(inPhase(plan, Phase.WAITING)).containsExactly("n2", "n4");
    }

    /**
     * Three settled nodes rolling out {@code target} with maxUnavailable 1, up to the pass at T0 + 13 s that
     * updates n1 (tuned, serving and soaked) and starts n2's turn.
     */
    static List<Node> n1UpdatedAndN2InTurn(RolloutTarget target) {
        List<Node> nodes = settled(3);
        pass(target, ONE, nodes, T0);
        nodes.get(0).agentApplies();
        nodes.get(0).readyAt(T0.plusSeconds(1));
        RolloutPlan plan = pass(target, ONE, nodes, T0.plusSeconds(13));
        assertThat(inPhase(plan, Phase.UPDATED)).containsExactly("n1");
        assertThat(inPhase(plan, Phase.UPDATING)).containsExactly("n2");
        assertThat(plan.blocked()).as("n2 in its turn: going on").isFalse();
        return nodes;
    }

    @Test
    void aPodBeingDeletedIsOutOfServiceAndTakesRoomThoughItsReadyConditionIsStillTrue() {
        RolloutTarget target = target(NEW, "p1");
        List<Node> nodes = n1UpdatedAndN2InTurn(target);
        Instant t = T0.plusSeconds(1);
        nodes.get(1).agentApplies();
        nodes.get(1).readyAt(t.plusSeconds(13));
        // someone deletes n1's server: its endpoints leave at once, its Ready condition stays True until the
        // readiness probe fails
        nodes.get(0).podTerminating = true;
        RolloutPlan plan = pass(target, ONE, nodes, t.plusSeconds(24));
        assertThat(inPhase(plan, Phase.UPDATED)).containsExactly("n1", "n2");
        assertThat(inPhase(plan, Phase.WAITING))
                .as("n1 is out of service: no room for n3's turn")
                .containsExactly("n3");
        assertThat(plan.nodes().get("n3").message()).contains("1 of at most 1 node(s) updating or out of service");
    }

    /**
     * A second spec change a moment after a turn began: the node whose gate that turn closed is still Ready (the
     * kubelet has not acted yet) but on its way out of service. It takes room, so it is the one whose turn goes on
     * for the new revision; a turn begun beside it would take a second server out before the first is back.
     */
    @Test
    void aPodWhoseGateIsClosedTakesRoomBeforeTheKubeletTakesItOut() {
        List<Node> nodes = n1UpdatedAndN2InTurn(target(NEW, "p1"));
        nodes.get(1).gateClosed = true; // n2's turn closed its gate; its Ready condition is still True
        RolloutTarget newer = target(tuning("65536"), "p1");
        RolloutPlan plan = pass(newer, ONE, nodes, T0.plusSeconds(14));
        assertThat(inPhase(plan, Phase.UPDATING))
                .as("n2, out of service already, takes the new revision's turn")
                .containsExactly("n2");
        assertThat(inPhase(plan, Phase.WAITING)).containsExactly("n1", "n3");
        assertThat(plan.nodes().get("n1").message()).contains("1 of at most 1 node(s) updating or out of service");
        assertThat(plan.blocked()).isFalse();
    }

    /**
     * An updated node whose server goes down holds the room: the rollout cannot go on, and nothing it does frees
     * the room, so the plan says it is blocked and by which node, until that server serves again.
     */
    @Test
    void anUpdatedNodeOutOfServiceThatHoldsAllTheRoomBlocksTheRolloutByName() {
        RolloutTarget target = target(NEW, "p1");
        List<Node> nodes = n1UpdatedAndN2InTurn(target);
        Instant t = T0.plusSeconds(1);
        nodes.get(0).outOfServiceAt(t.plusSeconds(13)); // n1's server crashes
        nodes.get(1).agentApplies();
        nodes.get(1).readyAt(t.plusSeconds(13));
        RolloutPlan plan = pass(target, ONE, nodes, t.plusSeconds(25));
        assertThat(inPhase(plan, Phase.UPDATED)).containsExactly("n1", "n2");
        assertThat(inPhase(plan, Phase.WAITING)).containsExactly("n3");
        assertThat(plan.paused()).isFalse();
        assertThat(plan.blockedBy()).containsExactly("n1");

        nodes.get(0).readyAt(t.plusSeconds(30)); // serving again: the room is free
        plan = pass(target, ONE, nodes, t.plusSeconds(31));
        assertThat(inPhase(plan, Phase.UPDATING)).containsExactly("n3");
        assertThat(plan.blocked()).isFalse();
    }

    /** A waiting node already on the target only soaks (it is updated without a turn): the rollout is not blocked. */
    @Test
    void aWaitingNodeAlreadyOnTheTargetDoesNotMakeTheRolloutBlocked() {
        RolloutTarget target = target(NEW, "p1");
        List<Node> nodes = n1UpdatedAndN2InTurn(target);
        nodes.get(1).agentApplies();
        nodes.get(1).readyAt(T0.plusSeconds(14));
        nodes.get(0).outOfServiceAt(T0.plusSeconds(14)); // n1's server crashes: it holds the room
        nodes.get(2).tuning = NEW; // n3 got the target meanwhile (an earlier spec, say), Ready only since T0 + 20 s
        nodes.get(2).readyAt(T0.plusSeconds(20));
        RolloutPlan plan = pass(target, ONE, nodes, T0.plusSeconds(25));
        assertThat(inPhase(plan, Phase.UPDATED)).containsExactly("n1", "n2");
        assertThat(inPhase(plan, Phase.WAITING)).containsExactly("n3");
        assertThat(plan.blocked())
                .as("n3 needs no turn: it is updated once soaked")
                .isFalse();
        plan = pass(target, ONE, nodes, T0.plusSeconds(31));
        assertThat(inPhase(plan, Phase.UPDATED)).containsExactly("n1", "n2", "n3");
    }

    @Test
    void aPercentageIsRoundedUpAndNeverZero() {
        assertThat(RolloutPolicy.resolve("25%", 10)).isEqualTo(3);
        assertThat(RolloutPolicy.resolve("1%", 3)).isEqualTo(1);
        assertThat(RolloutPolicy.resolve("100%", 7)).isEqualTo(7);
        assertThat(RolloutPolicy.resolve("2", 7)).isEqualTo(2);
        assertThat(RolloutPolicy.resolve(null, 7)).isEqualTo(1);
    }

    @Test
    void anOutdatedPodIsDrainedThenEvictedInItsNodesTurnOnly() {
        List<Node> nodes = settled(2);
        RolloutTarget target = target(OLD, "p2"); // a restart-only server change: same tuning, new pod revision
        RolloutPlan plan = pass(target, DRAINED, nodes, T0);
        assertThat(plan.nodes().get("n1").phase()).isEqualTo(Phase.DRAINING);
        assertThat(plan.nodes().get("n1").podAction()).isEqualTo(PodAction.DRAIN);
        assertThat(plan.nodes().get("n2").podAction()).isEqualTo(PodAction.NONE);
        // the tuning did not change: the NodeTuning keeps its revision
        assertThat(plan.nodes().get("n1").tuningRevision()).isEqualTo(OLD.revision());

        nodes.get(0).outOfServiceAt(T0);
        plan = pass(target, DRAINED, nodes, T0.plusSeconds(6));
        assertThat(plan.nodes().get("n1").podAction()).isEqualTo(PodAction.EVICT);
        // the pod goes, the new one comes (from the current template) and is Ready
        nodes.get(0).podTerminating = true;
        plan = pass(target, DRAINED, nodes, T0.plusSeconds(6));
        assertThat(plan.nodes().get("n1").podAction()).isEqualTo(PodAction.NONE);
        assertThat(plan.nodes().get("n1").phase()).isEqualTo(Phase.UPDATING);
        nodes.get(0).podTerminating = false;
        nodes.get(0).podRevision = "p2";
        nodes.get(0).readyAt(T0.plusSeconds(8));
        plan = pass(target, DRAINED, nodes, T0.plusSeconds(19));
        assertThat(inPhase(plan, Phase.UPDATED)).containsExactly("n1");
        assertThat(plan.nodes().get("n2").phase()).isEqualTo(Phase.DRAINING);
    }

    @Test
    void aPauseCallsOffTheTurnsThatHaveChangedNothingYet() {
        List<Node> nodes = settled(3);
        RolloutTarget target = target(NEW, "p1");
        assertThat(inPhase(pass(target, TWO_DRAINED, nodes, T0), Phase.DRAINING))
                .containsExactly("n1", "n2");
        nodes.get(0).outOfServiceAt(T0);
        nodes.get(1).outOfServiceAt(T0);
        assertThat(inPhase(pass(target, TWO_DRAINED, nodes, T0.plusSeconds(6)), Phase.UPDATING))
                .containsExactly("n1", "n2");
        nodes.get(0).agentApplies();
        nodes.get(0).readyAt(T0.plusSeconds(6));
        RolloutPlan plan = pass(target, TWO_DRAINED, nodes, T0.plusSeconds(16));
        assertThat(inPhase(plan, Phase.UPDATED)).containsExactly("n1");
        assertThat(inPhase(plan, Phase.DRAINING)).containsExactly("n3");

        // n2 fails while n3 drains: n3's turn is called off (nothing on it changed yet), it serves again
        nodes.get(1).agentFails("RolledBack");
        plan = pass(target, TWO_DRAINED, nodes, T0.plusSeconds(17));
        assertThat(plan.pausedNode()).isEqualTo("n2");
        NodeDecision n3 = plan.nodes().get("n3");
        assertThat(n3.phase()).isEqualTo(Phase.WAITING);
        assertThat(n3.podAction()).as("its readiness gate opens again").isEqualTo(PodAction.NONE);
        assertThat(n3.tuningRevision()).isEqualTo(OLD.revision());
        assertThat(n3.message())
                .isEqualTo(
                        "waiting: the rollout is paused (node n2 failed); its turn was called off before anything on the node changed");
        assertThat(n3.state().target()).as("no turn").isNull();
        assertThat(n3.state().lastGood().revision()).isEqualTo(OLD.revision());
        // and it stays so, drained neither now nor once its drain time would have passed
        plan = pass(target, TWO_DRAINED, nodes, T0.plusSeconds(30));
        assertThat(plan.nodes().get("n3").phase()).isEqualTo(Phase.WAITING);
        assertThat(plan.nodes().get("n3").podAction()).isEqualTo(PodAction.NONE);
        assertThat(nodes.get(2).tuning).isEqualTo(OLD);
    }

    @Test
    void aPauseSeenInThePassThatEndsADrainCallsThatTurnOffToo() {
        List<Node> nodes = settled(3);
        RolloutTarget target = target(NEW, "p2"); // a re-tune and a restart
        assertThat(inPhase(pass(target, TWO_DRAINED, nodes, T0), Phase.DRAINING))
                .containsExactly("n1", "n2");
        nodes.get(0).outOfServiceAt(T0);
        nodes.get(1).outOfServiceAt(T0.plusSeconds(2)); // its kubelet was slower
        RolloutPlan plan = pass(target, TWO_DRAINED, nodes, T0.plusSeconds(6));
        assertThat(plan.nodes().get("n1").podAction()).isEqualTo(PodAction.EVICT);
        nodes.get(0).podTerminating = true;
        nodes.get(0).agentFails("RolledBack");

        // n2's drain ends in the pass that sees n1's failure: it is neither re-tuned nor restarted
        plan = pass(target, TWO_DRAINED, nodes, T0.plusSeconds(8));
        assertThat(plan.pausedNode()).isEqualTo("n1");
        NodeDecision n2 = plan.nodes().get("n2");
        assertThat(n2.phase()).isEqualTo(Phase.WAITING);
        assertThat(n2.podAction()).isEqualTo(PodAction.NONE);
        assertThat(n2.tuningRevision()).isEqualTo(OLD.revision());
        assertThat(n2.state().target()).isNull();
        assertThat(nodes.get(1).tuning).isEqualTo(OLD);
    }

    @Test
    void aPauseCallsOffARestartDrainedInThatPass() {
        List<Node> nodes = settled(2);
        RolloutTarget restart = target(OLD, "p2"); // restart-only: the tuning stays what both ran healthily
        pass(restart, TWO_DRAINED, nodes, T0);
        nodes.get(0).outOfServiceAt(T0);

        assertThat(pass(restart, TWO_DRAINED, nodes, T0.plusSeconds(6))
                        .nodes()
                        .get("n1")
                        .podAction())
                .isEqualTo(PodAction.EVICT);
        nodes.get(1).outOfServiceAt(T0.plusSeconds(2)); // its kubelet was slower
        nodes.get(0).podTerminating = true;
        nodes.get(0).agentFails("RolledBack");

        RolloutPlan plan = pass(restart, TWO_DRAINED, nodes, T0.plusSeconds(8));
        assertThat(plan.pausedNode()).isEqualTo("n1");
        assertThat(plan.nodes().get("n2").phase()).isEqualTo(Phase.WAITING);
        assertThat(plan.nodes().get("n2").podAction()).as("not evicted").isEqualTo(PodAction.NONE);
    }

    @Test
    void aPauseCallsOffTheDrainOfANodeThatHasNotSoakedYet() {
        List<Node> nodes = settled(2);
        Node fresh = new Node("n3", OLD);
        fresh.readyAt(T0.minusSeconds(3)); // tuned and serving, not soaked yet: no last good tuning
        nodes.add(fresh);
        RolloutTarget restart = target(OLD, "p2");
        RolloutPolicy three = new RolloutPolicy(3, DRAINED.deadline(), DRAINED.soak(), true, DRAINED.drain());
        assertThat(inPhase(pass(restart, three, nodes, T0), Phase.DRAINING)).containsExactly("n1", "n2", "n3");
        nodes.get(0).outOfServiceAt(T0);
        assertThat(pass(restart, three, nodes, T0.plusSeconds(6))
                        .nodes()
                        .get("n1")
                        .podAction())
                .isEqualTo(PodAction.EVICT);
        nodes.get(0).podTerminating = true;
        nodes.get(0).agentFails("RolledBack");

        RolloutPlan plan = pass(restart, three, nodes, T0.plusSeconds(7));
        assertThat(plan.pausedNode()).isEqualTo("n1");
        assertThat(inPhase(plan, Phase.WAITING)).containsExactly("n2", "n3");
        assertThat(plan.nodes().get("n3").podAction()).isEqualTo(PodAction.NONE);
    }

    @Test
    void aDrainThatNeverTakesTheServerOutOfServiceFailsTheTurnSayingSo() {
        List<Node> nodes = settled(2);
        RolloutTarget target = target(NEW, "p1");
        pass(target, DRAINED, nodes, T0); // n1's gate closes, but its kubelet never marks the pod not Ready
        RolloutPlan plan = pass(target, DRAINED, nodes, T0.plusSeconds(601));
        assertThat(plan.pausedNode()).isEqualTo("n1");
        assertThat(plan.pausedReason())
                .contains(
                        "its edge server never went out of service for the drain (still Ready with its readiness gate closed)");
        assertThat(nodes.get(0).tuning).as("never re-tuned while serving").isEqualTo(OLD);
    }

    /**
     * Without autoRevert as with it: a turn that fails before the node was re-tuned (its drain never took its server
     * out of service) leaves the node as it was, serving on the tuning it had; nothing of the revision is on it to
     * fix, so only a new revision goes on.
     */
    @Test
    void withoutAutoRevertADrainThatNeverTakesTheServerOutOfServiceLeavesTheNodeAsItWas() {
        RolloutPolicy noRevert = new RolloutPolicy(1, DRAINED.deadline(), DRAINED.soak(), false, DRAINED.drain());
        List<Node> nodes = settled(2);
        RolloutTarget target = target(NEW, "p1");
        pass(target, noRevert, nodes, T0); // n1's gate closes, but its kubelet never marks the pod not Ready
        RolloutPlan plan = pass(target, noRevert, nodes, T0.plusSeconds(601));
        assertThat(plan.pausedNode()).isEqualTo("n1");
        assertThat(plan.nodes().get("n1").phase()).isEqualTo(Phase.FAILED);
        assertThat(plan.nodes().get("n1").message())
                .endsWith("it keeps the tuning it had (its turn had not re-tuned it)");
        assertThat(nodes.get(0).tuning).as("never re-tuned while serving").isEqualTo(OLD);
        assertThat(plan.pausedUntilNewRevision()).isTrue();
        pass(target, noRevert, nodes, T0.plusSeconds(700));
        assertThat(nodes.get(0).tuning).as("nor later").isEqualTo(OLD);
    }

    /** Three settled nodes, n1 in its turn for {@code target} from T0 and its agent failing it (RolledBack). */
    static List<Node> n1FailsInItsTurn(RolloutTarget target) {
        List<Node> nodes = settled(3);
        pass(target, ONE, nodes, T0);
        nodes.get(0).agentFails("RolledBack");
        return nodes;
    }

    @Test
    void anAgentFailurePausesTheRolloutAndAutoRevertGivesTheNodeItsLastGoodTuning() {
        RolloutTarget target = target(NEW, "p1");
        List<Node> nodes = n1FailsInItsTurn(target);

        RolloutPlan plan = pass(target, ONE, nodes, T0.plusSeconds(2));
        assertThat(plan.paused()).isTrue();
        assertThat(plan.pausedNode()).isEqualTo("n1");
        assertThat(plan.pausedReason()).contains("RolledBack");
        assertThat(plan.nodes().get("n1").phase()).isEqualTo(Phase.REVERTED);
        assertThat(plan.nodes().get("n1").tuningRevision()).isEqualTo(OLD.revision());
        assertThat(plan.events()).singleElement().satisfies(e -> {
            assertThat(e.reason()).isEqualTo("RolloutPaused");
            assertThat(e.message())
                    .contains("node n1 failed revision " + target.key())
                    .contains("last good tuning");
        });
        // nothing else starts while paused; the others keep their tuning and serve
        assertThat(inPhase(plan, Phase.WAITING)).containsExactly("n2", "n3");
        assertThat(plan.nodes().get("n2").message()).contains("paused");

        // the agent applies the last good tuning: the node serves again; still paused, no new event
        nodes.get(0).agentApplies();
        plan = pass(target, ONE, nodes, T0.plusSeconds(30));
        assertThat(plan.paused()).isTrue();
        assertThat(plan.events()).isEmpty();
        assertThat(nodes.get(0).tuning).isEqualTo(OLD);

        // a new spec: a new revision, the rollout starts again from n1
        plan = pass(target(tuning("65536"), "p1"), ONE, nodes, T0.plusSeconds(40));
        assertThat(plan.paused()).isFalse();
        assertThat(inPhase(plan, Phase.UPDATING)).containsExactly("n1");
    }

    @Test
    void withoutAutoRevertAFailedNodeKeepsTheTargetAndTheRolloutResumesOnceItIsFixedThere() {
        RolloutPolicy noRevert = new RolloutPolicy(1, ONE.deadline(), ONE.soak(), false, ONE.drain());
        List<Node> nodes = settled(2);
        RolloutTarget target = target(NEW, "p1");
        pass(target, noRevert, nodes, T0);
        nodes.get(0).agentFails("ApplyFailed");
        RolloutPlan plan = pass(target, noRevert, nodes, T0.plusSeconds(1));
        assertThat(plan.nodes().get("n1").phase()).isEqualTo(Phase.FAILED);
        assertThat(plan.nodes().get("n1").tuningRevision()).isEqualTo(NEW.revision());
        assertThat(plan.pausedUntilNewRevision())
                .as("it may be fixed on the node")
                .isFalse();

        // fixed on the node (the agent now applies it): the operator looks again when the soak is over
        nodes.get(0).agentApplies();
        nodes.get(0).readyAt(T0.plusSeconds(2));
        plan = pass(target, noRevert, nodes, T0.plusSeconds(3));
        assertThat(plan.paused()).isTrue();
        assertThat(RolloutPlanner.recheck(plan, nodes.stream().map(Node::view).toList(), T0.plusSeconds(3)))
                .hasValueSatisfying(d -> assertThat(d).isBetween(Duration.ofSeconds(9), Duration.ofSeconds(10)));
        // soaked: the failure no longer holds
        plan = pass(target, noRevert, nodes, T0.plusSeconds(20));
        assertThat(plan.paused()).isFalse();
        assertThat(inPhase(plan, Phase.UPDATED)).containsExactly("n1");
        assertThat(inPhase(plan, Phase.UPDATING)).containsExactly("n2");
    }

    /** The node's agent applied its new tuning, but a setting it had applied before is now Unsupported. */
    static Node loses(Node n, String setting) {
        n.agentApplies();
        n.degraded = true;
        n.settings = List.of(setting(setting, SettingState.UNSUPPORTED));
        return n;
    }

    @Test
    void aSettingAppliedBeforeThatTurnsUnsupportedIsARegression() {
        List<Node> nodes = settled(2);
        RolloutTarget target = target(NEW, "p1");
        pass(target, ONE, nodes, T0);
        Node n1 = loses(nodes.get(0), "sysctl/net.ipv4.tcp_notsent_lowat");
        RolloutPlan plan = pass(target, ONE, nodes, T0.plusSeconds(1));
        assertThat(plan.pausedNode()).isEqualTo("n1");
        assertThat(plan.pausedReason())
                .contains(
                        "applied in its last good tuning now Unsupported or Failed: sysctl/net.ipv4.tcp_notsent_lowat");
    }

    @Test
    void withoutAutoRevertARegressionStillThereAfterTheSoakKeepsTheRolloutPaused() {
        RolloutPolicy noRevert = new RolloutPolicy(1, ONE.deadline(), ONE.soak(), false, ONE.drain());
        List<Node> nodes = settled(2);
        RolloutTarget target = target(NEW, "p1");
        pass(target, noRevert, nodes, T0);
        Node n1 = loses(nodes.get(0), "sysctl/net.ipv4.tcp_notsent_lowat");
        RolloutPlan plan = pass(target, noRevert, nodes, T0.plusSeconds(1));
        assertThat(plan.pausedNode()).isEqualTo("n1");

        // Degraded and serving for longer than the soak: the setting is still lost, the rollout stays paused
        plan = pass(target, noRevert, nodes, T0.plusSeconds(60));
        assertThat(plan.pausedNode()).isEqualTo("n1");
        assertThat(plan.nodes().get("n1").phase()).isEqualTo(Phase.FAILED);
        assertThat(inPhase(plan, Phase.WAITING)).containsExactly("n2");

        // the node takes the setting again: after a soak from then, the rollout goes on
        n1.degraded = false;
        n1.settings = List.of(setting("sysctl/net.ipv4.tcp_notsent_lowat", SettingState.APPLIED));
        n1.readyAt(T0.plusSeconds(61));
        plan = pass(target, noRevert, nodes, T0.plusSeconds(80));
        assertThat(plan.paused()).isFalse();
        assertThat(inPhase(plan, Phase.UPDATED)).containsExactly("n1");
        assertThat(inPhase(plan, Phase.UPDATING)).containsExactly("n2");
    }

    @Test
    void aSettingThatWasNeverAppliedBeingUnsupportedIsNoRegression() {
        List<Node> nodes = settled(2);
        RolloutTarget target = target(NEW, "p1");
        pass(target, ONE, nodes, T0);
        Node n1 = nodes.get(0);
        n1.agentApplies();
        n1.degraded = true;
        n1.settings = List.of(
                setting("sysctl/net.ipv4.tcp_notsent_lowat", SettingState.APPLIED),
                setting("rps/eth0/rx-0", SettingState.UNSUPPORTED));
        n1.readyAt(T0.plusSeconds(1));
        RolloutPlan plan = pass(target, ONE, nodes, T0.plusSeconds(12));
        assertThat(plan.paused()).isFalse();
        assertThat(inPhase(plan, Phase.UPDATED)).containsExactly("n1");
    }

    @Test
    void aNodeNotDoneWithinTheDeadlineFailsNamingWhatIsMissing() {
        List<Node> nodes = settled(2);
        RolloutTarget target = target(NEW, "p1");
        pass(target, ONE, nodes, T0);
        // the agent never answers (it is down)
        RolloutPlan plan = pass(target, ONE, nodes, T0.plusSeconds(599));
        assertThat(plan.paused()).isFalse();
        plan = pass(target, ONE, nodes, T0.plusSeconds(601));
        assertThat(plan.pausedNode()).isEqualTo("n1");
        assertThat(plan.pausedReason())
                .startsWith("not tuned and serving within progressDeadlineSeconds (600 s)")
                .contains("tuning: waiting for the node agent to apply the NodeTuning");
    }

    /**
     * Nodes whose agents never applied anything (no last good tuning), each in its turn for {@code target}
     * from T0 + 1 s, their agents failing that too.
     */
    static List<Node> neverHealthyInTurn(int n, RolloutTarget target) {
        List<Node> nodes = fleet(n, OLD);
        nodes.forEach(node -> node.agentFails("ApplyFailed"));
        pass(target(OLD, "p1"), ONE, nodes, T0);
        nodes.forEach(node -> assertThat(node.state.lastGood()).isNull());
        RolloutPlan plan = pass(target, ONE, nodes, T0.plusSeconds(1));
        // no last good tuning to protect: all move to the target at once
        assertThat(plan.updating()).isEqualTo(n);
        nodes.forEach(node -> node.agentFails("ApplyFailed"));
        return nodes;
    }

    @Test
    void aNodeThatNeverRanHealthilyStallsWhenItsDrainNeverTakesItsServerOutOfService() {
        List<Node> nodes = fleet(1, OLD);
        nodes.get(0).agentFails("ApplyFailed"); // serving, never tuned: no last good tuning
        RolloutTarget restart = target(OLD, "p2");
        assertThat(pass(restart, DRAINED, nodes, T0).nodes().get("n1").phase()).isEqualTo(Phase.DRAINING);
        // its gate closed, but its pod stays Ready
        NodeDecision d =
                pass(restart, DRAINED, nodes, T0.plusSeconds(601)).nodes().get("n1");
        assertThat(d.phase()).isEqualTo(Phase.STALLED);
        assertThat(d.podAction())
                .as("still out of rotation as far as the gate goes")
                .isEqualTo(PodAction.DRAIN);
        assertThat(d.message()).contains("its edge server never went out of service for the drain");

        // out of service at last, its drain not over yet: draining, not stalled
        nodes.get(0).outOfServiceAt(T0.plusSeconds(601));
        d = pass(restart, DRAINED, nodes, T0.plusSeconds(603)).nodes().get("n1");
        assertThat(d.phase()).isEqualTo(Phase.DRAINING);
    }

    @Test
    void aNodeThatNeverRanHealthilyNeitherWaitsNorPauses() {
        List<Node> nodes = neverHealthyInTurn(2, target(NEW, "p1"));
        RolloutPlan plan = pass(target(NEW, "p1"), ONE, nodes, T0.plusSeconds(2));
        assertThat(inPhase(plan, Phase.UPDATING)).containsExactly("n1", "n2");
        assertThat(plan.paused()).isFalse();
    }

    @Test
    void aNodeThatNeverRanHealthilyStallsPastTheDeadlineWithoutPausingAndIsUpdatedOnceItServes() {
        RolloutTarget target = target(NEW, "p1");
        List<Node> nodes = neverHealthyInTurn(2, target);
        RolloutPlan plan = pass(target, ONE, nodes, T0.plusSeconds(601));
        assertThat(inPhase(plan, Phase.UPDATING)).containsExactly("n1", "n2");
        assertThat(plan.stalled()).isEmpty();

        plan = pass(target, ONE, nodes, T0.plusSeconds(602));
        assertThat(plan.paused()).isFalse();
        assertThat(plan.stalled()).containsExactly("n1", "n2");
        assertThat(plan.updating()).isEqualTo(2); // still their turn, still taking room
        assertThat(plan.inTurn()).isEmpty(); // but not on their way
        assertThat(plan.nodes().get("n1").message())
                .startsWith("not tuned and serving within progressDeadlineSeconds (600 s): tuning: ")
                .endsWith("; it never ran tuned and serving before, so the rollout does not pause for it");
        assertThat(plan.events()).isEmpty();

        // n1's agent applies at last; its server was Ready all through its turn, longer than the soak: updated
        nodes.get(0).agentApplies();
        plan = pass(target, ONE, nodes, T0.plusSeconds(603));
        assertThat(inPhase(plan, Phase.UPDATED)).containsExactly("n1");
        assertThat(plan.stalled()).containsExactly("n2");
        assertThat(plan.complete()).isFalse();
    }

    @Test
    void aNodeWhosePodIsStillToBeEvictedIsMarkedStalledOnlyOnceThatIsDone() {
        RolloutTarget target = target(NEW, "p2");
        List<Node> nodes = neverHealthyInTurn(1, target);
        NodeDecision d = pass(target, ONE, nodes, T0.plusSeconds(700)).nodes().get("n1");
        assertThat(d.podAction()).isEqualTo(PodAction.EVICT);
        assertThat(d.phase()).isEqualTo(Phase.UPDATING);
        assertThat(d.message()).isEqualTo("restarting its edge server for the new revision");
        // evicted, and the DaemonSet's next pod does not come up
        nodes.get(0).noPod = true;
        assertThat(pass(target, ONE, nodes, T0.plusSeconds(701)).stalled()).containsExactly("n1");
    }

    @Test
    void aNodeWhoseTaintKeepsItsServerOffIsNamedWithTheTaintWhenItFailsItsTurn() {
        List<Node> nodes = settled(2);
        nodes.get(1).noPod = true;
        nodes.get(1).untoleratedTaint = "dedicated=video:NoSchedule";
        RolloutTarget restart = target(OLD, "p2");
        pass(restart, DRAINED, nodes, T0.plusSeconds(1));
        RolloutPlan plan = pass(restart, DRAINED, nodes, T0.plusSeconds(602));
        assertThat(plan.pausedNode()).isEqualTo("n2");
        assertThat(plan.pausedReason())
                .isEqualTo(
                        "not tuned and serving within progressDeadlineSeconds (600 s): server: no edge-server pod on "
                                + "this node: the DaemonSet places none, as spec.tolerations does not tolerate its taint "
                                + "dedicated=video:NoSchedule");
    }

    @Test
    void aNodeWithNoPodWhenARestartOnlyChangeArrivesIsInItsTurnAndFailsTheRolloutPastTheDeadline() {
        List<Node> nodes = settled(2);
        // n2's pod is gone and the DaemonSet cannot place another (a taint, no room): it serves nothing
        nodes.get(1).noPod = true;
        RolloutTarget restart = target(OLD, "p2");
        RolloutPlan plan = pass(restart, DRAINED, nodes, T0.plusSeconds(1));
        NodeDecision n2 = plan.nodes().get("n2");
        assertThat(n2.phase()).isEqualTo(Phase.UPDATING);
        assertThat(n2.state().target()).isEqualTo(restart.key());
        assertThat(n2.state().startedAt()).isEqualTo(T0.plusSeconds(1).toString());
        assertThat(n2.message()).isEqualTo("waiting for its edge server to be Ready");
        // it takes the only room: n1 keeps its server until n2 is done or fails
        assertThat(inPhase(plan, Phase.WAITING)).containsExactly("n1");
        assertThat(RolloutPlanner.recheck(plan, nodes.stream().map(Node::view).toList(), T0.plusSeconds(1)))
                .contains(Duration.ofSeconds(600).plusMillis(500));

        plan = pass(restart, DRAINED, nodes, T0.plusSeconds(602));
        assertThat(plan.pausedNode()).isEqualTo("n2");
        assertThat(plan.pausedReason())
                .isEqualTo(
                        "not tuned and serving within progressDeadlineSeconds (600 s): server: no edge-server pod on this node yet");
        assertThat(plan.events())
                .singleElement()
                .satisfies(e -> assertThat(e.message())
                        .startsWith("node n2 failed revision " + restart.key() + ": not tuned and serving")
                        .doesNotContain("last good tuning"));
        // its last good tuning is the target's own: nothing to put back, so Failed, not Reverted
        assertThat(plan.nodes().get("n2").phase()).isEqualTo(Phase.FAILED);
        assertThat(plan.nodes().get("n1").message()).contains("paused (node n2 failed)");
        assertThat(pass(restart, DRAINED, nodes, T0.plusSeconds(603)).events()).isEmpty();

        // fixed on the node (the taint gone, a pod of the new template Ready): the failure no longer holds
        // once it soaked, with autoRevert too, and n1's turn starts
        Node n2node = nodes.get(1);
        n2node.noPod = false;
        n2node.podRevision = "p2";
        n2node.readyAt(T0.plusSeconds(610));
        plan = pass(restart, DRAINED, nodes, T0.plusSeconds(619));
        assertThat(plan.pausedNode()).isEqualTo("n2");
        plan = pass(restart, DRAINED, nodes, T0.plusSeconds(621));
        assertThat(plan.paused()).isFalse();
        assertThat(plan.nodes().get("n2").phase()).isEqualTo(Phase.UPDATED);
        assertThat(plan.nodes().get("n1").phase()).isEqualTo(Phase.DRAINING);
    }

    @Test
    void aNodeWithNothingToChangeThatSoaksWhileWaitingForRoomIsUpdatedWithoutATurn() {
        List<Node> nodes = settled(2);
        RolloutTarget restart = target(OLD, "p2");
        // n2's pod was replaced from the new template meanwhile (a reboot, say) and is Ready since T0
        nodes.get(1).podRevision = "p2";
        nodes.get(1).readyAt(T0);
        RolloutPlan plan = pass(restart, DRAINED, nodes, T0.plusSeconds(1));
        assertThat(plan.nodes().get("n1").phase()).isEqualTo(Phase.DRAINING);
        assertThat(plan.nodes().get("n2").phase()).isEqualTo(Phase.WAITING);
        nodes.get(0).outOfServiceAt(T0.plusSeconds(1));
        // the reconciler looks again when n2's soak ends (T0 + 10 s), not only at n1's drain (T0 + 6 s)
        assertThat(RolloutPlanner.recheck(plan, nodes.stream().map(Node::view).toList(), T0.plusSeconds(7)))
                .contains(Duration.ofSeconds(3).plusMillis(500));
        plan = pass(restart, DRAINED, nodes, T0.plusSeconds(11));
        assertThat(plan.nodes().get("n2").phase()).isEqualTo(Phase.UPDATED);
        assertThat(plan.nodes().get("n2").state().startedAt()).isNull();
    }

    @Test
    void whilePausedANodeWithNothingToChangeButNoPodWaitsLikeTheRest() {
        RolloutTarget target = target(NEW, "p1");
        List<Node> nodes = n1FailsInItsTurn(target);
        assertThat(pass(target, ONE, nodes, T0.plusSeconds(2)).pausedNode()).isEqualTo("n1");
        // n3 has the target's tuning already (an earlier spec) and has lost its pod
        nodes.get(2).tuning = NEW;
        nodes.get(2).noPod = true;
        RolloutPlan plan = pass(target, ONE, nodes, T0.plusSeconds(3));
        assertThat(inPhase(plan, Phase.WAITING)).containsExactly("n2", "n3");
        assertThat(plan.nodes().get("n3").state().target()).isNotEqualTo(target.key());
        assertThat(plan.nodes().get("n3").message()).contains("paused (node n1 failed)");
    }

    @Test
    void aNodeThatNeverRanHealthilyAndHasNoPodStallsPastTheDeadline() {
        List<Node> nodes = fleet(1, OLD);
        nodes.get(0).noPod = true;
        nodes.get(0).agentFails("ApplyFailed");
        RolloutTarget target = target(OLD, "p1");
        RolloutPlan plan = pass(target, ONE, nodes, T0);
        assertThat(plan.nodes().get("n1").state().startedAt()).isEqualTo(T0.toString());
        assertThat(pass(target, ONE, nodes, T0.plusSeconds(600)).stalled()).isEmpty();
        plan = pass(target, ONE, nodes, T0.plusSeconds(601));
        assertThat(plan.stalled()).containsExactly("n1");
        assertThat(plan.paused()).isFalse();
    }

    @Test
    void anEvictionStillToHappenIsAskedAgainSoonNotOnlyAtTheDeadline() {
        List<Node> nodes = settled(2);
        RolloutTarget restart = target(OLD, "p2");
        assertThat(pass(restart, DRAINED, nodes, T0).nodes().get("n1").podAction())
                .isEqualTo(PodAction.DRAIN);
        nodes.get(0).outOfServiceAt(T0); // its gate closed by the drain
        RolloutPlan plan = pass(restart, DRAINED, nodes, T0.plusSeconds(6));
        assertThat(plan.nodes().get("n1").podAction()).isEqualTo(PodAction.EVICT);
        // a PodDisruptionBudget refused the eviction: the pod is still there, and nothing else will change
        assertThat(RolloutPlanner.recheck(plan, nodes.stream().map(Node::view).toList(), T0.plusSeconds(6)))
                .contains(RolloutPlanner.EVICTION_RETRY.plusMillis(500));
    }

    @Test
    void itsMemoryIsOnTheNodeTuningsSoAnotherOperatorInstanceCarriesOn() {
        List<Node> nodes = settled(3);
        RolloutTarget target = target(NEW, "p1");
        pass(target, ONE, nodes, T0);
        // a new operator instance sees only the objects: the same decisions
        RolloutPlan again =
                RolloutPlanner.plan(target, ONE, nodes.stream().map(Node::view).toList(), T0.plusSeconds(3));
        assertThat(inPhase(again, Phase.UPDATING)).containsExactly("n1");
        assertThat(again.nodes().get("n1").state().startedAt()).isEqualTo(T0.toString());
        // and a state it cannot read is rebuilt, not fatal
        NodeView garbled = nodes.get(1).view();
        garbled.nt().getMetadata().getAnnotations().put(Names.ROLLOUT_STATE, "{not json");
        assertThat(NodeRolloutState.of(garbled.nt())).isEqualTo(NodeRolloutState.NONE);
    }

    @Test
    void aNodeThatGoesDownAfterItsUpdateIsTheNodesTroubleNotAFailedRollout() {
        List<Node> nodes = settled(2);
        RolloutTarget target = target(NEW, "p1");
        RolloutPlan plan = null;
        Instant now = T0;
        for (Node n : nodes) {
            pass(target, ONE, nodes, now);
            n.agentApplies();
            n.readyAt(now.plusSeconds(1));
            now = now.plusSeconds(12);
        }
        plan = pass(target, ONE, nodes, now);
        assertThat(plan.complete()).isTrue();
        // an hour later n1's server crashes and its agent fails on something: the rollout stays complete
        nodes.get(0).podReady = false;
        nodes.get(0).agentFails("ApplyFailed");
        plan = pass(target, ONE, nodes, now.plusSeconds(3600));
        assertThat(plan.paused()).isFalse();
        assertThat(plan.complete()).isTrue();
        assertThat(plan.events()).isEmpty();
        assertThat(nodes.get(0).tuning).isEqualTo(NEW);
    }

    @Test
    void aNodeThatAlreadyHasTheTargetNeedsNoTurn() {
        List<Node> nodes = settled(2);
        nodes.get(1).tuning = NEW; // someone (an earlier spec) gave it this tuning already
        RolloutPlan plan = pass(target(NEW, "p1"), ONE, nodes, T0.plusSeconds(1));
        assertThat(inPhase(plan, Phase.UPDATED)).containsExactly("n2");
        assertThat(inPhase(plan, Phase.UPDATING)).containsExactly("n1");
    }

    @Test
    void theSameTargetAgainChangesNothing() {
        List<Node> nodes = settled(3);
        List<NodeView> views = nodes.stream().map(Node::view).toList();
        RolloutPlan plan = RolloutPlanner.plan(target(OLD, "p1"), ONE, views, T0.plusSeconds(5));
        assertThat(plan.complete()).isTrue();
        plan.nodes().values().forEach(d -> {
            NodeTuning nt = views.stream()
                    .filter(v -> v.node().equals(d.node()))
                    .findFirst()
                    .orElseThrow()
                    .nt();
            assertThat(d.state().toJson())
                    .isEqualTo(nt.getMetadata().getAnnotations().get(Names.ROLLOUT_STATE));
            assertThat(d.tuning()).isEqualTo(TuningInputs.of(nt.getSpec()));
        });
        assertThat(RolloutPlanner.recheck(plan, views, T0.plusSeconds(5))).isEmpty();
    }
}
