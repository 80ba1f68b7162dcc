package io.videoedge.operator.placement;

import io.fabric8.kubernetes.api.model.Node;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeApi;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Where the node agent runs. Its DaemonSet selects the label {@value VideoEdgeApi#LABEL_NODE_AGENT},
 * which the operator owns: set on a node before its first NodeTuning is written, removed only once no
 * NodeTuning of that node is left (the agent restored the node and released its finalizer) and no
 * VideoEdge selects it. So unlabelling a node, changing a selector or deleting a VideoEdge never
 * evicts the agent that must restore that node. Pure.
 */
public final class AgentLabels {
    public static final String VALUE = "true";

    /** Labels to set and to remove, by node name. */
    public record Changes(SortedSet<String> add, SortedSet<String> remove) {
        public boolean isEmpty() {
            return add.isEmpty() && remove.isEmpty();
        }
    }

    private AgentLabels() {}

    /**
     * @param nodes every node
     * @param tunings every NodeTuning, by node name
     * @param tuning nodes about to get a NodeTuning (the nodes this VideoEdge owns)
     * @param videoEdges every VideoEdge (one being deleted selects nothing)
     */
    public static Changes changes(
            Collection<Node> nodes,
            Map<String, NodeTuning> tunings,
            Set<String> tuning,
            Collection<VideoEdge> videoEdges) {
        SortedSet<String> add = new TreeSet<>();
        SortedSet<String> remove = new TreeSet<>();
        for (Node node : nodes) {
            String name = node.getMetadata().getName();
            boolean needed = tunings.containsKey(name) || tuning.contains(name);
            boolean labelled = labelled(node);
            if (needed && !labelled && node.getMetadata().getDeletionTimestamp() == null) {
                add.add(name);
            } else if (!needed
                    && labelled
                    && videoEdges.stream()
                            .noneMatch(ve -> ve.getMetadata().getDeletionTimestamp() == null
                                    && NodePlacement.selects(ve, node))) {
                remove.add(name);
            }
        }
        return new Changes(add, remove);
    }

    static boolean labelled(Node node) {
        Map<String, String> labels = node.getMetadata().getLabels();
        return labels != null && VALUE.equals(labels.get(VideoEdgeApi.LABEL_NODE_AGENT));
    }
}
