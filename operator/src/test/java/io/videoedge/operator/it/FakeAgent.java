package io.videoedge.operator.it;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.videoedge.api.NodeCapabilities;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.VideoEdgeApi;
import java.util.List;

/**
 * Stands in for the node agent of one node, by the agent's contract: it puts its finalizer on the
 * NodeTuning when it first sees it, reports status for the NodeTuning's current generation, and
 * releases the finalizer only after restoring the node. The test decides when each step happens.
 */
final class FakeAgent {
    private final KubernetesClient admin;
    private final String node;

    FakeAgent(KubernetesClient admin, String node) {
        this.admin = admin;
        this.node = node;
    }

    NodeTuning get() {
        return admin.resources(NodeTuning.class).withName(node).get();
    }

    /** First sight: the agent's finalizer goes on before it changes anything. */
    FakeAgent adopt() {
        admin.resources(NodeTuning.class).withName(node).edit(nt -> {
            nt.addFinalizer(VideoEdgeApi.AGENT_FINALIZER);
            return nt;
        });
        return this;
    }

    /** Applied=True for the NodeTuning's current spec, with what the node can do. */
    FakeAgent applied(String ktls) {
        return report(cond("Applied", "True", "AsExpected", "14 settings applied"), ktls);
    }

    /** Plan mode: nothing changed, Applied=False/PlanOnly. */
    FakeAgent planned() {
        return report(cond("Applied", "False", "PlanOnly", "14 settings would change"), "available");
    }

    FakeAgent report(Condition applied, String ktls) {
        adopt();
        NodeTuning nt = get();
        var caps = new NodeCapabilities(
                "6.12.48+deb13-amd64",
                List.of("reno", "cubic", "bbr"),
                true,
                ktls,
                "v2",
                1,
                "0-3",
                List.of(new NodeCapabilities.Nic(
                        "eth0", "virtio_net", 4, 4, 4, 4, List.of(24, 25, 26, 27), -1, false)));
        nt.setStatus(new NodeTuningStatus(
                nt.getMetadata().getGeneration(),
                List.of(applied, cond("Degraded", "False", "AsExpected", "")),
                applied.getMessage(),
                "sha256:0123",
                null,
                List.of(),
                caps,
                null));
        admin.resource(nt).updateStatus();
        return this;
    }

    /** The node's originals are back: release the finalizer (the NodeTuning then goes away). */
    void restored() {
        admin.resources(NodeTuning.class).withName(node).edit(nt -> {
            nt.removeFinalizer(VideoEdgeApi.AGENT_FINALIZER);
            return nt;
        });
    }

    static Condition cond(String type, String status, String reason, String message) {
        return new ConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withReason(reason)
                .withMessage(message)
                .withLastTransitionTime("2026-01-01T00:00:00Z")
                .build();
    }
}
