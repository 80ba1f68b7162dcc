package io.videoedge.operator.dependent;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.videoedge.api.VideoEdge;
import io.videoedge.operator.render.EdgeServerLayout;
import io.videoedge.operator.render.Names;

/**
 * The edge server's config file, mounted as the directory /etc/videoedge/config. A change reaches
 * every running server (the kubelet swaps the mounted files); each applies the live fields at once
 * and the pods are replaced in the rollout when a restart-only field changed. Owned (garbage collected).
 */
@KubernetesDependent(informer = @Informer(labelSelector = Names.EDGE_SERVER_SELECTOR))
public class EdgeConfigMap extends CRUDKubernetesDependentResource<ConfigMap, VideoEdge> {
    public EdgeConfigMap() {
        super(ConfigMap.class);
    }

    @Override
    protected ConfigMap desired(VideoEdge ve, Context<VideoEdge> context) {
        return desired(ve, EdgePlan.of(context));
    }

    static ConfigMap desired(VideoEdge ve, EdgePlan plan) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(Names.edgeServer(ve))
                .withNamespace(ve.getMetadata().getNamespace())
                .withLabels(Names.ownerLabels(ve, Names.COMPONENT_EDGE_SERVER))
                .addToAnnotations(Names.CONFIG_CHECKSUM, plan.configChecksum())
                .endMetadata()
                .addToData(EdgeServerLayout.CONFIG_FILE_NAME, plan.config())
                .build();
    }
}
