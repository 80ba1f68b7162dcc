package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public record VideoEdgeStatus(
    @JsonPropertyDescription("The metadata.generation this status describes.")
    Long observedGeneration,

    @JsonPropertyDescription("Ready, TuningApplied, ServerAvailable and Degraded, each with a reason and message.")
    List<Condition> conditions,

    @JsonPropertyDescription("Node counts: selected by nodeSelector, tuned for the current generation, serving.")
    NodeCounts nodes,

    @JsonPropertyDescription("Tuned nodes over selected nodes, e.g. 2/3 (for kubectl get).")
    String tuned,

    @JsonPropertyDescription("Serving nodes over selected nodes, e.g. 2/3 (for kubectl get).")
    String serving,

    @JsonPropertyDescription("One summary per selected node.")
    List<NodeSummary> nodeStatuses) {

  public record NodeCounts(
      @JsonPropertyDescription("Nodes matching nodeSelector (and not owned by an older VideoEdge).") int selected,
      @JsonPropertyDescription("Nodes whose NodeTuning is applied for the current generation.") int tuned,
      @JsonPropertyDescription("Nodes with a ready edge server.") int serving) {
  }

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record NodeSummary(
      @JsonPropertyDescription("Node name.") String node,
      @JsonPropertyDescription("Tuning state: Applied, Planned, Pending, Degraded, Failed, Conflict.") String tuning,
      @JsonPropertyDescription("Edge server state: Ready, NotReady, Pending, Missing.") String server,
      @JsonPropertyDescription("Kernel release of the node.") String kernel,
      @JsonPropertyDescription("Kernel TLS on this node: available, loadable, unavailable, not-requested.") String ktls,
      @JsonPropertyDescription("NIC of the served interface: name and driver.") String nic,
      @JsonPropertyDescription("What needs attention on this node, if anything.") String message) {
  }
}
