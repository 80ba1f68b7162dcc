package io.videoedge.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.cache.ReducedStateItemStore;
import io.javaoperatorsdk.operator.api.config.informer.FieldSelector;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.api.reconciler.dependent.RecentOperationCacheFiller;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.videoedge.api.Conditions;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.TlsMode;
import io.videoedge.api.TuningMode;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeStatus;
import io.videoedge.operator.config.OperatorSettings;
import io.videoedge.operator.dependent.EdgeConfigMap;
import io.videoedge.operator.dependent.EdgePlan;
import io.videoedge.operator.dependent.EdgePodMonitor;
import io.videoedge.operator.dependent.EdgeServerDaemonSet;
import io.videoedge.operator.dependent.EventSources;
import io.videoedge.operator.dependent.PrometheusOperatorPresent;
import io.videoedge.operator.health.NodeHealth;
import io.videoedge.operator.placement.AgentLabels;
import io.videoedge.operator.placement.NodePlacement;
import io.videoedge.operator.placement.Orphans;
import io.videoedge.operator.placement.Taints;
import io.videoedge.operator.render.EdgeServerConfigRenderer;
import io.videoedge.operator.render.Names;
import io.videoedge.operator.render.TuningInputs;
import io.videoedge.operator.rollout.NodeDecision;
import io.videoedge.operator.rollout.NodeView;
import io.videoedge.operator.rollout.RolloutPlan;
import io.videoedge.operator.rollout.RolloutPlanner;
import io.videoedge.operator.rollout.RolloutPolicy;
import io.videoedge.operator.rollout.RolloutTarget;
import io.videoedge.operator.status.EventRecorder;
import io.videoedge.operator.status.NodeFindings;
import io.videoedge.operator.status.NodeReport;
import io.videoedge.operator.status.StatusAggregator;
import io.videoedge.operator.status.StatusMetrics;
import io.videoedge.operator.status.StatusPacing;
import io.videoedge.operator.status.TransitionEvents;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * VideoEdge -> a config, an edge-server DaemonSet, one NodeTuning per owned node, and a PodMonitor
 * where the Prometheus Operator is installed. reconcile() places the nodes ({@link NodePlacement}),
 * validates ({@link SpecValidation}), lets the rollout decide each node's tuning and pod
 * ({@link RolloutPlanner}), writes the NodeTunings ({@link NodeTuningWriter}, side by side) and runs
 * the workflow (the other dependents render), then the effects the rollout asked for (readiness gates,
 * evictions), and builds the status ({@link NodeFindings}, {@link StatusAggregator}).
 */
@Workflow(
        explicitInvocation = true,
        dependents = {
            @Dependent(name = "config", type = EdgeConfigMap.class),
            @Dependent(name = "edge-server", type = EdgeServerDaemonSet.class, dependsOn = "config"),
            @Dependent(
                    name = "pod-monitor",
                    type = EdgePodMonitor.class,
                    activationCondition = PrometheusOperatorPresent.class),
        })
@ControllerConfiguration(name = VideoEdgeReconciler.NAME)
public class VideoEdgeReconciler implements Reconciler<VideoEdge>, Cleaner<VideoEdge> {
    public static final String NAME = "videoedge";
    /**
     * What the operator reads of a Node (placement: labels, deletion; capacity: allocatable; a server kept off:
     * taints); the informer
     * keeps nothing else (name, namespace and resourceVersion are kept anyway).
     */
    static final String[] NODE_FIELDS = {
        "metadata.labels", "metadata.deletionTimestamp", "status.allocatable", "spec.taints"
    };

    /**
     * The page size of an informer's LIST (its first sync, and each relist after a watch expired): an
     * unpaged LIST of 5,000 Nodes is one response the client holds and parses whole; in pages of 500, as
     * client-go's reflectors do, one page at a time.
     */
    static final long LIST_PAGE = 500;

    private static final Logger log = LoggerFactory.getLogger(VideoEdgeReconciler.class);

