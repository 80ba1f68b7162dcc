package io.videoedge.operator.dependent;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.GarbageCollected;
import io.javaoperatorsdk.operator.processing.GroupVersionKind;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.Updater;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.GenericKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.videoedge.api.VideoEdge;
import io.videoedge.operator.reconciler.Names;
import io.videoedge.operator.render.EdgeServerLayout;
import java.util.List;
import java.util.Map;

/**
 * A Prometheus Operator PodMonitor scraping the edge servers' admin port (/metrics). Only active
 * where the monitoring.coreos.com CRDs exist ({@link PrometheusOperatorPresent}), so the operator
 * runs on clusters without the Prometheus Operator. A generic resource: no model dependency.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Names.EDGE_SERVER_SELECTOR))
public class EdgePodMonitor extends GenericKubernetesDependentResource<VideoEdge>
    implements Creator<GenericKubernetesResource, VideoEdge>, Updater<GenericKubernetesResource, VideoEdge>,
    GarbageCollected<VideoEdge> {
  public static final GroupVersionKind GVK = new GroupVersionKind("monitoring.coreos.com", "v1", "PodMonitor");

  public EdgePodMonitor() {
    super(GVK);
  }

  @Override
  protected GenericKubernetesResource desired(VideoEdge ve, Context<VideoEdge> context) {
    return desired(ve);
  }

  static GenericKubernetesResource desired(VideoEdge ve) {
    return new GenericKubernetesResourceBuilder()
        .withApiVersion(GVK.apiVersion())
        .withKind(GVK.getKind())
        .withNewMetadata()
          .withName(Names.edgeServer(ve))
          .withNamespace(ve.getMetadata().getNamespace())
          .withLabels(Names.ownerLabels(ve, Names.COMPONENT_EDGE_SERVER))
        .endMetadata()
        .addToAdditionalProperties("spec", Map.of(
            "selector", Map.of("matchLabels", Names.edgeServerSelector(ve)),
            "podMetricsEndpoints", List.of(Map.of(
                "port", EdgeServerLayout.ADMIN_PORT_NAME,
                "path", "/metrics",
                "interval", "15s"))))
        .build();
  }
}
