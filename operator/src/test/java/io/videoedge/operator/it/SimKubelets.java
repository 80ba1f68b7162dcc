package io.videoedge.operator.it;

import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.operator.render.Names;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * What a cluster does with the operator's edge-server DaemonSets, done to the API as the real
 * components do it, per object (a work queue each, never a pass over the fleet per event):
 *
 * <ul>
 *   <li>the DaemonSet controller (update strategy OnDelete): a pod per eligible node from the current
 *       template, with the node affinity it sets ({@code matchFields metadata.name In [node]}), created when
 *       the node has none not being deleted; a running pod is never replaced on its own; pods of nodes no
 *       longer eligible deleted; the DaemonSet's status (counts) written when it changes;</li>
 *   <li>the scheduler: binds a new pod (pods/binding) once no other pod of its DaemonSet holds the node
 *       (host network: the ports are taken until the old pod is gone);</li>
 *   <li>the kubelets: a bound pod Running with its containers starting ({@code startTime}), its containers
 *       ready once the startup probe passes ({@code probeTime} later), Ready only when the containers are
 *       ready and every readiness gate condition is True (re-evaluated when a gate changes); a pod being
 *       deleted (an eviction) stops after its server drained ({@code drainTime}): status written, then the
 *       pod deleted with grace period 0.</li>
 * </ul>
 * It also counts the nodes serving (a pod there, Ready, not being deleted) at every pod event, for the
 * fewest serving during a rollout.
 */
final class SimKubelets implements AutoCloseable {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(SimKubelets.class);
    private static final String BY_DS_NODE = "ds-node";
    private static final String BY_DS = "ds";

    private final KubernetesClient admin;
    private final WriteCounter writes;
    private final Duration startTime;
    private final Duration probeTime;
    private final Duration drainTime;
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
    private final SharedIndexInformer<DaemonSet> daemonSets;
    private final SharedIndexInformer<Node> nodes;
    private final SharedIndexInformer<Pod> pods;
    private final WorkQueue controller;
    private final WorkQueue scheduler;
    private final WorkQueue kubelet;
    private final WorkQueue dsStatus;
    /** When each pod was first seen bound (its containers start then). */
    private final Map<String, Instant> bound = new ConcurrentHashMap<>();

    private final Set<String> stopping = ConcurrentHashMap.newKeySet();
    /** (DaemonSet, node) slots a pod was created for that the informer has not shown yet (the controller's expectations). */
    private final Set<String> expecting = ConcurrentHashMap.newKeySet();
    /** Ready pods per node, and the fewest nodes serving since the last reset. */
    private final Map<String, Set<String>> readyPods = new ConcurrentHashMap<>();

    private int fewestServing = Integer.MAX_VALUE;
    private int servingNow;

    SimKubelets(
            KubernetesClient admin,
            WriteCounter writes,
            Duration startTime,
            Duration probeTime,
            Duration drainTime,
            int workers) {
        this.admin = admin;
        this.writes = writes;
        this.startTime = startTime;
        this.probeTime = probeTime;
        this.drainTime = drainTime;
        controller = new WorkQueue("sim-ds-controller", workers, this::syncNode);
        scheduler = new WorkQueue("sim-scheduler", workers, this::schedule);
        kubelet = new WorkQueue("sim-kubelet", workers, this::syncPod);
        dsStatus = new WorkQueue("sim-ds-status", 1, this::syncDaemonSetStatus);
        daemonSets = admin.apps()
                .daemonSets()
                .inAnyNamespace()
                .withLabelSelector(Names.EDGE_SERVER_SELECTOR)
                .runnableInformer(0);
        nodes = admin.nodes().runnableInformer(0);
        pods = admin.pods()
                .inAnyNamespace()
                .withLabelSelector(Names.EDGE_SERVER_SELECTOR)
                .runnableInformer(0);
        pods.addIndexers(Map.of(
                BY_DS_NODE, p -> owner(p) == null ? List.of() : List.of(owner(p) + "/" + targetNode(p)),
                BY_DS, p -> owner(p) == null ? List.of() : List.of(owner(p))));
        // a new DaemonSet or a new template (generation): every node; a status write of ours: nothing
        Map<String, Long> synced = new ConcurrentHashMap<>();
        watch(
                daemonSets,
                ds -> {
                    String k = ds.getMetadata().getNamespace() + "/"
                            + ds.getMetadata().getName();
                    if (!Objects.equals(
                            synced.put(k, ds.getMetadata().getGeneration()),
                            ds.getMetadata().getGeneration())) {
                        nodes.getStore().list().forEach(n -> controller.add(key(ds, n)));
                    }
                },
                ds -> {});
        watch(nodes, n -> daemonSets.getStore().list().forEach(ds -> controller.add(key(ds, n))), n -> {});
        watch(pods, this::podChanged, this::podGone);
        informers.forEach(SharedIndexInformer::run);
    }

