package io.videoedge.operator.reconciler;

import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeStatus;

/**
 * A status write outside reconcile() (during cleanup, where JOSDK patches nothing): server-side
 * apply of the status alone, with the controller's own field manager so that ownership stays the
 * same as for the status JOSDK writes.
 */
final class StatusPatch {
  private StatusPatch() {
  }

  static void apply(Context<VideoEdge> context, VideoEdge ve, VideoEdgeStatus status) {
    VideoEdge patch = VideoEdgeReconciler.statusOnly(ve, status);
    context.getClient().resources(VideoEdge.class).inNamespace(ve.getMetadata().getNamespace())
        .withName(ve.getMetadata().getName()).subresource("status")
        .patch(new PatchContext.Builder().withPatchType(PatchType.SERVER_SIDE_APPLY).withForce(true)
            .withFieldManager(context.getControllerConfiguration().fieldManager()).build(), patch);
  }
}
