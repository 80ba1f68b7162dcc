package io.videoedge.operator.dependent;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.videoedge.api.VideoEdge;
import io.videoedge.operator.render.Names;
import java.util.List;

/**
 * The edge server: one pod per owned node, from the pod template of {@link
 * io.videoedge.operator.render.EdgeServerPod}. The update strategy is OnDelete: the DaemonSet
 * controller never replaces a running pod on its own; the rollout drains and evicts each outdated pod
 * in its node's turn (within rollout.maxUnavailable, together with that node's re-tuning), and the
 * controller then creates the new one. Nodes an older VideoEdge keeps are excluded by node affinity.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Names.EDGE_SERVER_SELECTOR))
public class EdgeServerDaemonSet extends CRUDKubernetesDependentResource<DaemonSet, VideoEdge> {
    public EdgeServerDaemonSet() {
        super(DaemonSet.class);
    }

    @Override
    protected DaemonSet desired(VideoEdge ve, Context<VideoEdge> context) {
        return desired(ve, EdgePlan.of(context));
    }

    static DaemonSet desired(VideoEdge ve, EdgePlan plan) {
        PodTemplateSpec template = new PodTemplateSpecBuilder(plan.podTemplate()).build();
        if (!plan.excludedNodes().isEmpty()) {
            // nodes an older VideoEdge keeps, or whose tuning another one has not released yet: not part of
            // the pod revision (the DaemonSet controller removes the pod there; the others stay)
            template = new PodTemplateSpecBuilder(template)
                    .editSpec()
                    .withNewAffinity()
                    .withNewNodeAffinity()
                    .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                    .addNewNodeSelectorTerm()
                    .withMatchFields(new NodeSelectorRequirementBuilder()
                            .withKey("metadata.name")
                            .withOperator("NotIn")
                            .withValues(List.copyOf(plan.excludedNodes()))
                            .build())
                    .endNodeSelectorTerm()
                    .endRequiredDuringSchedulingIgnoredDuringExecution()
                    .endNodeAffinity()
                    .endAffinity()
                    .endSpec()
                    .build();
        }
        return of(ve, template);
    }

    /** The DaemonSet of {@code ve}'s servers from a pod template (what the API server is asked to admit). */
    public static DaemonSet of(VideoEdge ve, PodTemplateSpec template) {
        return new DaemonSetBuilder()
                .withNewMetadata()
                .withName(Names.edgeServer(ve))
                .withNamespace(ve.getMetadata().getNamespace())
                .withLabels(Names.ownerLabels(ve, Names.COMPONENT_EDGE_SERVER))
                .endMetadata()
                .withNewSpec()
                .withNewSelector()
                .withMatchLabels(Names.edgeServerSelector(ve))
                .endSelector()
                // the rollout replaces pods, node by node: never the controller on its own
                .withNewUpdateStrategy()
                .withType("OnDelete")
                .endUpdateStrategy()
                .withTemplate(template)
                .endSpec()
                .build();
    }
}
