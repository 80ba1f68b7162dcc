package io.videoedge.operator.placement;

import io.videoedge.api.NodeTuning;
import io.videoedge.api.VideoEdge;
import io.videoedge.operator.render.Names;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * NodeTunings left behind by a VideoEdge that no longer exists, on nodes this VideoEdge would take:
 * deleting them lets their agents restore those nodes, after which the nodes are free. Pure.
 */
public final class Orphans {
    private Orphans() {}

    /**
     * @param claims this VideoEdge's claims ({@link NodePlacement#place})
     * @param videoEdges every VideoEdge the operator sees (its cache: only the namespaces it watches)
     * @param tunings every NodeTuning, by node name
     * @param exists asked for a holder not among {@code videoEdges} (namespace/name): whether it exists all the same,
     *     in a namespace this operator does not watch (another operator's); only a holder that does not is gone
     * @return the NodeTunings to delete (not already being deleted)
     */
    public static List<NodeTuning> toDelete(
            SortedMap<String, NodePlacement.Claim> claims,
            Collection<VideoEdge> videoEdges,
            Map<String, NodeTuning> tunings,
            Predicate<String> exists) {
        Set<String> seen = videoEdges.stream().map(Names::namespacedName).collect(Collectors.toSet());
        return claims.values().stream()
                .filter(c -> c.state() == NodePlacement.State.AWAITING_RELEASE && !seen.contains(c.holder()))
                .filter(c -> isLive(tunings.get(c.node())))
                .filter(c -> !exists.test(c.holder()))
                .map(c -> tunings.get(c.node()))
                .toList();
    }

    private static boolean isLive(NodeTuning tuning) {
        return tuning != null && tuning.getMetadata().getDeletionTimestamp() == null;
    }
}
