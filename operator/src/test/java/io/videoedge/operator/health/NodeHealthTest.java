package io.videoedge.operator.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningSpec;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.SettingState;
import io.videoedge.operator.health.NodeHealth.Server;
import io.videoedge.operator.health.NodeHealth.Tuning;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeHealthTest {
    static NodeTuning tuning(long generation, Long observed, List<Condition> conditions) {
        NodeTuning nt = new NodeTuning();
        nt.getMetadata().setName("a");
        nt.getMetadata().setGeneration(generation);
        nt.setSpec(new NodeTuningSpec(new NodeTuningSpec.Source("video", "edge", "uid"), null, null, null));
        nt.setStatus(new NodeTuningStatus(observed, conditions, null, null, null, null, null, null));
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

    static Pod pod(String phase, String ready, String since) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .endMetadata()
                .withNewSpec()
                .withNodeName("a")
                .endSpec()
                .withNewStatus()
                .withPhase(phase)
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready)
                .withLastTransitionTime(since)
                .endCondition()
                .endStatus()
                .build();
    }

    @Test
    void outOfServiceSinceItsReadyConditionTurnedFalse() {
        assertThat(NodeHealth.notReadySince(pod("Running", "False", "2026-11-01T10:00:05Z")))
                .contains(java.time.Instant.parse("2026-11-01T10:00:05Z"));
        assertThat(NodeHealth.notReadySince(pod("Running", "True", "2026-11-01T10:00:05Z")))
                .as("serving")
                .isEmpty();
        assertThat(NodeHealth.notReadySince(pod("Pending", "False", null)))
                .as("never reported Ready: it never served")
                .contains(java.time.Instant.EPOCH);
        assertThat(NodeHealth.notReadySince(new io.fabric8.kubernetes.api.model.Pod()))
                .as("no status at all")
                .contains(java.time.Instant.EPOCH);
        assertThat(NodeHealth.notReadySince(null)).isEmpty();
    }

    @Test
    void tunedWhenTheAgentAppliedTheNodeTuningsLatestSpec() {
        assertThat(NodeHealth.tuning(tuning(2, 2L, List.of(cond("Applied", "True", "AsExpected", ""))))
                        .state())
                .isEqualTo(Tuning.APPLIED);
        // the agent has not seen the latest spec: what it says is about an older one
        var stale = NodeHealth.tuning(tuning(3, 2L, List.of(cond("Applied", "True", "AsExpected", ""))));
        assertThat(stale.state()).isEqualTo(Tuning.PENDING);
        assertThat(stale.message()).isEqualTo("waiting for the node agent to apply the NodeTuning");
        assertThat(NodeHealth.tuning(null).message()).isEqualTo("NodeTuning not created yet");
        assertThat(NodeHealth.tuning(tuning(1, 1L, List.of())).state()).isEqualTo(Tuning.PENDING);
    }

    @Test
    void planOnlyIsPlannedAndAFailureIsFailedWithTheAgentsMessage() {
        assertThat(NodeHealth.tuning(tuning(1, 1L, List.of(cond("Applied", "False", "PlanOnly", "3 would change"))))
                        .state())
                .isEqualTo(Tuning.PLANNED);
        for (String reason : List.of("RolledBack", "ApplyFailed", "UnsupportedSettings", "InvalidSpec")) {
            var v = NodeHealth.tuning(
                    tuning(1, 1L, List.of(cond("Applied", "False", reason, "sysctl x: write failed"))));
            assertThat(v.state()).as(reason).isEqualTo(Tuning.FAILED);
            assertThat(v.message()).isEqualTo("agent reports Applied=False " + reason + ": sysctl x: write failed");
        }
        // still working on it: not a failure
        assertThat(NodeHealth.tuning(
                                tuning(1, 1L, List.of(cond("Applied", "False", "Applying", "waiting for the pod"))))
                        .state())
                .isEqualTo(Tuning.PENDING);
    }

    @Test
    void appliedWithAgentDegradedIsTunedButDegraded() {
        var v = NodeHealth.tuning(tuning(
                1,
                1L,
                List.of(
                        cond("Applied", "True", "AsExpected", ""),
                        cond("Degraded", "True", "UnsupportedSettings", "cpuset/relax_domain_level: cgroup v2"))));
        assertThat(v.state()).isEqualTo(Tuning.DEGRADED);
        assertThat(v.state().tuned()).isTrue();
    }

    @Test
    void serverStateFollowsThePodAndReadySinceItsReadyCondition() {
        assertThat(NodeHealth.server(null)).isEqualTo(Server.MISSING);
        assertThat(NodeHealth.server(pod("Pending", "False", null))).isEqualTo(Server.PENDING);
        assertThat(NodeHealth.server(pod("Running", "False", null))).isEqualTo(Server.NOT_READY);
        assertThat(NodeHealth.server(pod("Running", "True", null))).isEqualTo(Server.READY);
        assertThat(NodeHealth.readySince(pod("Running", "True", "2026-11-01T10:00:00Z")))
                .contains(Instant.parse("2026-11-01T10:00:00Z"));
        assertThat(NodeHealth.readySince(pod("Running", "False", "2026-11-01T10:00:00Z")))
                .isEmpty();
    }

    @Test
    void settingsInTheGivenStates() {
        NodeTuning nt = tuning(1, 1L, List.of());
        nt.setStatus(new NodeTuningStatus(
                1L,
                List.of(),
                null,
                null,
                null,
                List.of(
                        new NodeTuningStatus.Setting("sysctl/a", "1", "1", "0", SettingState.APPLIED, null),
                        new NodeTuningStatus.Setting("sysctl/b", "1", "1", "1", SettingState.UNCHANGED, null),
                        new NodeTuningStatus.Setting(
                                "rps/eth0/rx-0", "f", "0", "0", SettingState.UNSUPPORTED, "read-only /sys")),
                null,
                null));
        assertThat(NodeHealth.settingsIn(nt, SettingState.APPLIED, SettingState.UNCHANGED))
                .containsExactly("sysctl/a", "sysctl/b");
        assertThat(NodeHealth.settingsIn(nt, SettingState.UNSUPPORTED)).containsExactly("rps/eth0/rx-0");
        assertThat(NodeHealth.settingsIn(null, SettingState.APPLIED)).isEmpty();
    }
}
