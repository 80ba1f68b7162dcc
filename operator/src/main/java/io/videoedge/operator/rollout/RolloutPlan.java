package io.videoedge.operator.rollout;

import java.util.List;
import java.util.SortedMap;

/**
 * The rollout's decisions of one pass: one per owned node, the counts, whether it is paused and by
 * which node, and what happened this pass that a person should hear about.
 *
 * @param pausedNode the first node that failed the target (null: not paused)
 * @param pausedReason why it failed
 * @param pausedUntilNewRevision paused, and only a new revision goes on: the failed node was reverted, or its
 *     turn failed before it was re-tuned and restarted on this one (nothing of it on the node to fix there)
 * @param blockedBy not paused, nodes waiting, none in its turn: the nodes out of service outside the rollout that
 *     take all its room (an updated node whose server went down), by name; empty otherwise
 * @param events what changed this pass (a node failed, a node was reverted)
 */
public record RolloutPlan(
        RolloutTarget target,
        RolloutPolicy policy,
        SortedMap<String, NodeDecision> nodes,
        String pausedNode,
        String pausedReason,
        boolean pausedUntilNewRevision,
        List<String> blockedBy,
        List<Event> events) {

    /** @param type Normal or Warning */
    public record Event(String type, String reason, String message) {}

    public boolean paused() {
        return pausedNode != null;
    }

    public boolean blocked() {
        return !blockedBy.isEmpty();
    }

    public int count(NodeDecision.Phase phase) {
        return (int) nodes.values().stream().filter(d -> d.phase() == phase).count();
    }

    public int updated() {
        return count(NodeDecision.Phase.UPDATED);
    }

    public int updating() {
        return (int) nodes.values().stream().filter(d -> d.phase().inTurn()).count();
    }

    public int waiting() {
        return count(NodeDecision.Phase.WAITING);
    }

    public int failed() {
        return count(NodeDecision.Phase.FAILED) + count(NodeDecision.Phase.REVERTED);
    }

    public boolean complete() {
        return updated() == nodes.size();
    }

    /** The nodes whose turn stalled (see {@link NodeDecision.Phase#STALLED}), by name. */
    public List<String> stalled() {
        return nodes.values().stream()
                .filter(d -> d.phase() == NodeDecision.Phase.STALLED)
                .map(NodeDecision::node)
                .toList();
    }

    /** The nodes in their turn and on their way (not stalled), by name. */
    public List<String> inTurn() {
        return nodes.values().stream()
                .filter(d -> d.phase().inTurn() && d.phase() != NodeDecision.Phase.STALLED)
                .map(NodeDecision::node)
                .toList();
    }
}
