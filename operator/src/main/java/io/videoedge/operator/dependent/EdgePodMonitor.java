package io.videoedge.operator.dependent;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.videoedge.api.VideoEdge;
import io.videoedge.operator.config.OperatorSettings;
import io.videoedge.operator.render.EdgeServerLayout;
import io.videoedge.operator.render.Names;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Prometheus Operator PodMonitor scraping the edge servers' admin port (/metrics). Only active
 * where the monitoring.coreos.com CRDs exist ({@link PrometheusOperatorPresent}), so the operator
 * runs on clusters without the Prometheus Operator. It carries the operator's extra labels
 * ({@link OperatorSettings#podMonitorLabels}, the chart's {@code monitoring.labels}) beside its own, so a
 * Prometheus that selects PodMonitors by label finds it.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Names.EDGE_SERVER_SELECTOR))
public class EdgePodMonitor extends CRUDKubernetesDependentResource<PodMonitor, VideoEdge> {
    public EdgePodMonitor() {
        super(PodMonitor.class);
    }

    private static final String EXTRA_LABELS = EdgePodMonitor.class.getName() + ".labels";

    /** Hands the operator's extra labels to this dependent for the workflow run that follows. */
    public static void putInto(Context<VideoEdge> context, OperatorSettings settings) {
        context.managedWorkflowAndDependentResourceContext().put(EXTRA_LABELS, settings.podMonitorLabels());
    }

    @Override
    @SuppressWarnings("unchecked")
    protected PodMonitor desired(VideoEdge ve, Context<VideoEdge> context) {
        return desired(ve, context.managedWorkflowAndDependentResourceContext().getMandatory(EXTRA_LABELS, Map.class));
    }

    /** @param extraLabels the operator's; its own (owner, component) win over an extra label of the same key */
    static PodMonitor desired(VideoEdge ve, Map<String, String> extraLabels) {
        Map<String, String> labels = new LinkedHashMap<>(extraLabels);
        labels.putAll(Names.ownerLabels(ve, Names.COMPONENT_EDGE_SERVER));
        PodMonitor monitor = new PodMonitor();
        monitor.setMetadata(new ObjectMetaBuilder()
                .withName(Names.edgeServer(ve))
                .withNamespace(ve.getMetadata().getNamespace())
                .withLabels(labels)
                .build());
        monitor.setSpec(new PodMonitor.Spec(
                new LabelSelectorBuilder()
                        .withMatchLabels(Names.edgeServerSelector(ve))
                        .build(),
                List.of(new PodMonitor.Endpoint(EdgeServerLayout.ADMIN_PORT_NAME, "/metrics", "15s"))));
        return monitor;
    }
}
