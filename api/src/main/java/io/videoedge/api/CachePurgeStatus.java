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
                "Complete (every targeted node acknowledged) and Failed (the deadline passed first, or the VideoEdge "
                        + "does not exist), each with a reason and message. Both are final.")
        List<Condition> conditions,

        @JsonPropertyDescription(
                "When the purge fails unless every node has acknowledged: creation + spec.deadlineSeconds.")
        String deadline,

        @JsonPropertyDescription(
                "Nodes of the VideoEdge the purge is for: those with a NodeTuning or an edge-server pod of it. A node that "
                        + "joins before the purge ends is added.")
        Integer targeted,

        @JsonPropertyDescription("Targeted nodes whose edge server confirmed the purge.")
        Integer acknowledgedNodes,

        @JsonPropertyDescription("Targeted nodes that have not confirmed (yet, or by the deadline).")
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
        List<PendingNode> pending) {

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
