package io.videoedge.operator.reconciler;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.util.List;

/**
 * What the operator reads of an edge-server pod, and nothing else: its metadata (without
 * managedFields), the node it is bound to, and of its status the phase, the conditions and each
 * container's name, readiness, start and restart count. The rest (containers, volumes, probes, the
 * kubelet's container states, images and addresses) is most of a pod and the operator never reads it:
 * the reconcilers judge pods by these fields only ({@code NodeHealth}, {@code ReadinessGates},
 * {@code PodServing}, the rollout). At 5,000 nodes the informers held every pod whole, about a hundred
 * model objects each. Pure: returns a new pod and leaves {@code pod} as it was.
 */
public final class SlimPod {
    private SlimPod() {}

    public static Pod of(Pod pod) {
        var b = new PodBuilder().withMetadata(pod.getMetadata());
        if (pod.getSpec() != null) {
            b.withSpec(new PodSpecBuilder()
                    .withNodeName(pod.getSpec().getNodeName())
                    .build());
        }
        var s = pod.getStatus();
        if (s != null) {
            b.withStatus(new PodStatusBuilder()
                    .withPhase(s.getPhase())
                    .withConditions(s.getConditions())
                    .withContainerStatuses(containers(s.getContainerStatuses()))
                    .build());
        }
        return b.build();
    }

    private static List<ContainerStatus> containers(List<ContainerStatus> all) {
        return all == null
                ? null
                : all.stream()
                        .map(c -> new ContainerStatusBuilder()
                                .withName(c.getName())
                                .withReady(c.getReady())
                                .withStarted(c.getStarted())
                                .withRestartCount(c.getRestartCount())
                                .build())
                        .toList();
    }
}
