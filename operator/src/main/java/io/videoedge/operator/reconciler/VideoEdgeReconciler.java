package io.videoedge.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClientException;
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
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.videoedge.api.Conditions;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.TuningMode;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeStatus;
import io.videoedge.operator.OperatorSettings;
import io.videoedge.operator.dependent.EdgeConfigMap;
import io.videoedge.operator.dependent.EdgePodMonitor;
import io.videoedge.operator.dependent.EdgeServerDaemonSet;
import io.videoedge.operator.dependent.NodeTunings;
import io.videoedge.operator.dependent.PrometheusOperatorPresent;
import io.videoedge.operator.render.EdgeServerConfigRenderer;
import io.videoedge.operator.status.EventRecorder;
import io.videoedge.operator.status.NodeReport;
import io.videoedge.operator.status.StatusAggregator;
import io.videoedge.operator.status.StatusMetrics;
import io.videoedge.operator.status.TransitionEvents;
import java.time.Clock;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * VideoEdge -> a config, an edge-server DaemonSet, one NodeTuning per owned node, and a PodMonitor
 * where the Prometheus Operator is installed. reconcile() only places the nodes, validates, runs
 * the workflow and builds the status; the dependents render.
 */
@Workflow(explicitInvocation = true, dependents = {
    @Dependent(name = "config", type = EdgeConfigMap.class),
    @Dependent(name = "edge-server", type = EdgeServerDaemonSet.class, dependsOn = "config"),
    @Dependent(name = "node-tunings", type = NodeTunings.class, useEventSourceWithName = VideoEdgeReconciler.NODE_TUNINGS),
    @Dependent(name = "pod-monitor", type = EdgePodMonitor.class, activationCondition = PrometheusOperatorPresent.class),
})
@ControllerConfiguration(name = VideoEdgeReconciler.NAME)
public class VideoEdgeReconciler implements Reconciler<VideoEdge>, Cleaner<VideoEdge> {
  public static final String NAME = "videoedge";
  public static final String NODES = "nodes";
  public static final String NODE_TUNINGS = "nodetunings";
  public static final String PODS = "edge-server-pods";
  public static final String MONITORING_CRD = "monitoring-crd";
  private static final Logger log = LoggerFactory.getLogger(VideoEdgeReconciler.class);
  private static final int LISTED_NODES = 5;

  private final OperatorSettings settings;
  private final Clock clock;
  private final StatusMetrics metrics;

  public VideoEdgeReconciler(OperatorSettings settings, Clock clock, StatusMetrics metrics) {
    this.settings = settings;
    this.clock = clock;
    this.metrics = metrics;
  }

  @Override
  public UpdateControl<VideoEdge> reconcile(VideoEdge ve, Context<VideoEdge> context) {
    Cluster cluster = Cluster.of(context);
    SortedMap<String, NodePlacement.Claim> claims = NodePlacement.place(ve, cluster.videoEdges(), cluster.nodes(), cluster.tunings());
    releaseOrphans(claims, cluster, context);

    SortedMap<String, Node> owned = new TreeMap<>();
    SortedSet<String> excluded = new TreeSet<>();
    claims.values().forEach(c -> {
      if (c.state() == NodePlacement.State.OWNED) {
        owned.put(c.node(), cluster.node(c.node()));
      } else {
        excluded.add(c.node());
      }
    });
    Map<String, Pod> pods = podsByNode(context.getSecondaryResourcesAsStream(Pod.class));
    List<String> problems = SpecValidation.problems(ve, tlsSecret(ve, context), owned.values());

    StatusAggregator status = new StatusAggregator(ve, clock.instant());
    boolean valid = problems.isEmpty();
    if (valid) {
      EdgePlan.plan(ve, settings, owned, excluded, pods).putInto(context);
      context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow()
          .throwAggregateExceptionIfErrorsPresent();
    } else {
      // nothing is rolled out: what runs keeps running as it was
      status.error(Conditions.INVALID_SPEC, String.join("; ", problems));
    }
    reportNodes(ve, claims, cluster, pods, valid, status, context);

    VideoEdgeStatus next = status.build(ve.getStatus());
    metrics.record(ve, next);
    UpdateControl<VideoEdge> control = UpdateControl.noUpdate();
    if (!next.equals(ve.getStatus())) {
      EventRecorder.of(context, settings).record(ve, TransitionEvents.between(ve.getStatus(), next));
      control = UpdateControl.patchStatus(statusOnly(ve, next));
    }
    // the TLS Secret is not watched: look again in a while
    return valid ? control : control.rescheduleAfter(settings.recheckInterval());
  }