    private final OperatorSettings settings;
    private final Clock clock;
    private final StatusMetrics metrics;
    private final StatusPacing pacing = StatusPacing.standard();
    private final NodeTuningWriter nodeTunings = new NodeTuningWriter();
    /** When this operator last wrote each VideoEdge's status (for the pacing; forgotten on delete). */
    private final Map<ResourceID, Instant> statusWrites = new ConcurrentHashMap<>();

    public VideoEdgeReconciler(OperatorSettings settings, Clock clock, StatusMetrics metrics) {
        this.settings = settings;
        this.clock = clock;
        this.metrics = metrics;
    }

    @Override
    public UpdateControl<VideoEdge> reconcile(VideoEdge ve, Context<VideoEdge> context) {
        Instant now = clock.instant();
        Cluster cluster = Cluster.of(context);
        SortedMap<String, NodePlacement.Claim> claims =
                NodePlacement.place(ve, cluster.videoEdges(), cluster.nodes(), cluster.tunings());
        for (NodeTuning orphan :
                Orphans.toDelete(claims, cluster.videoEdges(), cluster.tunings(), holder -> exists(context, holder))) {
            log.info(
                    "Deleting NodeTuning {}: its VideoEdge {} no longer exists",
                    orphan.getMetadata().getName(),
                    Names.ownerOf(orphan).orElse("(none)"));
            context.getClient().resource(orphan).delete();
        }
        SortedMap<String, Node> owned = new TreeMap<>();
        SortedMap<String, String> conflicts = new TreeMap<>();
        SortedMap<String, String> contested = new TreeMap<>();
        SortedMap<String, String> heldByNewer = new TreeMap<>();
        SortedSet<String> excluded = new TreeSet<>();
        claims.values().forEach(c -> {
            switch (c.state()) {
                case OWNED -> {
                    owned.put(c.node(), cluster.nodesByName().get(c.node()));
                    if (c.contested()) contested.put(c.node(), c.holder());
                }
                case CONFLICT -> {
                    conflicts.put(c.node(), c.holder());
                    excluded.add(c.node());
                }
                case HELD_BY_NEWER -> {
                    heldByNewer.put(c.node(), c.holder());
                    excluded.add(c.node());
                }
                case AWAITING_RELEASE -> excluded.add(c.node());
            }
        });
        ReferencedSecrets secrets = ReferencedSecrets.read(ve, context.getClient());
        List<String> problems = SpecValidation.problems(ve, secrets, owned.values());

        StatusAggregator status = new StatusAggregator(ve, now);
        RolloutPlan rollout = null;
        Instant ticketKeysDue = null;
        if (problems.isEmpty()) {
            if (EdgeServerConfigRenderer.sharesTicketKeys(ve.getSpec())) {
                // before the pods that mount it: the keys every edge server shares, rotated on schedule
                ticketKeysDue = TicketKeySecret.ensure(context.getClient(), ve, now);
            }
            // before the pods that mount it: the token of the servers' admin endpoint (CachePurge)
            AdminTokenSecret.ensure(context.getClient(), ve);
            rollout = rollOut(ve, context, cluster, owned, excluded, secrets.originCa(), now);
        } else {
            // nothing is rolled out: what runs keeps running as it was
            status.error(Conditions.INVALID_SPEC, String.join("; ", problems));
            status.notProgressing(Conditions.INVALID_SPEC, "nothing rolls out until the spec is fixed");
        }
        boolean planMode = ve.getSpec().tuning().mode() == TuningMode.PLAN;
        NodeFindings.report(
                status,
                reports(ve, claims, cluster, rollout),
                conflicts,
                contested,
                heldByNewer,
                planMode,
                rollout != null,
                rollout);

        VideoEdgeStatus next = status.build(ve.getStatus());
        metrics.record(ve, next);
        List<TransitionEvents.Notice> notices = new ArrayList<>(TransitionEvents.between(ve.getStatus(), next));
        if (rollout != null) {
            rollout.events().forEach(e -> {
                notices.add(new TransitionEvents.Notice(e.type(), e.reason(), e.message()));
                metrics.nodeFailed(ve);
            });
        }
        UpdateControl<VideoEdge> control = UpdateControl.noUpdate();
        Optional<Duration> recheck = Optional.empty();
        if (!next.equals(ve.getStatus())) {
            ResourceID id = ResourceID.fromResource(ve);
            // moved counts wait for the pacing interval (then this pass's successor writes what is true then)
            recheck = pacing.defer(ve.getStatus(), next, statusWrites.get(id), now);
            if (recheck.isEmpty()) {
                control = UpdateControl.patchStatus(statusOnly(ve, next));
                statusWrites.put(id, now);
            }
        }
        EventRecorder.of(context, settings).record(ve, notices);
        if (rollout == null) {
            // the Secrets are not watched: look again in a while
            recheck = sooner(recheck, settings.recheckInterval());
        } else {
            // a soak, a drain or a deadline ends with no event to say so: look again then
            Optional<Duration> turn = RolloutPlanner.recheck(rollout, views(ve, owned.keySet(), cluster), now);
            if (turn.isPresent()) {
                recheck = sooner(recheck, turn.get());
            }
            if (secrets.anyToRecheck()) {
                // the Secrets are not watched either: read them again in a while (a new origin CA bundle rolls the
                // servers; a signing key Secret that appears or goes changes the Ready condition)
                recheck = sooner(recheck, settings.recheckInterval());
            }
            if (ticketKeysDue != null) {
                recheck = sooner(recheck, Duration.between(now, ticketKeysDue));
            }
        }
        return recheck.isPresent() ? control.rescheduleAfter(recheck.get()) : control;
    }

