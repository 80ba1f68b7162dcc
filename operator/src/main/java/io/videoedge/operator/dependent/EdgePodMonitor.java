package io.videoedge.operator.dependent;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.videoedge.api.VideoEdge;
import io.videoedge.operator.render.EdgeServerLayout;
import io.videoedge.operator.render.Names;
import java.util.List;

/**
 * A Prometheus Operator PodMonitor scraping the edge servers' admin port (/metrics). Only active
 * where the monitoring.coreos.com CRDs exist ({@link PrometheusOperatorPresent}), so the operator
 * runs on clusters without the Prometheus Operator.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Names.EDGE_SERVER_SELECTOR))
public class EdgePodMonitor extends CRUDKubernetesDependentResource<PodMonitor, VideoEdge> {
    public EdgePodMonitor() {
        super(PodMonitor.class);
    }

    @Override
    protected PodMonitor desired(VideoEdge ve, Context<VideoEdge> context) {
        return desired(ve);
    }

    static PodMonitor desired(VideoEdge ve) {
        PodMonitor monitor = new PodMonitor();
        monitor.setMetadata(new ObjectMetaBuilder()
                .withName(Names.edgeServer(ve))
                .withNamespace(ve.getMetadata().getNamespace())
                .withLabels(Names.ownerLabels(ve, Names.COMPONENT_EDGE_SERVER))
                .build());
        monitor.setSpec(new PodMonitor.Spec(
                new LabelSelectorBuilder()
                        .withMatchLabels(Names.edgeServerSelector(ve))
                        .build(),
                List.of(new PodMonitor.Endpoint(EdgeServerLayout.ADMIN_PORT_NAME, "/metrics", "15s"))));
        return monitor;
    }
}
