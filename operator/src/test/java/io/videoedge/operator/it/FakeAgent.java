package io.videoedge.operator.it;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.videoedge.api.NodeCapabilities;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.SettingState;
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

    /**
     * Applied=True for the NodeTuning's current spec, with what the node can do. Where the kernel has no TLS
     * ({@code ktls} unavailable) it reports what the real agent does there: module/tls Unsupported, so
     * Degraded=True (UnsupportedSettings).
     */
    FakeAgent applied(String ktls) {
        return report(cond("Applied", "True", "AsExpected", "14 setting(s) applied or already in place"), ktls);
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
        boolean noKernelTls = "unavailable".equals(ktls)
                && nt.getSpec().tuning() != null
                && nt.getSpec().tuning().kernelModules() != null
                && nt.getSpec().tuning().kernelModules().contains("tls");
        String why = "module tls is not built for kernel 6.12.48+deb13-amd64 (nothing under /lib/modules/"
                + "6.12.48+deb13-amd64): kernel TLS unavailable, the server falls back to userspace TLS (OpenSSL)";
        List<NodeTuningStatus.Setting> settings = noKernelTls
                ? List.of(new NodeTuningStatus.Setting(
                        "module/tls", "loaded", "absent", null, SettingState.UNSUPPORTED, why))
                : List.of();
        Condition degraded = noKernelTls
                ? cond("Degraded", "True", "UnsupportedSettings", "unsupported on this node: module/tls (" + why + ")")
                : cond("Degraded", "False", "AsExpected", "every setting is in place");
        String message = "Applied".equals(applied.getType()) && "True".equals(applied.getStatus())
                ? "applied: 3 changed, 11 already set" + (noKernelTls ? ", 1 unsupported" : "")
                : applied.getMessage();
        nt.setStatus(new NodeTuningStatus(
                nt.getMetadata().getGeneration(),
                List.of(applied, degraded),
                message,
                "sha256:0123",
                null,
                settings,
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
