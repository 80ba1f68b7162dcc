package io.videoedge.operator.purge;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import org.junit.jupiter.api.Test;

class PodServingTest {
    static Pod pod(Boolean started, String containersReady, String ready) {
        var b = new PodBuilder().withNewMetadata().withName("p").endMetadata().withNewStatus();
        if (started != null) {
            b.addToContainerStatuses(new ContainerStatusBuilder()
                    .withName("edge-server")
                    .withStarted(started)
                    .build());
        }
        if (containersReady != null) {
            b.addToConditions(new PodConditionBuilder()
                    .withType("ContainersReady")
                    .withStatus(containersReady)
                    .build());
        }
        if (ready != null) {
            b.addToConditions(new PodConditionBuilder()
                    .withType("Ready")
                    .withStatus(ready)
                    .build());
        }
        return b.endStatus().build();
    }

    @Test
    void aServerThatStartsAgainAfterARestartOrANodeOutageIsSeenAtItsEarliestSignal() {
        Pod restarting = pod(false, "False", "False");
        Pod started = pod(true, "False", "False");
        Pod ready = pod(true, "True", "True");
        assertThat(PodServing.cameUp(started, restarting))
                .as("the startup probe passed")
                .isTrue();
        assertThat(PodServing.cameUp(ready, started)).as("then ready").isTrue();
        assertThat(PodServing.cameUp(ready, ready)).as("nothing changed").isFalse();
        assertThat(PodServing.cameUp(restarting, ready)).as("going down").isFalse();
    }

    @Test
    void aStaleStartedFlagDoesNotHideANodeComingBack() {
        // a node down: the node controller sets Ready False; the container statuses keep their last word
        Pod nodeDown = pod(true, "True", "False");
        Pod nodeBack = pod(true, "True", "True");
        assertThat(PodServing.cameUp(nodeBack, nodeDown)).isTrue();
    }

    @Test
    void aNewPodCountsWhenItSaysItsServerIsUp() {
        assertThat(PodServing.up(pod(null, null, null))).isFalse();
        assertThat(PodServing.up(new PodBuilder().build())).isFalse();
        assertThat(PodServing.up(pod(true, null, null))).isTrue();
        assertThat(PodServing.up(pod(false, "False", "True"))).isTrue();
    }
}
