package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/**
 * Bounded whatever the number of nodes: counts, conditions, the totals removed, and at most
 * {@link #MAX_PENDING_LISTED} of the nodes that have not acknowledged. Each acknowledgement is in the
 * operator's log and metrics, not here (a status that grows with healthy nodes would not fit a large
 * fleet into one object).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CachePurgeStatus(
        @JsonPropertyDescription("The metadata.generation this status describes.")
        Long observedGeneration,

        @JsonPropertyDescription(
                "Complete and Failed, each with a reason and message. Complete=True AllNodesAcknowledged: every "
                        + "targeted node acknowledged by the deadline. Failed=True DeadlineExceeded: some had not by the "
                        + "deadline (the message names them); it stays True as the record of that, while the nodes still "
                        + "pending are called again when they come back, as long as this CachePurge exists. "
                        + "Complete=True AcknowledgedAfterDeadline: every targeted node has it now, acknowledgedLate of them "
                        + "after the deadline. Failed=True VideoEdgeNotFound: there is no such VideoEdge (deleted, perhaps after calls were made): no more calls, and the counts are reset to 0 (missedDeadline and acknowledgedLate kept). Complete=True and VideoEdgeNotFound are "
                        + "final: no more calls.")
        List<Condition> conditions,

        @JsonPropertyDescription(
                "Creation + spec.deadlineSeconds: nodes that have not acknowledged by then make the purge Failed "
                        + "(DeadlineExceeded); they still get it when they come back.")
        String deadline,

        @JsonPropertyDescription(
                "Nodes of the VideoEdge the purge is for: those with a NodeTuning or an edge-server pod of it. A node that "
                        + "joins before the purge ends is added.")
        Integer targeted,

        @JsonPropertyDescription("Targeted nodes whose edge server confirmed the purge.")
        Integer acknowledgedNodes,

        @JsonPropertyDescription(
                "Targeted nodes that have not confirmed yet. After the deadline they are called again when their "
                        + "edge-server pod turns ready and every 60 s.")
        Integer pendingNodes,

        @JsonPropertyDescription("Acknowledged nodes over targeted nodes, e.g. 2/3 (for kubectl get).")
        String acknowledged,

        @JsonPropertyDescription(
                "Objects the acknowledged nodes removed, summed: from memory, from disk, and origin fetches in flight "
                        + "that were not stored.")
        Removed removed,

        @JsonPropertyDescription(
                "Up to 20 nodes that have not acknowledged, by name, each with why (Unreachable, Refused, NoAdminToken, "
                        + "NoAddress, NotTriedYet). pendingNodes has their number.")
        @Size(max = MAX_PENDING_LISTED)
        List<PendingNode> pending,

        @JsonPropertyDescription(
                "Set once the deadline passed with nodes that had not acknowledged: how many (targeted nodes without "
                        + "an acknowledgement applied by the deadline). It does not change afterwards.")
        Integer missedDeadline,

        @JsonPropertyDescription(
                "Set once the deadline passed with nodes that had not acknowledged: how many targeted nodes applied "
                        + "the purge after the deadline (by the time the node reports it applied it), counted in "
                        + "acknowledgedNodes too.")
        Integer acknowledgedLate) {

    public static final int MAX_PENDING_LISTED = 20;

    public record Removed(
            @JsonPropertyDescription("Objects removed from the memory tiers.")
            long memory,

            @JsonPropertyDescription("Objects removed from the disk tiers (their files deleted).")
            long disk,

            @JsonPropertyDescription("Origin fetches in flight that were not stored.")
            long fills) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PendingNode(
            @JsonPropertyDescription("The node.") String node,

            @JsonPropertyDescription("Unreachable, Refused, NoAdminToken, NoAddress or NotTriedYet.")
            String reason,

            @JsonPropertyDescription("What the last attempt found.")
            String message,

            @JsonPropertyDescription("When it was last tried (RFC 3339).")
            String lastAttempt) {}
}
