package io.videoedge.operator.reconciler;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restarts an edge server in its node's turn: the pod is evicted (a graceful delete that honours
 * PodDisruptionBudgets), its server drains the responses in flight on SIGTERM, and the DaemonSet
 * controller (update strategy OnDelete) creates the new pod from the current template.
 */
final class PodEvictions {
    private static final Logger log = LoggerFactory.getLogger(PodEvictions.class);

    private PodEvictions() {}

    static void evict(KubernetesClient client, Pod pod, String why) {
        try {
            boolean evicted = client.pods()
                    .inNamespace(pod.getMetadata().getNamespace())
                    .withName(pod.getMetadata().getName())
                    .evict();
            if (evicted) {
                log.info(
                        "Evicted edge-server pod {} on {}: {}",
                        pod.getMetadata().getName(),
                        pod.getSpec().getNodeName(),
                        why);
            } else {
                log.info(
                        "Eviction of pod {} refused for now (a PodDisruptionBudget): retried on the next pass",
                        pod.getMetadata().getName());
            }
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) { // gone meanwhile
                throw e;
            }
        }
    }
}
