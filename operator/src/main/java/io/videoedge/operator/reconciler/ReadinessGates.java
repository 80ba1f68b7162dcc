package io.videoedge.operator.reconciler;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.reconciler.dependent.RecentOperationCacheFiller;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.videoedge.api.Conditions;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.TuningMode;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.operator.health.NodeHealth;
import io.videoedge.operator.render.Names;
import io.videoedge.operator.rollout.NodeDecision;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tune before serve. Every edge-server pod carries the readiness gate videoedge.io/node-tuned; the
 * kubelet marks the pod Ready only when that pod condition is True too. The operator sets it True
 * once the pod's node is tuned as its NodeTuning asks (whatever revision the rollout has given that
 * node: a node waiting for its turn keeps serving on its tuning) with this very pod in the NodeTuning
 * (the agent has set the IRQ and cpuset policy for its cgroup), and False otherwise, or while the
 * rollout drains the pod before re-tuning its node or restarting it. In Plan mode a node the agent
 * has planned counts: the user asked for no tuning, the server serves untuned (the status says so).
 * The condition is patched only when it changes.
 */
final class ReadinessGates {
    private static final Logger log = LoggerFactory.getLogger(ReadinessGates.class);

    private ReadinessGates() {}

    /**
     * The gate condition a pod should carry. Pure.
     *
     * @param decision the rollout's decision for the pod's node (null when nothing was decided)
     */
    static PodCondition desired(Pod pod, NodeTuning nt, NodeDecision decision, Instant now) {
        boolean placed = nt != null
                && nt.getSpec() != null
                && nt.getSpec().server() != null
                && Objects.equals(
                        nt.getSpec().server().podUid(), pod.getMetadata().getUid());
        boolean planMode = nt != null
                && nt.getSpec() != null
                && nt.getSpec().tuning() != null
                && nt.getSpec().tuning().mode() == TuningMode.PLAN;
        NodeHealth.TuningVerdict verdict = NodeHealth.tuning(nt);
        String revision = nt == null || nt.getMetadata().getAnnotations() == null
                ? null
                : nt.getMetadata().getAnnotations().get(Names.TUNING_REVISION);
        String reason;
        String message;
        boolean open = false;
        if (decision != null && decision.draining()) {
            reason = Conditions.DRAINING;
            message = "out of service: " + decision.message();
        } else if (decision != null && revision != null && !revision.equals(decision.tuningRevision())) {
            // this pass gives the NodeTuning another tuning (a turn, a revert): the node is not tuned as its
            // NodeTuning asks until its agent applied it, whatever the status of the one it replaces says
            reason = Conditions.NODE_NOT_TUNED;
            message = "re-tuning: its NodeTuning now asks for tuning revision " + decision.tuningRevision()
                    + ", not applied yet";
        } else if (!placed && (verdict.state().tuned() || verdict.state() == NodeHealth.Tuning.PLANNED)) {
            reason = Conditions.NODE_NOT_TUNED;
            message = "waiting for the node's NodeTuning to name this pod";
        } else if (verdict.state().tuned()) {
            open = true;
            reason = Conditions.AS_EXPECTED;
            message = "node tuned as its NodeTuning asks"
                    + (revision == null ? "" : " (tuning revision " + revision + ")");
        } else if (planMode && verdict.state() == NodeHealth.Tuning.PLANNED) {
            open = true;
            reason = Conditions.PLAN_ONLY;
            message = "node untuned by request (tuning.mode Plan)";
        } else {
            reason = Conditions.NODE_NOT_TUNED;
            message = Objects.requireNonNullElse(verdict.message(), "node not tuned");
        }
        String status = open ? Conditions.TRUE : Conditions.FALSE;
        Optional<PodCondition> old = current(pod);
        String since = old.filter(c -> status.equals(c.getStatus()) && c.getLastTransitionTime() != null)
                .map(PodCondition::getLastTransitionTime)
                .orElse(now.truncatedTo(ChronoUnit.SECONDS).toString());
        return new PodConditionBuilder()
                .withType(VideoEdgeApi.READINESS_GATE_NODE_TUNED)
                .withStatus(status)
                .withReason(reason)
                .withMessage(message)
                .withLastTransitionTime(since)
                .build();
    }

    static Optional<PodCondition> current(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getConditions() == null
                ? Optional.empty()
                : pod.getStatus().getConditions().stream()
                        .filter(c -> VideoEdgeApi.READINESS_GATE_NODE_TUNED.equals(c.getType()))
                        .findFirst();
    }

    static boolean same(PodCondition a, PodCondition b) {
        return Objects.equals(a.getStatus(), b.getStatus())
                && Objects.equals(a.getReason(), b.getReason())
                && Objects.equals(a.getMessage(), b.getMessage());
    }

    /** A pod whose gate condition must be patched, and what to. */
    record Patch(Pod pod, PodCondition wanted) {}

    /** Whether {@code pod} needs {@code wanted} patched in: only when it differs. Pure. */
    static Optional<Patch> needed(Pod pod, PodCondition wanted) {
        return current(pod).filter(c -> same(c, wanted)).isPresent()
                ? Optional.empty()
                : Optional.of(new Patch(pod, wanted));
    }

    /**
     * Patches the pod's gate condition (a strategic merge by condition type, addressed by the cached pod,
     * so no GET before it), and puts the patched pod into the pods informer's cache at once: a reconcile
     * that runs before the informer has seen the patch judges the pod as patched instead of patching it
     * again, and the patch itself does not wake this VideoEdge up (the kubelet's Ready change that
     * follows does).
     */
    static void patch(KubernetesClient client, RecentOperationCacheFiller<Pod> cache, Patch p) {
        Pod pod = p.pod();
        PodCondition wanted = p.wanted();
        String patch = Serialization.asJson(Map.of("status", Map.of("conditions", List.of(wanted))));
        try {
            Pod patched = client.pods()
                    .inNamespace(pod.getMetadata().getNamespace())
                    .resource(pod)
                    .subresource("status")
                    .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
            cache.handleRecentResourceUpdate(ResourceID.fromResource(patched), patched, pod);
            log.info(
                    "Pod {} readiness gate {}={} ({})",
                    pod.getMetadata().getName(),
                    wanted.getType(),
                    wanted.getStatus(),
                    wanted.getReason());
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) { // the pod went away meanwhile: nothing to gate
                throw e;
            }
        }
    }
}
