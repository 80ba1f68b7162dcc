package io.videoedge.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.videoedge.api.NodeCapabilities;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningSpec;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.TlsMode;
import io.videoedge.operator.health.NodeHealth.Tuning;
import io.videoedge.operator.render.Names;
import io.videoedge.operator.rollout.NodeDecision;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeReportTest {
    static NodeTuning tuning(String node, String revision, List<Condition> conditions, NodeCapabilities caps) {
        NodeTuning nt = new NodeTuning();
        nt.getMetadata().setName(node);
        nt.getMetadata().setGeneration(1L);
        nt.getMetadata().setAnnotations(Map.of(Names.TUNING_REVISION, revision));
        nt.setSpec(new NodeTuningSpec(new NodeTuningSpec.Source("video", "edge", "uid"), null, null, null));
        nt.setStatus(new NodeTuningStatus(1L, conditions, null, null, null, null, caps, null));
        return nt;
    }

    static Condition cond(String type, String status, String reason, String message) {
        return new ConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withReason(reason)
                .withMessage(message)
                .build();
    }

    static NodeTuning applied(String node, String revision) {
        return tuning(node, revision, List.of(cond("Applied", "True", "AsExpected", "")), null);
    }

    static Pod readyPod(String node) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("edge-edge-server-" + node)
                .withUid("uid-" + node)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .endSpec()
                .withNewStatus()
                .withPhase("Running")
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .endStatus()
                .build();
    }

    static NodeDecision decision(String node, NodeDecision.Phase phase, String message) {
        return new NodeDecision(node, null, "r2", null, phase, NodeDecision.PodAction.NONE, message);
    }

    @Test
    void tunedOnlyWhenTheNodeTuningCarriesTheCurrentTuningAndTheAgentAppliedIt() {
        NodeReport current = NodeReport.of(
                "a",
                applied("a", "r2"),
                readyPod("a"),
                decision("a", NodeDecision.Phase.UPDATED, null),
                "r2",
                null,
                null,
                null);
        assertThat(current.tuned()).isTrue();
        assertThat(current.updated()).isTrue();
        assertThat(current.summary().rollout()).isEqualTo("Updated");
        assertThat(current.message()).isNull();

        // applied, but the tuning of an earlier spec: the node waits for its turn, and serves
        NodeReport waiting = NodeReport.of(
                "a",
                applied("a", "r1"),
                readyPod("a"),
                decision("a", NodeDecision.Phase.WAITING, "waiting for its turn"),
                "r2",
                null,
                null,
                null);
        assertThat(waiting.tuning()).isEqualTo(Tuning.APPLIED);
        assertThat(waiting.tuned()).isFalse();
        assertThat(waiting.serving()).isTrue();
        assertThat(waiting.summary().rollout()).isEqualTo("Waiting");
        assertThat(waiting.message()).isEqualTo("waiting for its turn");

        // an invalid spec rolled out nothing: the node is judged by what it was given
        assertThat(NodeReport.of("a", applied("a", "r1"), readyPod("a"), null, null, null, null, null)
                        .tuned())
                .isTrue();
    }

    @Test
    void aNodeWithoutAServerNamesTheTaintThatKeepsItOff() {
        NodeReport tainted =
                NodeReport.of("a", applied("a", "r1"), null, null, null, null, null, "dedicated=video:NoSchedule");
        assertThat(tainted.serverMessage())
                .isEqualTo("no edge-server pod on this node: the DaemonSet places none, as spec.tolerations does not "
                        + "tolerate its taint dedicated=video:NoSchedule");
        assertThat(tainted.summary().message()).isEqualTo(tainted.serverMessage());
        assertThat(NodeReport.of("a", applied("a", "r1"), null, null, null, null, null, null)
                        .serverMessage())
                .isEqualTo("no edge-server pod on this node yet");
    }

    @Test
    void aTurnExcusesANodeThatDoesNotServeUnlessItStalled() {
        NodeTuning pending = tuning("a", "r2", List.of(cond("Applied", "False", "Applying", "m")), null);
        NodeReport inTurn = NodeReport.of(
                "a", pending, null, decision("a", NodeDecision.Phase.UPDATING, "tuning it"), "r2", null, null, null);
        assertThat(inTurn.attention()).isEqualTo(NodeReport.Attention.IN_TURN);
        assertThat(inTurn.stalled()).isFalse();

        NodeReport stalled = NodeReport.of(
                "a",
                pending,
                null,
                decision("a", NodeDecision.Phase.STALLED, "past the deadline"),
                "r2",
                null,
                null,
                null);
        assertThat(stalled.attention()).isEqualTo(NodeReport.Attention.NOT_SERVING);
        assertThat(stalled.stalled()).isTrue();
        assertThat(stalled.summary().rollout()).isEqualTo("Stalled");
        assertThat(stalled.message()).isEqualTo("past the deadline");

        // serving, but its tuning never applied: not tuned
        NodeReport servingUntuned = NodeReport.of(
                "a",
                pending,
                readyPod("a"),
                decision("a", NodeDecision.Phase.STALLED, "past the deadline"),
                "r2",
                null,
                null,
                null);
        assertThat(servingUntuned.attention()).isEqualTo(NodeReport.Attention.NOT_TUNED);
    }

    @Test
    void plannedOnlyWhenTheNodeTuningCarriesTheCurrentTuningAndItsAgentPlannedIt() {
        NodeTuning planned = tuning("a", "r2", List.of(cond("Applied", "False", "PlanOnly", "m")), null);
        NodeReport current = NodeReport.of(
                "a", planned, readyPod("a"), decision("a", NodeDecision.Phase.UPDATED, null), "r2", null, null, null);
        assertThat(current.tuning()).isEqualTo(Tuning.PLANNED);
        assertThat(current.planned()).isTrue();
        assertThat(current.tuned()).isFalse();
        NodeReport older = NodeReport.of(
                "a", planned, readyPod("a"), decision("a", NodeDecision.Phase.WAITING, null), "r3", null, null, null);
        assertThat(older.planned()).isFalse();
    }

    @Test
    void theAgentsFailureIsTheMessageWhenTheRolloutHasNothingToSay() {
        NodeTuning failed = tuning(
                "a",
                "r2",
                List.of(cond("Applied", "False", "RolledBack", "sysctl net.ipv4.tcp_mem: write failed")),
                null);
        NodeReport r = NodeReport.of(
                "a", failed, readyPod("a"), decision("a", NodeDecision.Phase.UPDATED, null), "r2", null, null, null);
        assertThat(r.tuning()).isEqualTo(Tuning.FAILED);
        assertThat(r.summary().message())
                .isEqualTo("agent reports Applied=False RolledBack: sysctl net.ipv4.tcp_mem: write failed");
        assertThat(r.tuned()).isFalse();
    }

    @Test
    void summaryShowsKernelKernelTlsAndTheTunedNic() {
        var caps = new NodeCapabilities(
                "6.12.0-31-amd64",
                List.of("cubic", "bbr"),
                true,
                "unavailable",
                "v2",
                1,
                "0-3",
                List.of(
                        new NodeCapabilities.Nic("lo", null, 1, 1, null, null, null, -1, false),
                        new NodeCapabilities.Nic("eth0", "virtio_net", 4, 4, 4, 4, List.of(30, 31), -1, false)));
        NodeTuning nt = tuning("a", "r2", List.of(cond("Applied", "True", "AsExpected", "")), caps);
        NodeReport r = NodeReport.of(
                "a",
                nt,
                readyPod("a"),
                decision("a", NodeDecision.Phase.UPDATED, null),
                "r2",
                TlsMode.KTLS,
                List.of("eth0"),
                null);
        assertThat(r.summary()).satisfies(s -> {
            assertThat(s.kernel()).isEqualTo("6.12.0-31-amd64");
            assertThat(s.ktls()).isEqualTo("unavailable");
            assertThat(s.nic()).isEqualTo("eth0 (virtio_net)");
            assertThat(s.tuning()).isEqualTo("Applied");
            assertThat(s.server()).isEqualTo("Ready");
            assertThat(s.message()).isEqualTo("kernel TLS unavailable: the server uses userspace OpenSSL");
            assertThat(s.tls()).as("what serves, not what was asked").isEqualTo("openssl");
        });
        assertThat(r.kernelTlsUnavailable()).isTrue();
        assertThat(NodeReport.of("a", nt, readyPod("a"), null, "r2", null, null, null)
                        .summary()
                        .ktls())
                .isEqualTo("not-requested");
        assertThat(NodeReport.of("a", nt, readyPod("a"), null, "r2", null, null, null)
                        .summary()
                        .tls())
                .isEqualTo("none");
    }

    @Test
    void aKernelWithoutTlsLeadsTheMessageAheadOfTheAgentsDegradedReportButNotAheadOfAFailedTuning() {
        var caps =
                new NodeCapabilities("6.12.48+deb13-amd64", List.of("bbr"), true, "unavailable", "v2", 1, "0-3", null);
        // what the real agent reports for a kernel without the module: Degraded, with a message long
        // enough that the summary cuts its end
        String why = "unsupported on this node: module/tls (module tls is not built for kernel 6.12.48+deb13-amd64"
                + " (nothing under /lib/modules/6.12.48+deb13-amd64): kernel TLS unavailable, the server falls back"
                + " to userspace TLS (OpenSSL)), nic/eth0/coalesce (the driver refuses adaptive-rx: operation not"
                + " supported)";
        NodeTuning degraded = tuning(
                "a",
                "r2",
                List.of(
                        cond("Applied", "True", "AsExpected", ""),
                        cond("Degraded", "True", "UnsupportedSettings", why)),
                caps);
        NodeReport r = NodeReport.of(
                "a",
                degraded,
                readyPod("a"),
                decision("a", NodeDecision.Phase.UPDATED, null),
                "r2",
                TlsMode.KTLS,
                null,
                null);
        assertThat(r.message())
                .startsWith("kernel TLS unavailable: the server uses userspace OpenSSL; agent reports Degraded=True")
                .hasSize(NodeReport.MAX_NODE_MESSAGE)
                .endsWith("...");
        assertThat(r.attention()).isEqualTo(NodeReport.Attention.DEGRADED);

        // a tuning the agent could not apply says so first: it gates the server
        NodeTuning failed = tuning(
                "a", "r2", List.of(cond("Applied", "False", "ApplyFailed", "sysctl net.core.somaxconn: EPERM")), caps);
        assertThat(NodeReport.of("a", failed, readyPod("a"), null, "r2", TlsMode.KTLS, null, null)
                        .message())
                .isEqualTo("agent reports Applied=False ApplyFailed: sysctl net.core.somaxconn: EPERM");
    }
}
