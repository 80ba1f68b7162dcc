package io.videoedge.operator.rollout;

import io.fabric8.kubernetes.api.model.Pod;
import io.videoedge.api.NodeTuning;

/**
 * One node the VideoEdge owns, as the rollout sees it.
 *
 * @param nt its NodeTuning, null before the first one is written
 * @param pod its edge-server pod (the newest one not being deleted, else the newest), null while there is none
 * @param untoleratedTaint a taint of the node that keeps an edge-server pod off it (key=value:Effect), null for none
 */
public record NodeView(String node, NodeTuning nt, Pod pod, String untoleratedTaint) {
    public NodeView(String node, NodeTuning nt, Pod pod) {
        this(node, nt, pod, null);
    }
}