    /**
     * The rollout of a valid spec: decide each node (pure), label the nodes whose agent must run (before
     * their first NodeTuning), write the NodeTunings and run the workflow (what was decided), then the
     * readiness gates and the evictions the rollout asked for.
     */
    private RolloutPlan rollOut(
            VideoEdge ve,
            Context<VideoEdge> context,
            Cluster cluster,
            SortedMap<String, Node> owned,
            SortedSet<String> excluded,
            Optional<Secret> originCa,
            Instant now) {
        EdgePlan.Server server = EdgePlan.Server.of(ve, settings, originCa);
        RolloutTarget target = RolloutTarget.of(TuningInputs.of(ve.getSpec()), server.podRevision());
        RolloutPlan plan = RolloutPlanner.plan(
                target, RolloutPolicy.of(ve.getSpec(), owned.size()), views(ve, owned.keySet(), cluster), now);
        NodeLabels.apply(
                context.getClient(),
                AgentLabels.changes(cluster.nodes(), cluster.tunings(), owned.keySet(), cluster.videoEdges()));
        EdgePlan edges = server.with(plan.nodes(), excluded, cluster.podsByNode());
        nodeTunings.sync(ve, edges, cluster.tunings(), context);
        edges.putInto(context);
        EdgePodMonitor.putInto(context, settings);
        context.managedWorkflowAndDependentResourceContext()
                .reconcileManagedWorkflow()
                .throwAggregateExceptionIfErrorsPresent();
        RecentOperationCacheFiller<Pod> podCache = Cluster.podCache(context);
        List<ReadinessGates.Patch> gates = new ArrayList<>();
        List<NodeDecision> evictions = new ArrayList<>();
        for (NodeDecision d : plan.nodes().values()) {
            Pod pod = cluster.podsByNode().get(d.node());
            if (pod == null || pod.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            ReadinessGates.needed(
                            pod, ReadinessGates.desired(pod, cluster.tunings().get(d.node()), d, now))
                    .ifPresent(gates::add);
            if (d.podAction() == NodeDecision.PodAction.EVICT) {
                evictions.add(d);
            }
        }
        // the gates first: a pod the rollout drains is out of service before it is evicted
        ParallelWrites.each(gates, g -> ReadinessGates.patch(context.getClient(), podCache, g));
        evictions.forEach(d -> PodEvictions.evict(
                context.getClient(),
                cluster.podsByNode().get(d.node()),
                d.message() + " (revision " + target.key() + ")"));
        return plan;
    }

    /**
     * Whether a VideoEdge (namespace/name) the operator's cache does not hold exists all the same: asked of the API
     * server (it may be in a namespace this operator does not watch). When that cannot be told, it is taken to
     * exist: a NodeTuning is deleted only for an owner known to be gone.
     */
    private static boolean exists(Context<VideoEdge> context, String holder) {
        int slash = holder.indexOf('/');
        if (slash < 0) {
            return true;
        }
        try {
            return context.getClient()
                            .resources(VideoEdge.class)
                            .inNamespace(holder.substring(0, slash))
                            .withName(holder.substring(slash + 1))
                            .get()
                    != null;
        } catch (KubernetesClientException e) {
            log.warn("Cannot tell whether VideoEdge {} exists (its NodeTunings are kept): {}", holder, e.getMessage());
            return true;
        }
    }

    /**
     * Whether a Node's update changed what the operator reads of it ({@link #NODE_FIELDS}: its labels select it,
     * its allocatable sizes the server, its deletion releases it, its taints may keep the server off it).
     */
    static boolean readChanged(Node n, Node old) {
        return !Objects.equals(n.getMetadata().getLabels(), old.getMetadata().getLabels())
                || !Objects.equals(allocatable(n), allocatable(old))
                || !Objects.equals(
                        n.getMetadata().getDeletionTimestamp(),
                        old.getMetadata().getDeletionTimestamp())
                || !Objects.equals(taints(n), taints(old));
    }

    private static Object allocatable(Node n) {
        return n.getStatus() == null ? null : n.getStatus().getAllocatable();
    }

    private static Object taints(Node n) {
        return n.getSpec() == null ? null : n.getSpec().getTaints();
    }

    /** The sooner of a look-again time already asked for (if any) and {@code other}. */
    private static Optional<Duration> sooner(Optional<Duration> asked, Duration other) {
        return Optional.of(asked.filter(d -> d.compareTo(other) < 0).orElse(other));
    }

    private static List<NodeView> views(VideoEdge ve, Set<String> nodes, Cluster cluster) {
        return nodes.stream()
                .map(n -> new NodeView(
                        n, cluster.tunings().get(n), cluster.podsByNode().get(n), untoleratedTaint(ve, n, cluster)))
                .toList();
    }

    /** A taint that keeps the VideoEdge's edge-server pod off the node, null for none (or no such node). */
    private static String untoleratedTaint(VideoEdge ve, String node, Cluster cluster) {
        Node n = cluster.nodesByName().get(node);
        return n == null
                ? null
                : Taints.untolerated(n, ve.getSpec().tolerations()).orElse(null);
    }

    /** A report per counted node (owned, or awaiting another VideoEdge's release), in node order. */
    private static List<NodeReport> reports(
            VideoEdge ve, SortedMap<String, NodePlacement.Claim> claims, Cluster cluster, RolloutPlan rollout) {
        TlsMode https = EdgeServerConfigRenderer.servesHttps(ve.getSpec())
                ? ve.getSpec().tls().mode()
                : null;
        List<NodeReport> reports = new ArrayList<>();
        for (NodePlacement.Claim claim : claims.values()) {
            String node = claim.node();
            switch (claim.state()) {
                case CONFLICT, HELD_BY_NEWER -> {}
                case AWAITING_RELEASE ->
                    reports.add(NodeReport.notOurs(
                            node,
                            NodeHealth.Tuning.PENDING,
                            "waiting for the NodeTuning of " + claim.holder()
                                    + " to be released (its agent restores the node first)"));
                case OWNED ->
                    reports.add(NodeReport.of(
                            node,
                            cluster.tunings().get(node),
                            cluster.podsByNode().get(node),
                            rollout == null ? null : rollout.nodes().get(node),
                            rollout == null ? null : rollout.target().tuningRevision(),
                            https,
                            ve.getSpec().nic().interfaces(),
                            untoleratedTaint(ve, node, cluster)));
            }
        }
        return reports;
    }

    @Override
    public DeleteControl cleanup(VideoEdge ve, Context<VideoEdge> context) {
        Cluster cluster = Cluster.of(context);
        List<NodeTuning> remaining = cluster.tunings().values().stream()
                .filter(nt -> Names.ownedBy(nt, ve))
                .sorted(Comparator.comparing(nt -> nt.getMetadata().getName()))
                .toList();
        // the workflow's dependents (config, DaemonSet, PodMonitor) are owned: the API server's garbage
        // collector deletes them with the VideoEdge; the NodeTunings (cluster-scoped) are deleted here
        nodeTunings.deleteAll(remaining, context);
        // the agents of restored nodes may go (theirs only: other VideoEdges' nodes keep theirs)
        NodeLabels.apply(
                context.getClient(),
                AgentLabels.changes(cluster.nodes(), cluster.tunings(), Set.of(), cluster.videoEdges()));
        if (remaining.isEmpty()) {
            log.info("All NodeTunings of {} are gone: the nodes are restored", Names.namespacedName(ve));
            metrics.remove(ve);
            statusWrites.remove(ResourceID.fromResource(ve));
            return DeleteControl.defaultDelete();
        }
        // the agents restore each node's originals, then release their finalizers
        StatusAggregator status = new StatusAggregator(ve, clock.instant());
        remaining.forEach(nt -> status.node(
                NodeReport.notOurs(
                        nt.getMetadata().getName(),
                        NodeHealth.Tuning.PENDING,
                        "restoring the node's originals (NodeTuning deleted)"),
                true));
        String nodes = StatusAggregator.list(
                remaining.stream().map(nt -> nt.getMetadata().getName()).toList());
        status.notReady(
                Conditions.TUNING_APPLIED,
                Conditions.RESTORING,
                "deleting: waiting for the node agents to restore " + nodes);
        status.notReady(
                Conditions.SERVER_AVAILABLE,
                Conditions.RESTORING,
                "deleting: the edge servers go with the VideoEdge (garbage collected)");
        status.notProgressing(Conditions.RESTORING, "deleting: nothing rolls out");
        VideoEdgeStatus next = status.build(ve.getStatus());
        metrics.record(ve, next);
        if (!next.equals(ve.getStatus())) {
            // cleanup has no UpdateControl: JOSDK's SSA status patch, cached for the rescheduled pass
            PrimaryUpdateAndCacheUtils.ssaPatchStatusAndCacheResource(ve, statusOnly(ve, next), context);
        }
        return DeleteControl.noFinalizerRemoval().rescheduleAfter(settings.recheckInterval());
    }

    @Override
    public ErrorStatusUpdateControl<VideoEdge> updateErrorStatus(
            VideoEdge ve, Context<VideoEdge> context, Exception e) {
        log.warn("Reconciling {} failed: {}", Names.namespacedName(ve), e.getMessage());
        if (conflict(e)) {
            return ErrorStatusUpdateControl.defaultErrorProcessing(); // someone else wrote first: the retry sees it
        }
        VideoEdgeStatus next = StatusAggregator.reconcileFailed(
                ve,
                ve.getStatus(),
                clock.instant(),
                "the operator could not reconcile this VideoEdge and retries: "
                        + Objects.toString(e.getMessage(), e.getClass().getSimpleName()));
        if (next.equals(ve.getStatus())) {
            return ErrorStatusUpdateControl.defaultErrorProcessing();
        }
        return ErrorStatusUpdateControl.patchStatus(statusOnly(ve, next));
    }

    private static boolean conflict(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof KubernetesClientException k && k.getCode() == 409) {
                return true;
            }
        }
        return false;
    }

    /**
     * The status alone, for server-side apply: no spec fields claimed and, through an UpdateControl, no
     * resourceVersion (no conflict with a spec edit made meanwhile; the operator is the status' only writer).
     */
    private static VideoEdge statusOnly(VideoEdge ve, VideoEdgeStatus status) {
        VideoEdge patch = new VideoEdge();
        patch.getMetadata().setName(ve.getMetadata().getName());
        patch.getMetadata().setNamespace(ve.getMetadata().getNamespace());
        patch.setStatus(status);
        return patch;
    }

    @Override
    public List<EventSource<?, VideoEdge>> prepareEventSources(EventSourceContext<VideoEdge> context) {
        AtomicReference<InformerEventSource<Node, VideoEdge>> nodes = new AtomicReference<>();
        AtomicReference<InformerEventSource<NodeTuning, VideoEdge>> tunings = new AtomicReference<>();
        Function<Node, Stream<ResourceID>> selectors = n -> context.getPrimaryCache()
                .list(ve -> NodePlacement.selects(ve, n))
                .map(ResourceID::fromResource);
        Function<String, Stream<ResourceID>> selecting =
                node -> nodes.get().get(new ResourceID(node)).stream().flatMap(selectors);
        Function<String, Stream<ResourceID>> holder =
                node -> tunings.get().get(new ResourceID(node)).stream().flatMap(nt -> owner(nt).stream());

        // a node's labels, allocatable, taints or existence changed: the VideoEdges selecting it or holding its
        // NodeTuning.
        // Every Node in the cluster is watched (a selector is any VideoEdge's), but only what the operator reads
        // of one is kept: the bulk of a Node (images, conditions, addresses, node info) is dropped as it arrives
        nodes.set(new InformerEventSource<>(
                InformerEventSourceConfiguration.from(Node.class, VideoEdge.class)
                        .withName(EventSources.NODES)
                        .withInformerListLimit(LIST_PAGE)
                        .withItemStore(new ReducedStateItemStore<>(
                                ReducedStateItemStore.NAME_KEY_STATE,
                                Node.class,
                                context.getClient().getKubernetesSerialization(),
                                NODE_FIELDS))
                        .withSecondaryToPrimaryMapper(n -> Stream.concat(
                                        selectors.apply(n),
                                        holder.apply(n.getMetadata().getName()))
                                .collect(Collectors.toSet()))
                        .withOnUpdateFilter(VideoEdgeReconciler::readChanged)
                        .build(),
                context));
        // a NodeTuning changed: its owner, and whoever else selects that node (it may be waiting for it)
        tunings.set(new InformerEventSource<>(
                InformerEventSourceConfiguration.from(NodeTuning.class, VideoEdge.class)
                        .withName(EventSources.NODE_TUNINGS)
                        .withInformerListLimit(LIST_PAGE)
                        .withLabelSelector(Names.MANAGED_SELECTOR)
                        .withItemStore(LeanItemStore.nodeTunings())
                        .withSecondaryToPrimaryMapper(nt -> Stream.concat(
                                        owner(nt).stream(),
                                        selecting.apply(nt.getMetadata().getName()))
                                .collect(Collectors.toSet()))
                        .build(),
                context));
        var pods = new InformerEventSource<>(
                InformerEventSourceConfiguration.from(Pod.class, VideoEdge.class)
                        .withName(EventSources.PODS)
                        .withInformerListLimit(LIST_PAGE)
                        .withLabelSelector(Names.EDGE_SERVER_SELECTOR)
                        .withItemStore(LeanItemStore.slimPods())
                        .withSecondaryToPrimaryMapper(
                                pod -> owner(pod).map(Set::of).orElse(Set.of()))
                        .build(),
                context);
        // one CRD, by name: the PodMonitor's activation condition reads it; installing the Prometheus Operator
        // re-triggers all
        var monitoringCrd = new InformerEventSource<>(
                InformerEventSourceConfiguration.from(CustomResourceDefinition.class, VideoEdge.class)
                        .withName(EventSources.MONITORING_CRD)
                        .withFieldSelector(new FieldSelector(
                                new FieldSelector.Field("metadata.name", PrometheusOperatorPresent.CRD_NAME)))
                        .withSecondaryToPrimaryMapper(crd -> context.getPrimaryCache()
                                .list()
                                .map(ResourceID::fromResource)
                                .collect(Collectors.toCollection(HashSet::new)))
                        .build(),
                context);
        return List.of(nodes.get(), tunings.get(), pods, monitoringCrd);
    }

    private static Optional<ResourceID> owner(HasMetadata r) {
        return Names.ownerOf(r).map(o -> {
            int slash = o.indexOf('/');
            return new ResourceID(o.substring(slash + 1), o.substring(0, slash));
        });
    }
}
