package io.videoedge.operator.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.videoedge.api.Toleration;
import java.util.List;
import org.junit.jupiter.api.Test;

class TaintsTest {
    static Node tainted(Taint... taints) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName("n1")
                .endMetadata()
                .withNewSpec()
                .withTaints(taints)
                .endSpec()
                .build();
    }

    static Taint taint(String key, String value, String effect) {
        return new Taint(effect, key, null, value);
    }

    static final Node DEDICATED = tainted(taint("dedicated", "video", "NoSchedule"));

    @Test
    void aNodeWithoutTaintsTakesTheServer() {
        assertThat(Taints.untolerated(tainted(), null)).isEmpty();
        assertThat(Taints.untolerated(
                        new NodeBuilder()
                                .withNewMetadata()
                                .withName("n")
                                .endMetadata()
                                .build(),
                        null))
                .isEmpty();
    }

    @Test
    void aNoScheduleOrNoExecuteTaintWithoutATolerationKeepsTheServerOffAndIsNamed() {
        assertThat(Taints.untolerated(DEDICATED, null)).contains("dedicated=video:NoSchedule");
        assertThat(Taints.untolerated(tainted(taint("drain", null, "NoExecute")), List.of()))
                .contains("drain:NoExecute");
        assertThat(Taints.untolerated(tainted(taint("soft", "x", "PreferNoSchedule")), null))
                .as("PreferNoSchedule only steers the scheduler")
                .isEmpty();
    }

    @Test
    void kubernetesMatchingRule() {
        assertThat(Taints.untolerated(DEDICATED, List.of(new Toleration("dedicated", "Equal", "video", null, null))))
                .isEmpty();
        assertThat(Taints.untolerated(DEDICATED, List.of(new Toleration("dedicated", null, "video", null, null))))
                .as("Equal is the default operator")
                .isEmpty();
        assertThat(Taints.untolerated(DEDICATED, List.of(new Toleration("dedicated", "Equal", "audio", null, null))))
                .as("another value")
                .isPresent();
        assertThat(Taints.untolerated(DEDICATED, List.of(new Toleration("dedicated", "Exists", null, null, null))))
                .isEmpty();
        assertThat(Taints.untolerated(DEDICATED, List.of(new Toleration(null, "Exists", null, null, null))))
                .as("no key with Exists tolerates every taint")
                .isEmpty();
        assertThat(Taints.untolerated(
                        DEDICATED, List.of(new Toleration("dedicated", "Exists", null, "NoExecute", null))))
                .as("another effect")
                .isPresent();
        assertThat(Taints.untolerated(DEDICATED, List.of(new Toleration("other", "Exists", null, null, null))))
                .as("another key")
                .isPresent();
    }

    @Test
    void theTaintsTheDaemonSetControllerToleratesDoNotCount() {
        Node cordoned = tainted(
                taint("node.kubernetes.io/unschedulable", null, "NoSchedule"),
                taint("node.kubernetes.io/not-ready", null, "NoExecute"),
                taint("node.kubernetes.io/network-unavailable", null, "NoSchedule"),
                taint("node.kubernetes.io/memory-pressure", null, "NoSchedule"));
        assertThat(Taints.untolerated(cordoned, null)).isEmpty();
        assertThat(Taints.untolerated(tainted(taint("node.kubernetes.io/out-of-service", "x", "NoExecute")), null))
                .as("not one the controller adds")
                .contains("node.kubernetes.io/out-of-service=x:NoExecute");
    }

    @Test
    void theFirstUntoleratedTaintIsNamed() {
        Node two = tainted(taint("a", "1", "NoSchedule"), taint("b", "2", "NoSchedule"));
        assertThat(Taints.untolerated(two, List.of(new Toleration("a", "Exists", null, null, null))))
                .contains("b=2:NoSchedule");
    }
}
