package io.videoedge.operator.render;

import io.videoedge.api.NicSpec;
import io.videoedge.api.NodeTuningSpec;
import io.videoedge.api.TuningSpec;
import io.videoedge.api.VideoEdgeSpec;

/**
 * Everything a node's tuning depends on: the NIC and kernel tuning (with the tls module added when
 * the server uses kernel TLS) and the edge server's dedicated CPU count (IRQ policies). A
 * NodeTuning changes only when these change (or its pod is replaced): a server-only change of the
 * VideoEdge never touches node tuning. Pure.
 */
public record TuningInputs(NicSpec nic, TuningSpec tuning, Integer cpus) {
  public static TuningInputs of(VideoEdgeSpec spec) {
    return new TuningInputs(spec.nic(), NodeTuningRenderer.tuning(spec), spec.server().cpus());
  }

  /** What a NodeTuning carries now (its spec as written, so it compares with what we would write). */
  public static TuningInputs of(NodeTuningSpec spec) {
    return new TuningInputs(spec.nic(), spec.tuning(), spec.server() == null ? null : spec.server().cpus());
  }

  /** A short stable hash of the inputs: equal inputs, equal revision, in any operator instance. */
  public String revision() {
    return Hashes.revision(this, 10);
  }
}