  /** Per-node reports into the aggregator, readiness gates on our pods, then the conditions they imply. */
  private void reportNodes(VideoEdge ve, SortedMap<String, NodePlacement.Claim> claims, Cluster cluster,
      Map<String, Pod> pods, boolean valid, StatusAggregator status, Context<VideoEdge> context) {
    long generation = ve.getMetadata().getGeneration();
    boolean planMode = ve.getSpec().tuning().mode() == TuningMode.PLAN;
    boolean kernelTls = EdgeServerConfigRenderer.usesKernelTls(ve.getSpec());
    Map<String, String> conflicts = new TreeMap<>();
    List<NodeReport> notTuned = new java.util.ArrayList<>();
    List<NodeReport> planned = new java.util.ArrayList<>();
    List<NodeReport> notServing = new java.util.ArrayList<>();
    List<NodeReport> failed = new java.util.ArrayList<>();
    List<NodeReport> degraded = new java.util.ArrayList<>();
    List<String> noKernelTls = new java.util.ArrayList<>();
    int counted = 0;
    for (NodePlacement.Claim claim : claims.values()) {
      String node = claim.node();
      if (claim.state() == NodePlacement.State.CONFLICT) {
        conflicts.put(node, claim.holder());
        status.node(NodeReport.notOurs(node, NodeReport.Tuning.CONFLICT,
            "selected by the older VideoEdge " + claim.holder() + ", which keeps this node"), false);
        continue;
      }
      counted++;
      NodeReport report;
      if (claim.state() == NodePlacement.State.AWAITING_RELEASE) {
        report = NodeReport.notOurs(node, NodeReport.Tuning.PENDING, "waiting for the NodeTuning of " + claim.holder()
            + " to be released (its agent restores the node first)");
      } else {
        NodeTuning nt = cluster.tunings().get(node);
        // an invalid spec was not rolled out: judge the nodes by what was
        long target = valid || nt == null || nt.getSpec().source() == null ? generation : nt.getSpec().source().generation();
        Pod pod = pods.get(node);
        report = NodeReport.of(node, nt, pod, target, kernelTls, ve.getSpec().nic().interfaces());
        if (valid && pod != null && pod.getMetadata().getDeletionTimestamp() == null) {
          ReadinessGates.ensure(context.getClient(), pod,
              ReadinessGates.desired(pod, report, nt, planMode, generation, clock.instant()));
        }
      }
      status.node(report, true);
      if (report.tuning() == NodeReport.Tuning.PLANNED && planMode) {
        planned.add(report);
      } else if (!report.tuned()) {
        notTuned.add(report);
      }
      if (report.tuning() == NodeReport.Tuning.FAILED) {
        failed.add(report);
      }
      if (report.tuning() == NodeReport.Tuning.DEGRADED) {
        degraded.add(report);
      }
      if (!report.serving()) {
        notServing.add(report);
      }
      if (report.kernelTlsUnavailable()) {
        noKernelTls.add(node);
      }
    }

    if (!conflicts.isEmpty()) {
      String message = conflicts.entrySet().stream()
          .collect(Collectors.groupingBy(Map.Entry::getValue, TreeMap::new,
              Collectors.mapping(Map.Entry::getKey, Collectors.toList())))
          .entrySet().stream()
          .map(e -> "node " + list(e.getValue()) + " is also selected by the older VideoEdge " + e.getKey()
              + ", which keeps it")
          .collect(Collectors.joining("; "));
      status.warning(Conditions.CONFLICT, message);
      if (counted == 0) {
        status.notReady(Conditions.TUNING_APPLIED, Conditions.CONFLICT, message);
        status.notReady(Conditions.SERVER_AVAILABLE, Conditions.CONFLICT, message);
      }
    }
    if (!notTuned.isEmpty()) {
      // an invalid spec was not rolled out: the nodes are judged by the generation they were given
      status.notReady(Conditions.TUNING_APPLIED, Conditions.NODE_NOT_TUNED,
          (valid ? "not tuned for generation " + generation + " on " : "not tuned on ")
              + describe(notTuned, NodeReport::tuningMessage));
    }
    if (!planned.isEmpty()) {
      String message = "tuning.mode is Plan: nothing applied on " + list(planned.stream().map(NodeReport::node).toList())
          + "; the agents report what they would change";
      status.byRequest(Conditions.TUNING_APPLIED, Conditions.PLAN_ONLY, message);
      status.warning(Conditions.PLAN_ONLY, "nodes serve untuned by request (tuning.mode Plan): "
          + list(planned.stream().map(NodeReport::node).toList()));
    }
    if (!failed.isEmpty()) {
      status.warning(Conditions.APPLY_FAILED, "tuning failed on " + describe(failed, NodeReport::tuningMessage));
    }
    if (!degraded.isEmpty()) {
      status.warning(Conditions.DEGRADED, "tuning applied with problems on " + describe(degraded, NodeReport::tuningMessage));
    }
    if (!notServing.isEmpty()) {
      status.notReady(Conditions.SERVER_AVAILABLE, Conditions.SERVER_NOT_READY,
          "edge server not ready on " + describe(notServing, NodeReport::serverMessage));
    }
    if (!noKernelTls.isEmpty()) {
      status.warning(Conditions.KERNEL_TLS_UNAVAILABLE, "kernel TLS is unavailable on " + list(noKernelTls)
          + ": the edge server falls back to userspace OpenSSL there (no sendfile over TLS)");
    }
  }

