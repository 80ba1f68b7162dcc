package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * How a change reaches the fleet: node by node, at most maxUnavailable out of service at a time,
 * each node tuned and serving again (and soaked) before the next one's turn; a node that fails
 * pauses the rollout.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.drainSeconds) || !has(self.progressDeadlineSeconds) "
                + "|| self.drainSeconds < self.progressDeadlineSeconds",
        fieldPath = ".drainSeconds",
        message = "rollout.drainSeconds must be below rollout.progressDeadlineSeconds: a node's drain is part of its "
                + "turn, so every node that ran before would fail its turn past the deadline while still draining")
public record RolloutSpec(
        @JsonPropertyDescription(
                "Nodes that may be out of service at once while a change rolls out (re-tuned, or their "
                        + "edge server drained and restarted): a count, or a percentage of the nodes this VideoEdge owns (not those another still holds) rounded up. Nodes already "
                        + "out of service count too. Default: server.maxUnavailable, which defaults to 1.")
        @Pattern(Patterns.MAX_UNAVAILABLE)
        String maxUnavailable,

        @JsonPropertyDescription(
                "Seconds a node may take, from the start of its turn, to be tuned and serving again. Past it "
                        + "the rollout pauses (Progressing=False, reason RolloutPaused) naming the node. A node out of service when "
                        + "a change comes gets its turn at once (unless the rollout is paused), even when the change leaves it as it is (a restart where it has no "
                        + "server pod), so it too pauses the rollout past the deadline. A node that never ran "
                        + "tuned and serving before (a new node) has nothing to protect and does not pause the rollout: past it, it is "
                        + "Stalled (status.nodes.stalled, alert VideoEdgeRolloutStalled). It keeps its turn and its room until it is "
                        + "updated or leaves the selection, so with maxUnavailable 1 no other node gets its turn meanwhile.")
        @Default("600")
        @Min(10)
        @Max(86400)
        Integer progressDeadlineSeconds,

        @JsonPropertyDescription(
                "Seconds a node must stay Ready after its change before it counts as updated and the next "
                        + "node's turn may start.")
        @Default("10")
        @Min(0)
        @Max(3600)
        Integer soakSeconds,

        @JsonPropertyDescription(
                "When a node fails its change (its agent reports Failed, a setting applied before is now "
                        + "Unsupported or Failed, or it is not serving within progressDeadlineSeconds), give it back its last good tuning. "
                        + "The rollout stays paused until the revision changes (a change of the nodes' tuning or of the server pods: "
                        + "a field that restarts them, the origin's CA bundle, a new server image; live fields and rollout settings "
                        + "do not), or, with autoRevert false or when the last good tuning is the revision's own (a restart-only "
                        + "change: nothing to give back), until the failed node is tuned "
                        + "and serving again for soakSeconds (fixed on the node; an outdated pod left by a refused eviction "
                        + "is fixed by deleting it). A node whose turn failed before it was re-tuned (its drain never took its "
                        + "server out of service) keeps the tuning it had, and only a new revision goes on. A server restart is "
                        + "not undone: revert the spec.")
        @Default("true")
        Boolean autoRevert,

        @JsonPropertyDescription(
                "Seconds an edge server is out of service (its readiness gate False and the pod not Ready, "
                        + "counted from when its kubelet marked it so) before its node is "
                        + "re-tuned or its pod is evicted for a restart, so load balancers stop sending it new clients first; the node "
                        + "keeps its tuning meanwhile. A server out of service for that long already is not held. A restarted server then drains the responses in flight (up to its drainTimeout) "
                        + "before it exits. A node without a server pod is re-tuned at once, and so is a failed node given its "
                        + "last good tuning back (autoRevert). Below progressDeadlineSeconds: the drain is part of a node's turn.")
        @Default("5")
        @Min(0)
        @Max(600)
        Integer drainSeconds) {}
