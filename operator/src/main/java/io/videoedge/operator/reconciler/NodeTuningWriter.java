package io.videoedge.operator.reconciler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.SSABasedGenericKubernetesResourceMatcher;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.operator.dependent.EdgePlan;
import io.videoedge.operator.dependent.EventSources;
import io.videoedge.operator.dependent.NodeTunings;
import io.videoedge.operator.render.Names;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a VideoEdge's NodeTunings: the server-side applies of {@link NodeTunings#changes} side by side
 * ({@link ParallelWrites}), and the deletes. In JOSDK's bulk dependent they went one after another: at
 * 5,000 nodes the creation's 5,000 applies took 133 s of one pass, and while a fleet converges every
 * pass applies the NodeTunings whose pod or rollout state moved. Each write is what JOSDK's dependent
 * did (same field manager, its "previous" annotation, the result put into the informer's cache so the
 * operator's own write wakes no reconcile). A NodeTuning is compared with its desired state only when
 * either changed since it last matched ({@link NodeTunings.Matched}).
 *
 * <p>The node's agent holds a finalizer on its NodeTuning until it has restored the node's originals;
 * only when the node itself is gone (no agent will ever come) does the operator release that
 * finalizer.
 */
public final class NodeTuningWriter {
    private static final Logger log = LoggerFactory.getLogger(NodeTuningWriter.class);

    /** Server-side apply comparisons run, by every instance (ScaleIT counts them per agent report). */
    private static final LongAdder COMPARED = new LongAdder();

    /** Per node, the last match found. */
    private final Map<String, NodeTunings.Matched> matched = new ConcurrentHashMap<>();

    /** How many server-side apply comparisons of a NodeTuning this process has run. */
    public static long comparisons() {
        return COMPARED.sum();
    }

    /**
     * Brings this VideoEdge's NodeTunings to the plan's.
     *
     * @param tunings every managed NodeTuning in the cache this pass, by node ({@link Cluster#tunings()})
     */
    void sync(VideoEdge ve, EdgePlan plan, Map<String, NodeTuning> tunings, Context<VideoEdge> context) {
        InformerEventSource<NodeTuning, VideoEdge> cache = tunings(context);
        NodeTunings.Changes changes = NodeTunings.changes(
                NodeTunings.desired(ve, plan), owned(ve, tunings), (a, d) -> matches(a, d, context));
        if (changes.none()) {
            return;
        }
        long created =
                changes.applies().stream().filter(NodeTunings.Apply::creates).count();
        log.info(
                "NodeTunings of {}: creating {}, updating {}, deleting {}",
                Names.namespacedName(ve),
                created,
                changes.applies().size() - created,
                changes.deletes().size());
        String fieldManager = context.getControllerConfiguration().fieldManager();
        ParallelWrites.each(changes.applies(), a -> apply(a, fieldManager, cache, context));
        ParallelWrites.each(changes.deletes(), nt -> delete(nt, context));
    }

    /** The VideoEdge is deleted: these, its NodeTunings, go (their agents restore the nodes, then release them). */
    void deleteAll(List<NodeTuning> owned, Context<VideoEdge> context) {
        ParallelWrites.each(owned, nt -> delete(nt, context));
    }

    private boolean matches(NodeTuning actual, NodeTuning desired, Context<VideoEdge> context) {
        String node = actual.getMetadata().getName();
        NodeTunings.Matched last = matched.get(node);
        if (last != null && last.still(actual, desired)) {
            return true;
        }
        COMPARED.increment();
        NodeTunings.Matched now = NodeTunings.Matched.of(actual, desired);
        // as JOSDK's dependent compares: the annotation its writes add is taken as it is
        NodeTuning compared = withPreviousOf(actual, desired);
        boolean same = SSABasedGenericKubernetesResourceMatcher.<NodeTuning>getInstance()
                .matches(actual, compared, context);
        if (same) {
            matched.put(node, now);
        } else {
            matched.remove(node);
        }
        return same;
    }

    private static NodeTuning withPreviousOf(NodeTuning actual, NodeTuning desired) {
        String previous = Optional.ofNullable(actual.getMetadata().getAnnotations())
                .map(a -> a.get(InformerEventSource.PREVIOUS_ANNOTATION_KEY))
                .orElse(null);
        return previous == null
                ? desired
                : withAnnotation(desired, InformerEventSource.PREVIOUS_ANNOTATION_KEY, previous);
    }

    /** A copy of {@code nt} with one more annotation (the spec shared, not copied). */
    private static NodeTuning withAnnotation(NodeTuning nt, String key, String value) {
        NodeTuning copy = copy(nt);
        copy.getMetadata().getAnnotations().put(key, value);
        return copy;
    }

    private void apply(
            NodeTunings.Apply a,
            String fieldManager,
            InformerEventSource<NodeTuning, VideoEdge> cache,
            Context<VideoEdge> context) {
        // as JOSDK's dependent writes: with the annotation that lets its informer tell this write's event
        NodeTuning sent = cache.addPreviousAnnotation(
                a.creates() ? null : a.actual().getMetadata().getResourceVersion(), copy(a.desired()));
        NodeTuning applied = context.getClient()
                .resource(sent)
                .fieldManager(fieldManager)
                .forceConflicts()
                .serverSideApply();
        // what was just applied matches by construction: the next pass need not compare it
        matched.put(a.node(), NodeTunings.Matched.of(applied, a.desired()));
        ResourceID id = ResourceID.fromResource(applied);
        if (a.creates()) {
            cache.handleRecentResourceCreate(id, applied);
        } else {
            cache.handleRecentResourceUpdate(id, applied, a.actual());
        }
    }

    /** A copy of {@code nt} whose metadata and annotations may be changed (the spec shared, not copied). */
    private static NodeTuning copy(NodeTuning nt) {
        NodeTuning copy = new NodeTuning();
        copy.setMetadata(new ObjectMetaBuilder(nt.getMetadata()).build());
        copy.getMetadata().setAnnotations(new HashMap<>(nt.getMetadata().getAnnotations()));
        copy.setSpec(nt.getSpec());
        return copy;
    }

    private void delete(NodeTuning nt, Context<VideoEdge> context) {
        String node = nt.getMetadata().getName();
        matched.remove(node);
        var client = context.getClient();
        if (nt.getMetadata().getDeletionTimestamp() == null) {
            log.info("Deleting NodeTuning {}: the node left the VideoEdge; its agent restores the node", node);
            client.resource(nt).delete();
        }
        if (nt.hasFinalizer(VideoEdgeApi.AGENT_FINALIZER) && nodeGone(node, context)) {
            // no node, no agent: nobody else will ever release it
            log.info("Releasing the agent finalizer of NodeTuning {}: node {} no longer exists", node, node);
            try {
                client.resources(NodeTuning.class).withName(node).edit(n -> {
                    n.removeFinalizer(VideoEdgeApi.AGENT_FINALIZER);
                    return n;
                });
            } catch (KubernetesClientException e) {
                if (e.getCode() != 404) {
                    throw e;
                }
            }
        }
    }

    /** Gone from the cache and, to be sure before releasing a finalizer, from the API server too. */
    @SuppressWarnings("unchecked")
    private static boolean nodeGone(String node, Context<VideoEdge> context) {
        var nodes = (InformerEventSource<Node, VideoEdge>)
                context.eventSourceRetriever().getEventSourceFor(Node.class, EventSources.NODES);
        return nodes.get(new ResourceID(node)).isEmpty()
                && context.getClient().nodes().withName(node).get() == null;
    }

    private static Map<String, NodeTuning> owned(VideoEdge ve, Map<String, NodeTuning> tunings) {
        return tunings.entrySet().stream()
                .filter(e -> Names.ownedBy(e.getValue(), ve))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    @SuppressWarnings("unchecked")
    private static InformerEventSource<NodeTuning, VideoEdge> tunings(Context<VideoEdge> context) {
        return (InformerEventSource<NodeTuning, VideoEdge>)
                context.eventSourceRetriever().getEventSourceFor(NodeTuning.class, EventSources.NODE_TUNINGS);
    }
}
