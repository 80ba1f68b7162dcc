package io.videoedge.operator.rollout;

import io.fabric8.kubernetes.api.model.Pod;
import io.videoedge.api.NodeTuning;

/**
 * One node the VideoEdge owns, as the rollout sees it.
 *
 * @param nt its NodeTuning, null before the first one is written
 * @param pod its edge-server pod (the newest one not being deleted, else the newest), null while there is none
 */
public record NodeView(String node, NodeTuning nt, Pod pod) {}