  @Override
  public DeleteControl cleanup(VideoEdge ve, Context<VideoEdge> context) {
    context.managedWorkflowAndDependentResourceContext().cleanupManageWorkflow()
        .throwAggregateExceptionIfErrorsPresent();
    List<NodeTuning> remaining = Cluster.of(context).tunings().values().stream()
        .filter(nt -> Names.ownedBy(nt, ve))
        .sorted(Comparator.comparing(nt -> nt.getMetadata().getName()))
        .toList();
    if (remaining.isEmpty()) {
      log.info("All NodeTunings of {} are gone: the nodes are restored", Names.namespacedName(ve));
      metrics.remove(ve);
      return DeleteControl.defaultDelete();
    }
    // the agents restore each node's originals, then release their finalizers
    StatusAggregator status = new StatusAggregator(ve, clock.instant());
    remaining.forEach(nt -> status.node(NodeReport.notOurs(nt.getMetadata().getName(), NodeReport.Tuning.PENDING,
        "restoring the node's originals (NodeTuning deleted)"), true));
    status.notReady(Conditions.TUNING_APPLIED, Conditions.RESTORING, "deleting: waiting for the node agents to restore "
        + list(remaining.stream().map(nt -> nt.getMetadata().getName()).toList()));
    status.notReady(Conditions.SERVER_AVAILABLE, Conditions.RESTORING,
        "deleting: the edge servers go with the VideoEdge (garbage collected)");
    VideoEdgeStatus next = status.build(ve.getStatus());
    metrics.record(ve, next);
    if (!next.equals(ve.getStatus())) {
      // cleanup has no UpdateControl: JOSDK's SSA status patch, cached for the rescheduled pass
      PrimaryUpdateAndCacheUtils.ssaPatchStatusAndCacheResource(ve, statusOnly(ve, next), context);
    }
    return DeleteControl.noFinalizerRemoval().rescheduleAfter(settings.recheckInterval());
  }

