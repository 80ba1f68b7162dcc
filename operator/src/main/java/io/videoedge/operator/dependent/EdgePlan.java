package io.videoedge.operator.dependent;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.videoedge.api.VideoEdge;
import io.videoedge.operator.config.OperatorSettings;
import io.videoedge.operator.render.EdgeServerConfigRenderer;
import io.videoedge.operator.render.EdgeServerPod;
import io.videoedge.operator.render.Hashes;
import io.videoedge.operator.render.JvmOptions;
import io.videoedge.operator.render.Names;
import io.videoedge.operator.rollout.NodeDecision;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * What the reconciler decided for one pass, handed to the dependents (each dependent's desired()
 * reads it): the rendered config and its checksum, the edge-server pod template, the rollout's
 * decision for each owned node (the tuning its NodeTuning carries), the nodes the server must stay
 * off, and the edge-server pod on each node.
 *
 * @param podTemplate the edge-server pod template, annotated with its revision
 * @param tunings the rollout's decision per node whose NodeTuning is ours to write
 * @param excludedNodes nodes the selector matches but that are not (yet) ours: no server pod there
 * @param podsByNode our edge-server pod on each node, when there is one
 */
public record EdgePlan(
        String config,
        String configChecksum,
        PodTemplateSpec podTemplate,
        SortedMap<String, NodeDecision> tunings,
        SortedSet<String> excludedNodes,
        Map<String, Pod> podsByNode) {
    static final String KEY = EdgePlan.class.getName();

    public static EdgePlan of(Context<VideoEdge> context) {
        return context.managedWorkflowAndDependentResourceContext().getMandatory(KEY, EdgePlan.class);
    }

    public void putInto(Context<VideoEdge> context) {
        context.managedWorkflowAndDependentResourceContext().put(KEY, this);
    }

    /** The config and pod template of a VideoEdge (the rollout needs the pod revision before the nodes are decided). */
    public record Server(String config, String configChecksum, PodTemplateSpec podTemplate) {
        public String podRevision() {
            return podTemplate.getMetadata().getAnnotations().get(Names.POD_REVISION);
        }

        /**
         * @param originCa the Secret server.origin.caSecretName names, as read this pass (empty without one):
         *     its bundle's checksum goes into the pod template, so a new bundle rolls the servers
         */
        public static Server of(VideoEdge ve, OperatorSettings settings, Optional<Secret> originCa) {
            String source = Names.namespacedName(ve);
            String config = EdgeServerConfigRenderer.render(source, ve.getSpec());
            String javaOptions = JvmOptions.forServer(ve.getSpec().server()).flags(settings.edgeServerJavaOptions());
            PodTemplateSpec template = EdgeServerPod.template(
                    ve,
                    settings.edgeServerImage(),
                    javaOptions,
                    EdgeServerConfigRenderer.restartChecksum(source, ve.getSpec()),
                    originCa.map(EdgeServerPod::originCaChecksum).orElse(null));
            return new Server(config, Hashes.sha256(config), template);
        }

        public EdgePlan with(
                SortedMap<String, NodeDecision> tunings, SortedSet<String> excludedNodes, Map<String, Pod> podsByNode) {
            return new EdgePlan(config, configChecksum, podTemplate, tunings, excludedNodes, podsByNode);
        }
    }
}
