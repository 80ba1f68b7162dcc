package io.videoedge.operator.dependent;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.videoedge.api.VideoEdge;

/**
 * Activation condition of {@link EdgePodMonitor}: the podmonitors.monitoring.coreos.com CRD is
 * established. Read from the reconciler's informer on that one CRD (watched by name, so the
 * operator needs no access to other CRDs), which also re-triggers every VideoEdge when the
 * Prometheus Operator is installed or removed later.
 */
public class PrometheusOperatorPresent implements Condition<PodMonitor, VideoEdge> {
    public static final String CRD_NAME = "podmonitors.monitoring.coreos.com";

    @Override
    public boolean isMet(DependentResource<PodMonitor, VideoEdge> dependent, VideoEdge ve, Context<VideoEdge> context) {
        @SuppressWarnings("unchecked")
        var crds = (InformerEventSource<CustomResourceDefinition, VideoEdge>) context.eventSourceRetriever()
                .getEventSourceFor(CustomResourceDefinition.class, EventSources.MONITORING_CRD);
        return crds.get(new ResourceID(CRD_NAME))
                .map(PrometheusOperatorPresent::established)
                .orElse(false);
    }

    /** Established and not being deleted (a CRD being deleted stops serving its resources). */
    static boolean established(CustomResourceDefinition crd) {
        return crd.getMetadata().getDeletionTimestamp() == null
                && crd.getStatus() != null
                && crd.getStatus().getConditions() != null
                && crd.getStatus().getConditions().stream()
                        .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
