package io.videoedge.operator.render;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningSpec;
import io.videoedge.api.TuningSpec;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.api.VideoEdgeSpec;
import io.videoedge.operator.reconciler.Names;
import java.util.ArrayList;
import java.util.List;

/**
 * VideoEdge + node (+ the edge-server pod scheduled there, once it is) to that node's NodeTuning.
 * Pure. No ownerReference (a cluster-scoped object cannot have a namespaced owner): the owner is in
 * the labels, and the operator maps NodeTuning events back by them.
 */
public final class NodeTuningRenderer {
  /** The kernel module kernel TLS needs. */
  public static final String TLS_MODULE = "tls";

  private NodeTuningRenderer() {
  }

  /** @param pod the edge-server pod bound to this node, or null while there is none */
  public static NodeTuning render(VideoEdge ve, Node node, Pod pod) {
    NodeTuning nt = new NodeTuning();
    ObjectMeta meta = new ObjectMeta();
    meta.setName(node.getMetadata().getName());
    var labels = Names.ownerLabels(ve, Names.COMPONENT_NODE_TUNING);
    labels.put(VideoEdgeApi.LABEL_NODE, node.getMetadata().getName());
    meta.setLabels(labels);
    nt.setMetadata(meta);
    nt.setSpec(spec(ve, pod));
    return nt;
  }

  public static NodeTuningSpec spec(VideoEdge ve, Pod pod) {
    VideoEdgeSpec spec = ve.getSpec();
    var source = new NodeTuningSpec.Source(ve.getMetadata().getNamespace(), ve.getMetadata().getName(),
        ve.getMetadata().getUid(), ve.getMetadata().getGeneration());
    var server = pod == null
        ? new NodeTuningSpec.ServerPlacement(spec.server().cpus(), null, null, null)
        : new NodeTuningSpec.ServerPlacement(spec.server().cpus(), pod.getMetadata().getNamespace(),
            pod.getMetadata().getName(), pod.getMetadata().getUid());
    return new NodeTuningSpec(source, spec.nic(), tuning(spec), server);
  }

  /** The VideoEdge's tuning, with the tls module added when the HTTPS acceptor uses kernel TLS. */
  static TuningSpec tuning(VideoEdgeSpec spec) {
    TuningSpec t = spec.tuning();
    boolean kernelTls = EdgeServerConfigRenderer.usesKernelTls(spec);
    List<String> modules = new ArrayList<>(t.kernelModules() == null ? List.of() : t.kernelModules());
    if (kernelTls && !modules.contains(TLS_MODULE)) {
      modules.add(TLS_MODULE);
    }
    return new TuningSpec(t.mode(), t.congestionControl(), t.sysctls(), t.cpusetRelaxDomainLevel(),
        t.numaInterleave(), modules);
  }
}
