package io.videoedge.operator.dependent;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.CRUDBulkDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningSpec;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.operator.render.Names;
import io.videoedge.operator.render.NodeTuningRenderer;
import io.videoedge.operator.rollout.NodeDecision;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One NodeTuning per node this VideoEdge owns, named after the node, carrying the tuning the rollout
 * gives that node ({@link NodeDecision}) and the rollout's annotations: created when a node joins,
 * changed only when the node's tuning or its edge-server pod changes, deleted when the node leaves
 * the selector or the VideoEdge is deleted. The node's agent holds a finalizer until it has restored
 * the node's originals; only when the node itself is gone (no agent will ever come) does the operator
 * release that finalizer. Uses the reconciler's NodeTuning informer (mapped back by owner labels).
 */
public class NodeTunings extends KubernetesDependentResource<NodeTuning, VideoEdge>
        implements CRUDBulkDependentResource<NodeTuning, VideoEdge, String> {
    private static final Logger log = LoggerFactory.getLogger(NodeTunings.class);

    /** Server-side apply comparisons run, by every instance (ScaleIT counts them per agent report). */
    private static final LongAdder COMPARED = new LongAdder();

    /** Per node, the NodeTuning version last found to match and what it was matched against. */
    private final Map<String, Matched> matched = new ConcurrentHashMap<>();

    public NodeTunings() {
        super(NodeTuning.class);
    }

    @Override
    public Map<String, NodeTuning> desiredResources(VideoEdge ve, Context<VideoEdge> context) {
        return desired(ve, EdgePlan.of(context));
    }

    static Map<String, NodeTuning> desired(VideoEdge ve, EdgePlan plan) {
        Map<String, NodeTuning> desired = new TreeMap<>();
        plan.tunings()
                .forEach((node, d) -> desired.put(
                        node,
                        NodeTuningRenderer.render(
                                ve,
                                node,
                                d.tuning(),
                                Map.of(
                                        Names.TUNING_REVISION,
                                        d.tuningRevision(),
                                        Names.ROLLOUT_STATE,
                                        d.state().toJson()),
                                plan.podsByNode().get(node))));
        return desired;
    }

    /**
     * The server-side apply comparison, run only when its answer can have changed: for a node whose
     * NodeTuning has the resourceVersion it had when it last matched, and whose desired NodeTuning is
     * what it was then, the comparison (a pure function of the two) would match again. A pass after an
     * agent report so compares one NodeTuning, not all of them; at 5,000 nodes each pass compared 5,000.
     */
    @Override
    public Result<NodeTuning> match(NodeTuning actual, NodeTuning desired, VideoEdge ve, Context<VideoEdge> context) {
        String node = actual.getMetadata().getName();
        Matched last = matched.get(node);
        if (last != null && last.still(actual, desired)) {
            return Result.computed(true, desired);
        }
        COMPARED.increment();
        // taken before the comparison: JOSDK adds the actual's "previous" annotation to the desired one
        Matched now = Matched.of(actual, desired);
        Result<NodeTuning> result = super.match(actual, desired, ve, context);
        if (result.matched()) {
            matched.put(node, now);
        } else {
            matched.remove(node);
        }
        return result;
    }

    /** How many server-side apply comparisons of a NodeTuning this process has run. */
    public static long comparisons() {
        return COMPARED.sum();
    }

    /** A match remembered: the actual's version and the desired's content. */
    record Matched(
            String resourceVersion, NodeTuningSpec spec, Map<String, String> labels, Map<String, String> annotations) {
        static Matched of(NodeTuning actual, NodeTuning desired) {
            return new Matched(
                    actual.getMetadata().getResourceVersion(),
                    desired.getSpec(),
                    copy(desired.getMetadata().getLabels()),
                    copy(desired.getMetadata().getAnnotations()));
        }

        private static Map<String, String> copy(Map<String, String> m) {
            return m == null ? null : Map.copyOf(m);
        }

        /** Pure. */
        boolean still(NodeTuning actual, NodeTuning desired) {
            return resourceVersion != null
                    && resourceVersion.equals(actual.getMetadata().getResourceVersion())
                    && Objects.equals(spec, desired.getSpec())
                    && Objects.equals(labels, desired.getMetadata().getLabels())
                    && Objects.equals(annotations, desired.getMetadata().getAnnotations());
        }
    }

    @Override
    public Map<String, NodeTuning> getSecondaryResources(VideoEdge ve, Context<VideoEdge> context) {
        return eventSource()
                .orElseThrow()
                .list(nt -> Names.ownedBy(nt, ve))
                .collect(Collectors.toMap(nt -> nt.getMetadata().getName(), Function.identity()));
    }

    @Override
    public void deleteTargetResource(VideoEdge ve, NodeTuning nt, String node, Context<VideoEdge> context) {
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
    private static boolean nodeGone(String node, Context<VideoEdge> context) {
        var nodes = (InformerEventSource<Node, VideoEdge>)
                context.eventSourceRetriever().getEventSourceFor(Node.class, EventSources.NODES);
        return nodes.get(new ResourceID(node)).isEmpty()
                && context.getClient().nodes().withName(node).get() == null;
    }

    @Override
    protected void addReferenceHandlingMetadata(NodeTuning desired, VideoEdge primary) {
        // the owner is in the labels (a cluster-scoped object cannot have a namespaced owner)
    }
}