  @Override
  public ErrorStatusUpdateControl<VideoEdge> updateErrorStatus(VideoEdge ve, Context<VideoEdge> context, Exception e) {
    log.warn("Reconciling {} failed: {}", Names.namespacedName(ve), e.getMessage());
    if (conflict(e)) {
      return ErrorStatusUpdateControl.defaultErrorProcessing(); // someone else wrote first: the retry sees it
    }
    VideoEdgeStatus next = StatusAggregator.reconcileFailed(ve, ve.getStatus(), clock.instant(),
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

  /** A NodeTuning on a node we own whose owner VideoEdge no longer exists: delete it, its agent restores the node. */
  private void releaseOrphans(SortedMap<String, NodePlacement.Claim> claims, Cluster cluster, Context<VideoEdge> context) {
    Set<String> existing = cluster.videoEdges().stream().map(Names::namespacedName).collect(Collectors.toSet());
    claims.values().stream()
        .filter(c -> c.state() == NodePlacement.State.AWAITING_RELEASE && !existing.contains(c.holder()))
        .map(c -> cluster.tunings().get(c.node()))
        .filter(nt -> nt != null && nt.getMetadata().getDeletionTimestamp() == null)
        .forEach(nt -> {
          log.info("Deleting NodeTuning {}: its VideoEdge {} no longer exists", nt.getMetadata().getName(),
              Names.ownerOf(nt).orElse("(none)"));
          context.getClient().resource(nt).delete();
        });
  }

  private static Optional<Secret> tlsSecret(VideoEdge ve, Context<VideoEdge> context) {
    if (!EdgeServerConfigRenderer.servesHttps(ve.getSpec())) {
      return Optional.empty();
    }
    return Optional.ofNullable(context.getClient().secrets().inNamespace(ve.getMetadata().getNamespace())
        .withName(ve.getSpec().tls().secretName()).get());
  }

  private static String describe(List<NodeReport> reports, Function<NodeReport, String> why) {
    List<String> parts = reports.stream()
        .map(r -> why.apply(r) == null ? r.node() : r.node() + " (" + why.apply(r) + ")")
        .toList();
    return list(parts);
  }

  static String list(List<String> items) {
    if (items.size() <= LISTED_NODES) {
      return String.join(", ", items);
    }
    return String.join(", ", items.subList(0, LISTED_NODES)) + " and " + (items.size() - LISTED_NODES) + " more";
  }

  @Override
  public List<EventSource<?, VideoEdge>> prepareEventSources(EventSourceContext<VideoEdge> context) {
    AtomicReference<InformerEventSource<Node, VideoEdge>> nodes = new AtomicReference<>();
    AtomicReference<InformerEventSource<NodeTuning, VideoEdge>> tunings = new AtomicReference<>();
    Function<Node, Stream<ResourceID>> selectors = n -> context.getPrimaryCache()
        .list(ve -> NodePlacement.selects(ve, n)).map(ResourceID::fromResource);
    Function<String, Stream<ResourceID>> selecting = node -> nodes.get().get(new ResourceID(node)).stream()
        .flatMap(selectors);
    Function<String, Stream<ResourceID>> holder = node -> tunings.get().get(new ResourceID(node)).stream()
        .flatMap(nt -> owner(nt).stream());

    // a node's labels, allocatable or existence changed: the VideoEdges selecting it or holding its NodeTuning
    nodes.set(new InformerEventSource<>(InformerEventSourceConfiguration.from(Node.class, VideoEdge.class)
        .withName(NODES)
        .withSecondaryToPrimaryMapper(n -> Stream.concat(selectors.apply(n), holder.apply(n.getMetadata().getName()))
            .collect(Collectors.toSet()))
        .withOnUpdateFilter((n, old) -> !Objects.equals(n.getMetadata().getLabels(), old.getMetadata().getLabels())
            || !Objects.equals(n.getStatus() == null ? null : n.getStatus().getAllocatable(),
                old.getStatus() == null ? null : old.getStatus().getAllocatable())
            || !Objects.equals(n.getMetadata().getDeletionTimestamp(), old.getMetadata().getDeletionTimestamp()))
        .build(), context));
    // a NodeTuning changed: its owner, and whoever else selects that node (it may be waiting for it)
    tunings.set(new InformerEventSource<>(InformerEventSourceConfiguration.from(NodeTuning.class, VideoEdge.class)
        .withName(NODE_TUNINGS)
        .withLabelSelector(Names.MANAGED_SELECTOR)
        .withSecondaryToPrimaryMapper(nt -> Stream.concat(owner(nt).stream(), selecting.apply(nt.getMetadata().getName()))
            .collect(Collectors.toSet()))
        .build(), context));
    var pods = new InformerEventSource<>(InformerEventSourceConfiguration.from(Pod.class, VideoEdge.class)
        .withName(PODS)
        .withLabelSelector(Names.EDGE_SERVER_SELECTOR)
        .withSecondaryToPrimaryMapper(pod -> owner(pod).map(Set::of).orElse(Set.of()))
        .build(), context);
    // one CRD, by name: the PodMonitor's activation condition reads it; installing the Prometheus Operator re-triggers all
    var monitoringCrd = new InformerEventSource<>(
        InformerEventSourceConfiguration.from(CustomResourceDefinition.class, VideoEdge.class)
            .withName(MONITORING_CRD)
            .withFieldSelector(new FieldSelector(new FieldSelector.Field("metadata.name", PrometheusOperatorPresent.CRD_NAME)))
            .withSecondaryToPrimaryMapper(crd -> context.getPrimaryCache().list().map(ResourceID::fromResource)
                .collect(Collectors.toCollection(HashSet::new)))
            .build(), context);
    return List.of(nodes.get(), tunings.get(), pods, monitoringCrd);
  }

  private static Optional<ResourceID> owner(HasMetadata r) {
    return Names.ownerOf(r).map(o -> {
      int slash = o.indexOf('/');
      return new ResourceID(o.substring(slash + 1), o.substring(0, slash));
    });
  }

  /** Read access to the informers' caches for one reconcile. */
  record Cluster(List<VideoEdge> videoEdges, Map<String, Node> nodesByName, Map<String, NodeTuning> tunings) {
    @SuppressWarnings("unchecked")
    static Cluster of(Context<VideoEdge> context) {
      var retriever = context.eventSourceRetriever();
      var nodes = (InformerEventSource<Node, VideoEdge>) retriever.getEventSourceFor(Node.class, NODES);
      var tunings = (InformerEventSource<NodeTuning, VideoEdge>) retriever.getEventSourceFor(NodeTuning.class, NODE_TUNINGS);
      return new Cluster(
          context.getPrimaryCache().list().toList(),
          nodes.list(n -> true).collect(Collectors.toMap(n -> n.getMetadata().getName(), n -> n, (a, b) -> a, TreeMap::new)),
          tunings.list(nt -> true).collect(Collectors.toMap(nt -> nt.getMetadata().getName(), nt -> nt, (a, b) -> a, TreeMap::new)));
    }

    java.util.Collection<Node> nodes() {
      return nodesByName.values();
    }

    Node node(String name) {
      return nodesByName.get(name);
    }
  }

  /**
   * Our edge-server pod per node: the newest one not being deleted, else the newest. The pods are the
   * PODS informer's secondaries of this VideoEdge (indexed by their owner labels).
   */
  private static Map<String, Pod> podsByNode(Stream<Pod> ours) {
    Comparator<Pod> preference = Comparator
        .comparing((Pod p) -> p.getMetadata().getDeletionTimestamp() == null)
        .thenComparing(p -> Objects.toString(p.getMetadata().getCreationTimestamp(), ""));
    return ours
        .filter(p -> p.getSpec() != null && p.getSpec().getNodeName() != null)
        .collect(Collectors.toMap(p -> p.getSpec().getNodeName(), p -> p,
            (a, b) -> preference.compare(a, b) >= 0 ? a : b, TreeMap::new));
  }
}
