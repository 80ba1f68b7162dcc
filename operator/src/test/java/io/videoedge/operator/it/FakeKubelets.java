package io.videoedge.operator.it;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.operator.render.Names;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stands in for what this API server lacks: the DaemonSet controller with the OnDelete update
 * strategy the operator uses (one pod per eligible node from the current template, created when a
 * node has none; a running pod is never replaced on its own; pods removed from nodes no longer
 * eligible) and the kubelets (pods Running; ContainersReady unless the test says the server on a
 * node is down; Ready only when the containers are ready and every readiness gate condition is True,
 * as the kubelet computes it; a pod being deleted, e.g. evicted, stops and goes after a short
 * drain). Driven by watches, like the real ones; the tests only wait on outcomes.
 */
final class FakeKubelets implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FakeKubelets.class);

    private final KubernetesClient admin;
    private final ExecutorService loop = Executors.newSingleThreadExecutor(r -> new Thread(r, "fake-kubelets"));
    private final AtomicBoolean pending = new AtomicBoolean();
    private final Set<String> serverDown = ConcurrentHashMap.newKeySet();
    private final Set<String> terminating = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService drains =
            Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "fake-kubelet-drains"));
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
    private final SharedIndexInformer<DaemonSet> daemonSets;
    private final SharedIndexInformer<Node> nodes;
    private final SharedIndexInformer<Pod> pods;

    FakeKubelets(KubernetesClient admin) {
        this.admin = admin;
        // informers first, started once all three are assigned: a first event must find them all
        daemonSets = watch(admin.apps()
                .daemonSets()
                .inAnyNamespace()
                .withLabelSelector(Names.EDGE_SERVER_SELECTOR)
                .runnableInformer(0));
        nodes = watch(admin.nodes().runnableInformer(0));
        pods = watch(admin.pods()
                .inAnyNamespace()
                .withLabelSelector(Names.EDGE_SERVER_SELECTOR)
                .runnableInformer(0));
        informers.forEach(SharedIndexInformer::run);
    }

    private <T extends HasMetadata> SharedIndexInformer<T> watch(SharedIndexInformer<T> informer) {
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                kick();
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                kick();
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                kick();
            }
        });
        informers.add(informer);
        return informer;
    }

    /** The edge server on this node fails its probes (or recovers). */
    void serverDown(String node, boolean down) {
        if (down) {
            serverDown.add(node);
        } else {
            serverDown.remove(node);
        }
        kick();
    }

    private void kick() {
        if (pending.compareAndSet(false, true)) {
            loop.execute(() -> {
                pending.set(false);
                try {
                    sync();
                } catch (KubernetesClientException e) {
                    log.debug("fake kubelets: {} (retried on the next event)", e.getMessage());
                    kick();
                } catch (RuntimeException e) {
                    log.error("fake kubelets: a pass failed (the stand-in's own bug)", e);
                    throw e;
                }
            });
        }
    }

    private void sync() {
        for (DaemonSet ds : daemonSets.getStore().list()) {
            syncDaemonSet(ds);
        }
        for (Pod pod : pods.getStore().list()) {
            if (pod.getMetadata().getDeletionTimestamp() != null) {
                terminate(pod);
            } else if (pod.getSpec().getNodeName() != null) {
                syncPodStatus(pod);
            }
        }
    }

    /** The kubelet stops a pod being deleted: its server drains for a moment, then the pod is gone. */
    private void terminate(Pod pod) {
        if (terminating.add(pod.getMetadata().getUid())) {
            drains.schedule(
                    () -> {
                        admin.pods()
                                .inNamespace(pod.getMetadata().getNamespace())
                                .withName(pod.getMetadata().getName())
                                .withGracePeriod(0)
                                .delete();
                        kick();
                    },
                    300,
                    TimeUnit.MILLISECONDS);
        }
    }

    private void syncDaemonSet(DaemonSet ds) {
        Map<String, Pod> byNode = new HashMap<>();
        for (Pod pod : pods.getStore().list()) {
            boolean ours = pod.getMetadata().getOwnerReferences().stream()
                    .anyMatch(o -> o.getUid().equals(ds.getMetadata().getUid()));
            if (ours) {
                byNode.put(pod.getSpec().getNodeName(), pod);
            }
        }
        for (Node node : nodes.getStore().list()) {
            String name = node.getMetadata().getName();
            Pod pod = byNode.remove(name);
            if (!eligible(ds, node)) {
                if (pod != null) {
                    delete(pod);
                }
            } else if (pod == null) {
                create(ds, name); // OnDelete: a node without a pod gets one from the current template, nothing more
            }
        }
        byNode.values().forEach(this::delete); // nodes that no longer exist
    }

    /**
     * A NoSchedule or NoExecute taint no toleration of the template names by key (the tests' taints have keys of
     * their own; the rule in full, values and effects, is the scheduler's, not this stand-in's). The API server
     * taints every new Node {@code node.kubernetes.io/not-ready}, which only the node lifecycle controller (not
     * run here) takes off once its kubelet reports Ready: the stand-in's kubelets are ready, so the
     * {@code node.kubernetes.io/} taints are not theirs to honour.
     */
    private static boolean untolerated(DaemonSet ds, Node node) {
        var tolerations = ds.getSpec().getTemplate().getSpec().getTolerations();
        return node.getSpec() != null
                && node.getSpec().getTaints() != null
                && node.getSpec().getTaints().stream()
                        .filter(t -> List.of("NoSchedule", "NoExecute").contains(t.getEffect()))
                        .filter(t -> !t.getKey().startsWith("node.kubernetes.io/"))
                        .anyMatch(t -> tolerations == null
                                || tolerations.stream()
                                        .noneMatch(tol -> t.getKey().equals(tol.getKey())));
    }

    static boolean eligible(DaemonSet ds, Node node) {
        Map<String, String> selector = ds.getSpec().getTemplate().getSpec().getNodeSelector();
        Map<String, String> labels = node.getMetadata().getLabels() == null
                ? Map.of()
                : node.getMetadata().getLabels();
        if (selector != null
                && !selector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())))) {
            return false;
        }
        if (untolerated(ds, node)) {
            return false;
        }
        var affinity = ds.getSpec().getTemplate().getSpec().getAffinity();
        if (affinity == null
                || affinity.getNodeAffinity() == null
                || affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
            return true;
        }
        for (var term : affinity.getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms()) {
            for (NodeSelectorRequirement r : term.getMatchFields()) {
                if ("metadata.name".equals(r.getKey())
                        && "NotIn".equals(r.getOperator())
                        && r.getValues().contains(node.getMetadata().getName())) {
                    return false;
                }
            }
        }
        return true;
    }

    private void create(DaemonSet ds, String node) {
        var template = ds.getSpec().getTemplate();
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withName(ds.getMetadata().getName() + "-" + node)
                .withNamespace(ds.getMetadata().getNamespace())
                .withLabels(template.getMetadata().getLabels())
                .withAnnotations(template.getMetadata().getAnnotations())
                .withOwnerReferences(new OwnerReferenceBuilder()
                        .withApiVersion("apps/v1")
                        .withKind("DaemonSet")
                        .withName(ds.getMetadata().getName())
                        .withUid(ds.getMetadata().getUid())
                        .withController(true)
                        .build())
                .endMetadata()
                .withSpec(Serialization.clone(template.getSpec()))
                .build();
        pod.getSpec().setNodeName(node);
        admin.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
    }

    private void delete(Pod pod) {
        if (pod.getMetadata().getDeletionTimestamp() == null) {
            admin.pods()
                    .inNamespace(pod.getMetadata().getNamespace())
                    .withName(pod.getMetadata().getName())
                    .withGracePeriod(0)
                    .delete();
        }
    }

    /** The pod's conditions as the API server has them (none yet: empty). */
    static List<PodCondition> conditions(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getConditions() == null
                ? List.of()
                : pod.getStatus().getConditions();
    }

    /** The kubelet's rule: every readiness gate the pod names has its condition True. */
    static boolean gatesOpen(Pod pod) {
        List<PodCondition> conditions = conditions(pod);
        return pod.getSpec().getReadinessGates().stream()
                .allMatch(g -> conditions.stream()
                        .anyMatch(c -> c.getType().equals(g.getConditionType()) && "True".equals(c.getStatus())));
    }

    /** What a kubelet reports: Running; ready only with ready containers and every readiness gate True. */
    private void syncPodStatus(Pod pod) {
        boolean containersReady = !serverDown.contains(pod.getSpec().getNodeName());
        List<PodCondition> conditions = FakeKubelets.conditions(pod);
        boolean gatesOpen = FakeKubelets.gatesOpen(pod);
        boolean ready = containersReady && gatesOpen;
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if ("Running".equals(phase)
                && has(conditions, "ContainersReady", containersReady)
                && has(conditions, "Ready", ready)) {
            return;
        }
        String now = java.time.Instant.now()
                .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                .toString();
        List<PodCondition> patch = List.of(
                new PodConditionBuilder()
                        .withType("ContainersReady")
                        .withStatus(containersReady ? "True" : "False")
                        .withLastTransitionTime(now)
                        .build(),
                new PodConditionBuilder()
                        .withType("Ready")
                        .withStatus(ready ? "True" : "False")
                        .withReason(ready ? null : gatesOpen ? "ContainersNotReady" : "ReadinessGatesNotReady")
                        .withMessage(
                                ready
                                        ? null
                                        : gatesOpen
                                                ? "containers with unready status: [edge-server]"
                                                : "corresponding condition of pod readiness gate \""
                                                        + pod.getSpec()
                                                                .getReadinessGates()
                                                                .getFirst()
                                                                .getConditionType()
                                                        + "\" does not exist or is False")
                        .withLastTransitionTime(now)
                        .build());
        admin.pods()
                .inNamespace(pod.getMetadata().getNamespace())
                .withName(pod.getMetadata().getName())
                .subresource("status")
                .patch(
                        PatchContext.of(PatchType.STRATEGIC_MERGE),
                        Serialization.asJson(Map.of("status", Map.of("phase", "Running", "conditions", patch))));
    }

    private static boolean has(List<PodCondition> conditions, String type, boolean status) {
        return conditions.stream()
                .anyMatch(c -> c.getType().equals(type) && c.getStatus().equals(status ? "True" : "False"));
    }

    @Override
    public void close() {
        informers.forEach(SharedIndexInformer::close);
        loop.shutdownNow();
        drains.shutdownNow();
    }
}
