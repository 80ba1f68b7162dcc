package io.videoedge.operator.reconciler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.RecentOperationCacheFiller;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.VideoEdge;
import io.videoedge.operator.dependent.EventSources;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Read access to the informers' caches for one reconcile: every VideoEdge, every Node, every
 * NodeTuning the operator manages, and this VideoEdge's edge-server pods by node.
 */
record Cluster(
        List<VideoEdge> videoEdges,
        Map<String, Node> nodesByName,
        Map<String, NodeTuning> tunings,
        SortedMap<String, Pod> podsByNode) {

    @SuppressWarnings("unchecked")
    static Cluster of(Context<VideoEdge> context) {
        var retriever = context.eventSourceRetriever();
        var nodes = (InformerEventSource<Node, VideoEdge>) retriever.getEventSourceFor(Node.class, EventSources.NODES);
        var tunings = (InformerEventSource<NodeTuning, VideoEdge>)
                retriever.getEventSourceFor(NodeTuning.class, EventSources.NODE_TUNINGS);
        return new Cluster(
                context.getPrimaryCache().list().toList(),
                nodes.list(n -> true)
                        .collect(Collectors.toMap(n -> n.getMetadata().getName(), n -> n, (a, b) -> a, TreeMap::new)),
                tunings.list(nt -> true)
                        .collect(Collectors.toMap(
                                nt -> nt.getMetadata().getName(), nt -> nt, (a, b) -> a, TreeMap::new)),
                podsByNode(context.getSecondaryResourcesAsStream(Pod.class)));
    }

    /** The edge-server pods' informer, to put the operator's own pod patches into its cache. */
    @SuppressWarnings("unchecked")
    static RecentOperationCacheFiller<Pod> podCache(Context<VideoEdge> context) {
        return (InformerEventSource<Pod, VideoEdge>)
                context.eventSourceRetriever().getEventSourceFor(Pod.class, EventSources.PODS);
    }

    Collection<Node> nodes() {
        return nodesByName.values();
    }

    /**
     * Our edge-server pod per node: the newest one not being deleted, else the newest. The pods are the
     * PODS informer's secondaries of this VideoEdge (indexed by their owner labels).
     */
    static SortedMap<String, Pod> podsByNode(Stream<Pod> ours) {
        Comparator<Pod> preference = Comparator.comparing(
                        (Pod p) -> p.getMetadata().getDeletionTimestamp() == null)
                .thenComparing(p -> Objects.toString(p.getMetadata().getCreationTimestamp(), ""));
        return ours.filter(p -> p.getSpec() != null && p.getSpec().getNodeName() != null)
                .collect(Collectors.toMap(
                        p -> p.getSpec().getNodeName(),
                        p -> p,
                        (a, b) -> preference.compare(a, b) >= 0 ? a : b,
                        TreeMap::new));
    }
}
