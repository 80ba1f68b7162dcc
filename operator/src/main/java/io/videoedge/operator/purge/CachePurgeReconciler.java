package io.videoedge.operator.purge;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.videoedge.api.CachePurge;
import io.videoedge.api.CachePurgeStatus;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.operator.reconciler.LeanItemStore;
import io.videoedge.operator.render.Names;
import io.videoedge.operator.status.EventRecorder;
import io.videoedge.operator.status.TransitionEvents;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CachePurge -> a POST /admin/purge to the edge server of every node of its VideoEdge, with that
 * VideoEdge's admin token (the Secret {@code <name>-admin-token}, mounted into the edge pods). Nodes
 * that acknowledge are not called again; the others (down, restarting, not yet ready) are called again
 * every {@link PurgeProgress#RETRY} until the deadline, and after it (the purge Failed, DeadlineExceeded)
 * when their edge-server pod says the server came back up ({@link PodServing}) and every
 * {@link PurgeProgress#LATE_RETRY}, as long as the CachePurge exists and until every node has it. What
 * the status says is {@link PurgeProgress}'s decision; this class makes the calls and writes.
 *
 * <p>The acknowledgements are kept in memory (the status holds counts, not the healthy nodes). After
 * an operator restart or a leader change they are gone, and every node of a purge that is not Complete
 * is called again with the same purge id: servers that applied it answer from their memory of recent
 * ids without purging again, with the time they applied it (so late and on-time acknowledgements are
 * still told apart).
 */
@ControllerConfiguration(name = CachePurgeReconciler.NAME)
public class CachePurgeReconciler implements Reconciler<CachePurge> {
    public static final String NAME = "cachepurge";
    static final String TOKEN_KEY = "token";
    static final String PODS = "edge-server-pods";
    private static final int PARALLEL_CALLS = 32;

    private static final Logger log = LoggerFactory.getLogger(CachePurgeReconciler.class);

    private final Duration lateRetry;
    private final NodeEndpoints endpoints;
    private final NodePurgeClient nodes = new NodePurgeClient();
    private final PurgeMetrics metrics;
    private final Clock clock;
    private final String identity;
    private final Map<String, Ledger> ledgers = new ConcurrentHashMap<>();

    /**
     * One purge's acknowledgements and last failures, by node; the transitions this operator recorded
     * (an Event and a count each, once, even when a pass reads the status from before its own write);
     * and the final status once decided (written again by a pass that reads an older one).
     */
    private static final class Ledger {
        final Map<String, PurgeProgress.Ack> acks = new ConcurrentHashMap<>();
        final Map<String, PurgeProgress.Attempt> failures = new ConcurrentHashMap<>();
        final Set<String> recorded = ConcurrentHashMap.newKeySet();
        final AtomicReference<CachePurgeStatus> finalStatus = new AtomicReference<>();
        volatile Instant lastUsed;

        Ledger(Instant now) {
            lastUsed = now;
        }
    }

    /** @param lateRetry how often nodes that missed a purge's deadline are called again (besides their pods turning ready) */
    public CachePurgeReconciler(
            NodeEndpoints endpoints, MeterRegistry registry, Clock clock, String identity, Duration lateRetry) {
        this.endpoints = endpoints;
        this.metrics = new PurgeMetrics(registry);
        this.clock = clock;
        this.identity = identity;
        this.lateRetry = lateRetry;
    }

    /**
     * The edge-server pods: when one says its server came (back) up, the purges of its VideoEdge that
     * this node has not acknowledged are reconciled at once (a node back from maintenance gets a purge it
     * missed within moments of answering, not at the next retry).
     */
    @Override
    public List<EventSource<?, CachePurge>> prepareEventSources(EventSourceContext<CachePurge> context) {
        return List.of(new InformerEventSource<>(
                InformerEventSourceConfiguration.from(Pod.class, CachePurge.class)
                        .withName(PODS)
                        .withLabelSelector(Names.EDGE_SERVER_SELECTOR)
                        .withItemStore(LeanItemStore.slimPods())
                        .withOnAddFilter(PodServing::up)
                        .withOnUpdateFilter(PodServing::cameUp)
                        .withOnDeleteFilter((pod, unknown) -> false)
                        .withSecondaryToPrimaryMapper(pod -> waitingFor(context, pod))
                        .build(),
                context));
    }

    /** The purges of the pod's VideoEdge that are not Complete and that its node has not acknowledged. */
    private Set<ResourceID> waitingFor(EventSourceContext<CachePurge> context, Pod pod) {
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        String owner = pod.getMetadata().getLabels() == null
                ? null
                : pod.getMetadata().getLabels().get(VideoEdgeApi.LABEL_OWNER_NAME);
        String ns = pod.getMetadata().getNamespace();
        if (node == null || owner == null) return Set.of();
        return context.getPrimaryCache()
                .list(cp -> ns.equals(cp.getMetadata().getNamespace())
                        && owner.equals(cp.getSpec().videoEdge())
                        && !PurgeProgress.isFinal(cp.getStatus())
                        && !acknowledged(cp.getMetadata().getUid(), node))
                .map(ResourceID::fromResource)
                .collect(Collectors.toSet());
    }

    private boolean acknowledged(String uid, String node) {
        Ledger l = ledgers.get(uid);
        return l != null && l.acks.containsKey(node);
    }

    @Override
    public UpdateControl<CachePurge> reconcile(CachePurge cp, Context<CachePurge> context) {
        String uid = cp.getMetadata().getUid();
        CachePurgeStatus previous = cp.getStatus();
        if (PurgeProgress.isFinal(previous)) {
            return UpdateControl.noUpdate();
        }
        Instant now = clock.instant();
        // a ledger unused for five slow retries belongs to a CachePurge that was deleted, or is final
        ledgers.values().removeIf(l -> l.lastUsed.isBefore(now.minus(lateRetry.multipliedBy(5))));
        Ledger ledger = ledgers.computeIfAbsent(uid, u -> new Ledger(now));
        ledger.lastUsed = now;
        if (ledger.finalStatus.get() != null) {
            // made final by this operator; the status read here is from before that write (or it failed)
            return UpdateControl.patchStatus(statusOnly(cp, ledger.finalStatus.get()));
        }
        Instant deadline = Instant.parse(cp.getMetadata().getCreationTimestamp())
                .plusSeconds(Objects.requireNonNullElse(cp.getSpec().deadlineSeconds(), 600));
        KubernetesClient client = context.getClient();
        String ns = cp.getMetadata().getNamespace();
        long generation = Objects.requireNonNullElse(cp.getMetadata().getGeneration(), 1L);
        VideoEdge ve = client.resources(VideoEdge.class)
                .inNamespace(ns)
                .withName(cp.getSpec().videoEdge())
                .get();
        PurgeProgress.Decision decision;
        if (ve == null) {
            decision = PurgeProgress.videoEdgeMissing(
                    generation, previous, cp.getSpec().videoEdge(), now, deadline);
        } else {
            Set<String> targets = targets(client, ve);
            SortedSet<String> toCall = PurgeProgress.toCall(previous, targets, ledger.acks);
            if (!toCall.isEmpty()) {
                call(client, cp, ve, toCall, ledger, deadline);
            }
            decision = PurgeProgress.decide(
                    generation, previous, targets, ledger.acks, ledger.failures, clock.instant(), deadline, lateRetry);
        }
        if (decision.isFinal()) {
            ledger.finalStatus.set(decision.status());
        }
        for (PurgeProgress.Transition t : decision.transitions()) {
            if (!ledger.recorded.add(t.outcome())) continue; // recorded by an earlier pass of this operator
            metrics.finished(t.outcome(), 1);
            log.info("CachePurge {} {}: {}", Names.namespacedName(cp), t.outcome(), t.message());
            new EventRecorder(client, identity, clock)
                    .record(cp, List.of(new TransitionEvents.Notice(t.eventType(), t.eventReason(), t.message())));
        }
        UpdateControl<CachePurge> control = decision.status().equals(previous)
                ? UpdateControl.noUpdate()
                : UpdateControl.patchStatus(statusOnly(cp, decision.status()));
        return decision.recheck() == null ? control : control.rescheduleAfter(decision.recheck());
    }

    /** The nodes of the VideoEdge: those with its NodeTuning, and those running its edge-server pod. */
    static Set<String> targets(KubernetesClient client, VideoEdge ve) {
        Set<String> targets = new TreeSet<>();
        String name = ve.getMetadata().getName();
        String ns = ve.getMetadata().getNamespace();
        for (NodeTuning nt : client.resources(NodeTuning.class)
                .withLabel(VideoEdgeApi.LABEL_OWNER_NAME, name)
                .withLabel(VideoEdgeApi.LABEL_OWNER_NAMESPACE, ns)
                .list()
                .getItems()) {
            if (nt.getMetadata().getDeletionTimestamp() == null)
                targets.add(nt.getMetadata().getName());
        }
        for (Pod pod : client.pods()
                .inNamespace(ns)
                .withLabelSelector(Names.EDGE_SERVER_SELECTOR)
                .withLabel(VideoEdgeApi.LABEL_OWNER_NAME, name)
                .list()
                .getItems()) {
            if (pod.getSpec() != null && pod.getSpec().getNodeName() != null)
                targets.add(pod.getSpec().getNodeName());
        }
        return targets;
    }

    private void call(
            KubernetesClient client,
            CachePurge cp,
            VideoEdge ve,
            SortedSet<String> toCall,
            Ledger ledger,
            Instant deadline) {
        Optional<String> token = token(client, ve);
        if (token.isEmpty()) {
            Instant at = clock.instant();
            String message = "the Secret " + Names.adminToken(ve) + " with the edge servers' admin token is missing";
            toCall.forEach(
                    n -> ledger.failures.put(n, new PurgeProgress.Attempt(at, CachePurge.NO_ADMIN_TOKEN, message)));
            return;
        }
        Semaphore slots = new Semaphore(PARALLEL_CALLS);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> calls = new ArrayList<>();
            for (String node : toCall) {
                calls.add(pool.submit(() -> {
                    slots.acquireUninterruptibly();
                    try {
                        record(cp, node, callOne(client, cp, node, token.get()), ledger, deadline);
                    } finally {
                        slots.release();
                    }
                }));
            }
            for (Future<?> f : calls) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    log.warn("Purge call failed: {}", e.getCause().toString());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private NodeCall callOne(KubernetesClient client, CachePurge cp, String nodeName, String token) {
        Node node = client.nodes().withName(nodeName).get();
        Optional<URI> admin = node == null ? Optional.empty() : endpoints.admin(node);
        if (admin.isEmpty()) {
            return new NodeCall.Unreachable(
                    CachePurge.NO_ADDRESS, node == null ? "the Node is gone" : "the Node has no InternalIP address");
        }
        return nodes.purge(admin.get(), token, cp.getSpec(), cp.getMetadata().getUid());
    }

    private void record(CachePurge cp, String node, NodeCall result, Ledger ledger, Instant deadline) {
        metrics.call(result);
        Instant at = clock.instant();
        switch (result) {
            case NodeCall.Acknowledged a -> {
                Instant applied = a.appliedAt() != null ? a.appliedAt() : at;
                ledger.acks.put(node, new PurgeProgress.Ack(applied, a.memory(), a.disk(), a.fills()));
                ledger.failures.remove(node);
                log.info(
                        "CachePurge {}: node {} acknowledged (removed memory {}, disk {}, fills {}; applied {}{}{})",
                        Names.namespacedName(cp),
                        node,
                        a.memory(),
                        a.disk(),
                        a.fills(),
                        applied,
                        applied.isAfter(deadline) ? ", after the deadline " + deadline : "",
                        a.repeated() ? "; applied earlier under the same id" : "");
            }
            case NodeCall.Refused r -> {
                ledger.failures.put(node, new PurgeProgress.Attempt(at, CachePurge.REFUSED, r.message()));
                log.warn("CachePurge {}: node {} refused: {}", Names.namespacedName(cp), node, r.message());
            }
            case NodeCall.Unreachable u -> {
                ledger.failures.put(node, new PurgeProgress.Attempt(at, u.reason(), u.message()));
                log.info(
                        "CachePurge {}: node {} not reached, tried again: {}",
                        Names.namespacedName(cp),
                        node,
                        u.message());
            }
        }
    }

    private static Optional<String> token(KubernetesClient client, VideoEdge ve) {
        Secret s = client.secrets()
                .inNamespace(ve.getMetadata().getNamespace())
                .withName(Names.adminToken(ve))
                .get();
        if (s == null || s.getData() == null || s.getData().get(TOKEN_KEY) == null) return Optional.empty();
        String token =
                new String(Base64.getDecoder().decode(s.getData().get(TOKEN_KEY)), StandardCharsets.UTF_8).strip();
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
    }

    private static CachePurge statusOnly(CachePurge cp, CachePurgeStatus status) {
        CachePurge patch = new CachePurge();
        patch.getMetadata().setName(cp.getMetadata().getName());
        patch.getMetadata().setNamespace(cp.getMetadata().getNamespace());
        patch.setStatus(status);
        return patch;
    }
}
