package io.videoedge.operator.dependent;

import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningSpec;
import io.videoedge.api.VideoEdge;
import io.videoedge.operator.render.Names;
import io.videoedge.operator.render.NodeTuningRenderer;
import io.videoedge.operator.rollout.NodeDecision;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.BiPredicate;

/**
 * One NodeTuning per node a VideoEdge owns, named after the node, carrying the tuning the rollout
 * gives that node ({@link NodeDecision}), the rollout's annotations and the node's edge-server pod:
 * created when a node joins, changed only when the node's tuning, its rollout state or its pod
 * changes, deleted when the node leaves the selector or the VideoEdge is deleted. Pure: what the
 * NodeTunings should be ({@link #desired}) and what to write to get there ({@link #changes}); the
 * writes are the reconciler's ({@code NodeTuningWriter}).
 */
public final class NodeTunings {
    private NodeTunings() {}

    /** The NodeTunings of this plan's nodes, by node. */
    public static Map<String, NodeTuning> desired(VideoEdge ve, EdgePlan plan) {
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

    /** One server-side apply: a NodeTuning created ({@code actual} null) or brought back to its desired state. */
    public record Apply(String node, NodeTuning desired, NodeTuning actual) {
        public boolean creates() {
            return actual == null;
        }
    }

    /**
     * What to write this pass.
     *
     * @param applies the NodeTunings to create or to update, in node order
     * @param deletes this VideoEdge's NodeTunings of nodes it no longer owns, in node order
     */
    public record Changes(List<Apply> applies, List<NodeTuning> deletes) {
        public boolean none() {
            return applies.isEmpty() && deletes.isEmpty();
        }
    }

    /**
     * Pure: the applies and deletes that bring {@code actual} (this VideoEdge's NodeTunings, by node) to
     * {@code desired}; {@code matches(actual, desired)} says whether an existing one already is what it
     * should be.
     */
    public static Changes changes(
            Map<String, NodeTuning> desired,
            Map<String, NodeTuning> actual,
            BiPredicate<NodeTuning, NodeTuning> matches) {
        List<Apply> applies = new ArrayList<>();
        new TreeMap<>(desired).forEach((node, d) -> {
            NodeTuning a = actual.get(node);
            if (a == null || !matches.test(a, d)) {
                applies.add(new Apply(node, d, a));
            }
        });
        List<NodeTuning> deletes = new TreeMap<>(actual)
                .entrySet().stream()
                        .filter(e -> !desired.containsKey(e.getKey()))
                        .map(Map.Entry::getValue)
                        .toList();
        return new Changes(List.copyOf(applies), deletes);
    }

    /**
     * A match remembered: what the NodeTuning was (its spec's generation, labels and annotations: what
     * the server-side apply comparison reads of it) and what it was compared with. The agent's status
     * reports change neither (a status write moves the resourceVersion, not the generation), so a node
     * that only reported is not compared again.
     */
    public record Matched(
            Long generation,
            Map<String, String> actualLabels,
            Map<String, String> actualAnnotations,
            NodeTuningSpec spec,
            Map<String, String> labels,
            Map<String, String> annotations) {
        /** Taken before the comparison, which adds the actual's "previous" annotation to the desired object. */
        public static Matched of(NodeTuning actual, NodeTuning desired) {
            return new Matched(
                    actual.getMetadata().getGeneration(),
                    copy(actual.getMetadata().getLabels()),
                    copy(actual.getMetadata().getAnnotations()),
                    desired.getSpec(),
                    copy(desired.getMetadata().getLabels()),
                    copy(desired.getMetadata().getAnnotations()));
        }

        private static Map<String, String> copy(Map<String, String> m) {
            return m == null ? null : Map.copyOf(m);
        }

        /** Pure: the comparison of these two would give the remembered answer again. */
        public boolean still(NodeTuning actual, NodeTuning desired) {
            return generation != null
                    && generation.equals(actual.getMetadata().getGeneration())
                    && Objects.equals(actualLabels, actual.getMetadata().getLabels())
                    && Objects.equals(actualAnnotations, actual.getMetadata().getAnnotations())
                    && Objects.equals(spec, desired.getSpec())
                    && Objects.equals(labels, desired.getMetadata().getLabels())
                    && Objects.equals(annotations, desired.getMetadata().getAnnotations());
        }
    }
}
