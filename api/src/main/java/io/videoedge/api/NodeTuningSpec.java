package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;

/**
 * What one node's agent applies; rendered by the operator from the VideoEdge selecting the node. It
 * changes only when this node's tuning changes (in the node's turn of a rollout) or its edge-server
 * pod is replaced, never for a server-only change of the VideoEdge.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeTuningSpec(
    @JsonPropertyDescription("The VideoEdge this tuning was rendered from.")
    @Required
    Source source,

    @JsonPropertyDescription("NIC tuning, as in the VideoEdge.")
    @Default("{}")
    NicSpec nic,

    @JsonPropertyDescription("Kernel tuning, as in the VideoEdge (kernelModules include tls when kernel TLS is asked).")
    @Default("{}")
    TuningSpec tuning,

    @JsonPropertyDescription("The edge server on this node: its dedicated CPU count and, once scheduled, its pod "
        + "(the agent reads the pod's cpuset for IRQ policies and sets its cpuset.sched_relax_domain_level).")
    @Default("{}")
    ServerPlacement server) {

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Source(
      @JsonPropertyDescription("Namespace of the VideoEdge.") String namespace,
      @JsonPropertyDescription("Name of the VideoEdge.") String name,
      @JsonPropertyDescription("UID of the VideoEdge.") String uid) {
  }

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record ServerPlacement(
      @JsonPropertyDescription("Dedicated CPUs of the edge server.") @Min(0) @Max(1024) Integer cpus,
      @JsonPropertyDescription("Namespace of the edge server pod on this node.") String podNamespace,
      @JsonPropertyDescription("Name of the edge server pod on this node.") String podName,
      @JsonPropertyDescription("UID of the edge server pod on this node (names its cgroup).") String podUid) {
  }
}