    private <T extends HasMetadata> void watch(SharedIndexInformer<T> informer, Consumer<T> changed, Consumer<T> gone) {
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                changed.accept(obj);
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                if (!Objects.equals(
                        oldObj.getMetadata().getResourceVersion(),
                        newObj.getMetadata().getResourceVersion())) {
                    changed.accept(newObj);
                }
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                gone.accept(obj);
            }
        });
        informers.add(informer);
    }

    private static String key(DaemonSet ds, Node node) {
        return ds.getMetadata().getNamespace() + "/" + ds.getMetadata().getName() + "/"
                + node.getMetadata().getName();
    }

    private static String podKey(Pod p) {
        return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
    }

    private static String owner(Pod p) {
        return p.getMetadata().getOwnerReferences() == null
                ? null
                : p.getMetadata().getOwnerReferences().stream()
                        .filter(o -> "DaemonSet".equals(o.getKind()))
                        .map(o -> p.getMetadata().getNamespace() + "/" + o.getName())
                        .findFirst()
                        .orElse(null);
    }

    /** The node a DaemonSet pod is for: bound, or the one its node affinity names. */
    static String targetNode(Pod p) {
        if (p.getSpec().getNodeName() != null) {
            return p.getSpec().getNodeName();
        }
        try {
            return p.getSpec()
                    .getAffinity()
                    .getNodeAffinity()
                    .getRequiredDuringSchedulingIgnoredDuringExecution()
                    .getNodeSelectorTerms()
                    .getFirst()
                    .getMatchFields()
                    .getFirst()
                    .getValues()
                    .getFirst();
        } catch (RuntimeException e) {
            return "";
        }
    }

    private void podChanged(Pod p) {
        String owner = owner(p);
        if (owner != null) {
            expecting.remove(owner + "/" + targetNode(p));
            dsStatus.add(owner);
            if (p.getMetadata().getDeletionTimestamp() != null) {
                controller.add(owner + "/" + targetNode(p)); // OnDelete: a pod being deleted is replaced
            }
        }
        if (p.getSpec().getNodeName() == null) {
            scheduler.add(podKey(p));
        } else {
            kubelet.add(podKey(p));
        }
        serving(p, ready(p) && p.getMetadata().getDeletionTimestamp() == null);
    }

    private void podGone(Pod p) {
        String owner = owner(p);
        bound.remove(p.getMetadata().getUid());
        stopping.remove(p.getMetadata().getUid());
        if (owner != null) {
            dsStatus.add(owner);
            String node = targetNode(p);
            controller.add(owner + "/" + node);
            // the node's ports are free: a pod waiting for it may be bound now
            pods.getIndexer().byIndex(BY_DS_NODE, owner + "/" + node).stream()
                    .filter(o -> o.getSpec().getNodeName() == null)
                    .forEach(o -> scheduler.add(podKey(o)));
        }
        serving(p, false);
    }

    private synchronized void serving(Pod p, boolean ready) {
        String node = p.getSpec().getNodeName();
        if (node == null) {
            return;
        }
        Set<String> here = readyPods.computeIfAbsent(node, n -> ConcurrentHashMap.newKeySet());
        boolean was = !here.isEmpty();
        if (ready) {
            here.add(podKey(p));
        } else {
            here.remove(podKey(p));
        }
        boolean is = !here.isEmpty();
        if (was != is) {
            servingNow += is ? 1 : -1;
            fewestServing = Math.min(fewestServing, servingNow);
        }
    }

    synchronized int servingNow() {
        return servingNow;
    }

    /** Starts counting the fewest nodes serving from now. */
    synchronized void resetFewest() {
        fewestServing = servingNow;
    }

    synchronized int fewestServing() {
        return fewestServing;
    }

    // ---------------------------------------------------------------- DaemonSet controller

    private void syncNode(String key) {
        int slash = key.lastIndexOf('/');
        String dsKey = key.substring(0, slash);
        String nodeName = key.substring(slash + 1);
        DaemonSet ds = daemonSets.getStore().getByKey(dsKey);
        if (ds == null || ds.getMetadata().getDeletionTimestamp() != null) {
            return;
        }
        Node node = nodes.getStore().getByKey(nodeName);
        List<Pod> here = pods.getIndexer().byIndex(BY_DS_NODE, dsKey + "/" + nodeName);
        List<Pod> live = here.stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
        if (node == null || !FakeKubelets.eligible(ds, node)) {
            live.forEach(p -> writes.count(
                    "pods",
                    "DELETE",
                    () -> admin.pods()
                            .inNamespace(p.getMetadata().getNamespace())
                            .withName(p.getMetadata().getName())
                            .delete()));
            return;
        }
        if (live.isEmpty() && expecting.add(key)) {
            try {
                create(ds, nodeName);
            } catch (RuntimeException e) {
                expecting.remove(key);
                throw e;
            }
        }
    }

    private void create(DaemonSet ds, String node) {
        var template = ds.getSpec().getTemplate();
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withGenerateName(ds.getMetadata().getName() + "-")
                .withNamespace(ds.getMetadata().getNamespace())
                .withLabels(template.getMetadata().getLabels())
                .withAnnotations(template.getMetadata().getAnnotations())
                .withOwnerReferences(new OwnerReferenceBuilder()
                        .withApiVersion("apps/v1")
                        .withKind("DaemonSet")
                        .withName(ds.getMetadata().getName())
                        .withUid(ds.getMetadata().getUid())
                        .withController(true)
                        .withBlockOwnerDeletion(true)
                        .build())
                .endMetadata()
                .withSpec(Serialization.clone(template.getSpec()))
                .build();
        // the DaemonSet controller pins each pod to its node with node affinity; the scheduler binds it
        pod.getSpec()
                .setAffinity(new io.fabric8.kubernetes.api.model.AffinityBuilder()
                        .withNewNodeAffinity()
                        .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                        .addNewNodeSelectorTerm()
                        .withMatchFields(new NodeSelectorRequirementBuilder()
                                .withKey("metadata.name")
                                .withOperator("In")
                                .withValues(node)
                                .build())
                        .endNodeSelectorTerm()
                        .endRequiredDuringSchedulingIgnoredDuringExecution()
                        .endNodeAffinity()
                        .build());
        writes.count(
                "pods",
                "POST",
                () -> admin.pods()
                        .inNamespace(pod.getMetadata().getNamespace())
                        .resource(pod)
                        .create());
    }

    private void syncDaemonSetStatus(String dsKey) {
        DaemonSet ds = daemonSets.getStore().getByKey(dsKey);
        if (ds == null) {
            return;
        }
        int desired = 0;
        for (Node n : nodes.getStore().list()) {
            desired += FakeKubelets.eligible(ds, n) ? 1 : 0;
        }
        String revision = ds.getSpec().getTemplate().getMetadata().getAnnotations() == null
                ? null
                : ds.getSpec().getTemplate().getMetadata().getAnnotations().get(Names.POD_REVISION);
        int scheduled = 0;
        int ready = 0;
        int updated = 0;
        for (Pod p : pods.getIndexer().byIndex(BY_DS, dsKey)) {
            if (p.getMetadata().getDeletionTimestamp() != null || p.getSpec().getNodeName() == null) {
                continue;
            }
            scheduled++;
            ready += ready(p) ? 1 : 0;
            updated += Objects.equals(p.getMetadata().getAnnotations().get(Names.POD_REVISION), revision) ? 1 : 0;
        }
        DaemonSetStatus status = new DaemonSetStatusBuilder()
                .withObservedGeneration(ds.getMetadata().getGeneration())
                .withDesiredNumberScheduled(desired)
                .withCurrentNumberScheduled(scheduled)
                .withNumberMisscheduled(0)
                .withNumberReady(ready)
                .withNumberAvailable(ready)
                .withNumberUnavailable(desired - ready)
                .withUpdatedNumberScheduled(updated)
                .build();
        if (status.equals(ds.getStatus())) {
            return;
        }
        DaemonSet update = admin.getKubernetesSerialization().clone(ds);
        update.setStatus(status);
        try {
            writes.count(
                    "daemonsets/status",
                    "PUT",
                    () -> admin.apps().daemonSets().resource(update).updateStatus());
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409 && e.getCode() != 404) {
                log.warn("DaemonSet {} status not written: {} {}", dsKey, e.getCode(), e.getMessage());
                throw e;
            }
            // changed meanwhile: its event brings another sync
        }
    }

    // ---------------------------------------------------------------- scheduler

    private void schedule(String key) {
        Pod pod = pods.getStore().getByKey(key);
        if (pod == null
                || pod.getSpec().getNodeName() != null
                || pod.getMetadata().getDeletionTimestamp() != null) {
            return;
        }
        String node = targetNode(pod);
        boolean taken = pods.getIndexer().byIndex(BY_DS_NODE, owner(pod) + "/" + node).stream()
                .anyMatch(o -> o.getSpec().getNodeName() != null
                        && !o.getMetadata().getUid().equals(pod.getMetadata().getUid()));
        if (taken) {
            return; // the old pod still holds the node's ports: its deletion brings this pod back
        }
        try {
            writes.count(
                    "bindings",
                    "POST",
                    () -> admin.bindings()
                            .inNamespace(pod.getMetadata().getNamespace())
                            .resource(new BindingBuilder()
                                    .withNewMetadata()
                                    .withName(pod.getMetadata().getName())
                                    .withNamespace(pod.getMetadata().getNamespace())
                                    .withUid(pod.getMetadata().getUid())
                                    .endMetadata()
                                    .withNewTarget()
                                    .withKind("Node")
                                    .withApiVersion("v1")
                                    .withName(node)
                                    .endTarget()
                                    .build())
                            .create());
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409 && e.getCode() != 404) {
                throw e;
            }
        }
    }

    // ---------------------------------------------------------------- kubelets

    private void syncPod(String key) {
        if (key.endsWith(STOPPED)) {
            stopped(key.substring(0, key.length() - STOPPED.length()));
            return;
        }
        Pod pod = pods.getStore().getByKey(key);
        if (pod == null || pod.getSpec().getNodeName() == null) {
            return;
        }
        String uid = pod.getMetadata().getUid();
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            stop(pod);
            return;
        }
        Instant since = bound.computeIfAbsent(uid, u -> Instant.now());
        Instant now = Instant.now();
        if (now.isBefore(since.plus(startTime))) {
            kubelet.addAfter(key, Duration.between(now, since.plus(startTime)));
            return; // pulling, creating the container
        }
        boolean containersReady = !now.isBefore(since.plus(startTime).plus(probeTime));
        if (!containersReady) {
            kubelet.addAfter(key, Duration.between(now, since.plus(startTime).plus(probeTime)));
        }
        List<PodCondition> conditions = FakeKubelets.conditions(pod);
        boolean gatesOpen = FakeKubelets.gatesOpen(pod);
        boolean ready = containersReady && gatesOpen;
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if ("Running".equals(phase)
                && has(conditions, "ContainersReady", containersReady)
                && has(conditions, "Ready", ready)) {
            return;
        }
        String t = now.truncatedTo(ChronoUnit.SECONDS).toString();
        String started = since.plus(startTime).truncatedTo(ChronoUnit.SECONDS).toString();
        List<Map<String, Object>> patch = new ArrayList<>();
        patch.add(Map.of("type", "PodReadyToStartContainers", "status", "True", "lastTransitionTime", started));
        patch.add(Map.of("type", "Initialized", "status", "True", "lastTransitionTime", started));
        patch.add(condition(
                "ContainersReady",
                containersReady,
                t,
                containersReady ? null : "ContainersNotReady",
                containersReady ? null : "containers with unready status: [edge-server]"));
        patch.add(condition(
                "Ready",
                ready,
                t,
                ready ? null : containersReady ? "ReadinessGatesNotReady" : "ContainersNotReady",
                ready
                        ? null
                        : containersReady
                                ? "corresponding condition of pod readiness gate \"videoedge.io/node-tuned\" does not exist or is False"
                                : "containers with unready status: [edge-server]"));
        Map<String, Object> status = Map.of(
                "phase",
                "Running",
                "conditions",
                patch,
                "hostIP",
                "10.0.0.1",
                "podIP",
                "10.0.0.1",
                "startTime",
                started,
                "containerStatuses",
                List.of(Map.of(
                        "name",
                        "edge-server",
                        "image",
                        pod.getSpec().getContainers().getFirst().getImage(),
                        "imageID",
                        "docker.io/videoedge/edge-server@sha256:0123456789abcdef",
                        "containerID",
                        "containerd://" + uid.replace("-", ""),
                        "ready",
                        containersReady,
                        "started",
                        true,
                        "restartCount",
                        0,
                        "state",
                        Map.of("running", Map.of("startedAt", started)))));
        patchStatus(pod, status);
    }

    private static Map<String, Object> condition(String type, boolean status, String t, String reason, String message) {
        Map<String, Object> c = new java.util.LinkedHashMap<>();
        c.put("type", type);
        c.put("status", status ? "True" : "False");
        c.put("lastTransitionTime", t);
        if (reason != null) {
            c.put("reason", reason);
            c.put("message", message);
        }
        return c;
    }

    /** SIGTERM: the server drains, exits; the kubelet reports it stopped and removes the pod. */
    private void stop(Pod pod) {
        String uid = pod.getMetadata().getUid();
        if (!stopping.add(uid)) {
            return;
        }
        kubelet.addAfter(podKey(pod) + STOPPED, drainTime);
    }

    private static final String STOPPED = "#stopped";

    private void stopped(String key) {
        Pod pod = pods.getStore().getByKey(key);
        if (pod == null) {
            return;
        }
        String t = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        patchStatus(
                pod,
                Map.of(
                        "conditions",
                        List.of(
                                condition("ContainersReady", false, t, "PodCompleted", "the server exited"),
                                condition("Ready", false, t, "PodCompleted", "the server exited")),
                        "containerStatuses",
                        List.of(Map.of(
                                "name",
                                "edge-server",
                                "image",
                                pod.getSpec().getContainers().getFirst().getImage(),
                                "imageID",
                                "docker.io/videoedge/edge-server@sha256:0123456789abcdef",
                                "ready",
                                false,
                                "restartCount",
                                0,
                                "state",
                                Map.of("terminated", Map.of("exitCode", 0, "reason", "Completed", "finishedAt", t))))));
        try {
            writes.count(
                    "pods",
                    "DELETE",
                    () -> admin.pods()
                            .inNamespace(pod.getMetadata().getNamespace())
                            .withName(pod.getMetadata().getName())
                            .withGracePeriod(0)
                            .delete());
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
        }
    }

    private void patchStatus(Pod pod, Map<String, Object> status) {
        try {
            writes.count(
                    "pods/status",
                    "PATCH",
                    () -> admin.pods()
                            .inNamespace(pod.getMetadata().getNamespace())
                            .withName(pod.getMetadata().getName())
                            .subresource("status")
                            .patch(
                                    PatchContext.of(PatchType.STRATEGIC_MERGE),
                                    Serialization.asJson(Map.of("status", status))));
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
        }
    }

    private static boolean has(List<PodCondition> conditions, String type, boolean status) {
        return conditions.stream()
                .anyMatch(c -> c.getType().equals(type) && c.getStatus().equals(status ? "True" : "False"));
    }

    static boolean ready(Pod p) {
        return p.getStatus() != null
                && p.getStatus().getConditions() != null
                && p.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    @Override
    public void close() {
        informers.forEach(SharedIndexInformer::close);
        controller.close();
        scheduler.close();
        kubelet.close();
        dsStatus.close();
    }
}
