package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public record VideoEdgeStatus(
        @JsonPropertyDescription("The metadata.generation this status describes.")
        Long observedGeneration,

        @JsonPropertyDescription(
                "Ready, TuningApplied, ServerAvailable, Progressing and Degraded, each with a reason and message.")
        List<Condition> conditions,

        @JsonPropertyDescription(
                "Node counts: selected by nodeSelector, tuned as the current spec asks, serving, updated.")
        NodeCounts nodes,

        @JsonPropertyDescription("Tuned nodes over selected nodes, e.g. 2/3 (for kubectl get).")
        String tuned,

        @JsonPropertyDescription("Serving nodes over selected nodes, e.g. 2/3 (for kubectl get).")
        String serving,

        @JsonPropertyDescription(
                "Nodes that run the current spec (tuning and server) over selected nodes, e.g. 2/3 (for kubectl get).")
        String updated,

        @JsonPropertyDescription(
                "What the edge servers encrypt HTTPS with, as the nodes report it (for kubectl get): one of "
                        + "none, openssl, ktls, ktls-offload when all nodes agree, else each with its node count, e.g. 'ktls 2, openssl 1'. "
                        + "nodesNeedingAttention[].tls says it for a node listed there.")
        String tls,

        @JsonPropertyDescription("The rollout of the current spec to the nodes.")
        Rollout rollout,

        @JsonPropertyDescription(
                "The nodes that need attention, the most pressing first (a failed or reverted node, a conflict, a "
                        + "server not serving, a node not tuned as its NodeTuning asks (a stalled rollout turn excuses neither), "
                        + "an agent reporting problems or no kernel TLS, a node in its rollout turn, a node planned only), "
                        + "then by name; at most "
                        + MAX_LISTED_NODES
                        + " of them: nodes.needingAttention counts them all. Healthy nodes are not listed, so the status "
                        + "does not grow with the fleet: each node's NodeTuning (kubectl get nodetunings) has its agent's "
                        + "report, its edge-server pod its readiness.")
        List<NodeSummary> nodesNeedingAttention) {

    /** At most this many nodes in nodesNeedingAttention, whatever the fleet's size. */
    public static final int MAX_LISTED_NODES = 10;

    public record NodeCounts(
            @JsonPropertyDescription(
                    "Nodes matching nodeSelector, but those an older VideoEdge keeps (a node this one holds counts here, though an older one selects it too).")
            int selected,

            @JsonPropertyDescription("Nodes whose NodeTuning carries the current spec's tuning and is applied.")
            int tuned,

            @JsonPropertyDescription("Nodes with a ready edge server.")
            int serving,

            @JsonPropertyDescription(
                    "Nodes that reached the current spec's tuning and edge server (tuned, serving and past the soak time "
                            + "then); a node that fails later stays counted here (its trouble shows in tuned and serving).")
            int updated,

            @JsonPropertyDescription(
                    "Nodes that need attention (nodesNeedingAttention lists the first ones), a node an older "
                            + "VideoEdge keeps included.")
            int needingAttention,

            @JsonPropertyDescription(
                    "Nodes that carry the current spec's tuning and serve without it applied, as tuning.mode Plan "
                            + "asks (their agents report what they would change).")
            int planned,

            @JsonPropertyDescription(
                    "Nodes in their rollout turn for longer than rollout.progressDeadlineSeconds that never ran tuned "
                            + "and serving before (rollout state Stalled): with no last good tuning to protect they do not "
                            + "pause the rollout, and they are no longer counted as nodes the rollout has yet to update "
                            + "(nodesNeedingAttention lists one that does not serve, or is not tuned, as such; alert "
                            + "VideoEdgeRolloutStalled).")
            int stalled) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Rollout(
            @JsonPropertyDescription(
                    "Revision of the current spec's node tuning and server pod (tuning-pod), as on the "
                            + "NodeTunings' videoedge.io/rollout annotation.")
            String revision,

            @JsonPropertyDescription(
                    "Complete, Progressing or Paused (a rollout that cannot go on for want of room is Progressing, with the Progressing condition False, reason RolloutBlocked).")
            String state,

            @JsonPropertyDescription(
                    "Nodes in their turn now (being re-tuned, drained, restarted or soaking), stalled ones (nodes.stalled) included.")
            int updating,

            @JsonPropertyDescription(
                    "Nodes waiting for their turn: they keep their tuning and server and keep serving.")
            int waiting,

            @JsonPropertyDescription("Nodes that failed the current revision (the rollout is paused).")
            int failed,

            @JsonPropertyDescription(
                    "Out of service at most at once (rollout.maxUnavailable resolved against the nodes this VideoEdge "
                            + "owns, not those another VideoEdge still holds).")
            int maxUnavailable,

            @JsonPropertyDescription("What the rollout does or why it stopped, naming the node.")
            String message) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record NodeSummary(
            @JsonPropertyDescription("Node name.") String node,

            @JsonPropertyDescription("Tuning state: Applied, Planned, Pending, Degraded, Failed, Conflict.")
            String tuning,

            @JsonPropertyDescription("Edge server state: Ready, NotReady, Pending, Missing.")
            String server,

            @JsonPropertyDescription("Rollout state: Updated, Waiting, Updating, Draining, Stalled, Failed, Reverted.")
            String rollout,

            @JsonPropertyDescription("Kernel release of the node.")
            String kernel,

            @JsonPropertyDescription("Kernel TLS on this node: available, loadable, unavailable, not-requested.")
            String ktls,

            @JsonPropertyDescription(
                    "What this node's edge server encrypts HTTPS with: none (no HTTPS), openssl (userspace), "
                            + "ktls (the kernel, in software) or ktls-offload (the NIC); tls.mode asks, the node decides: without the kernel's "
                            + "tls module it is openssl, without a NIC that took TLS TX offload it is ktls. With ktls the kernel still hands a "
                            + "session's TX to a NIC whose offload is already on: the server's videoedge_ktls_sessions_current{direction=\"tx\","
                            + "kind=\"device\"} counts those (the node's, every kTLS socket of the host's network namespace). With tls.mode ktls or ktls-offload, absent until the node's agent reports.")
            String tls,

            @JsonPropertyDescription("NIC of the served interface: name and driver.")
            String nic,

            @JsonPropertyDescription("What needs attention on this node (at most 256 characters).")
            String message) {}
}
