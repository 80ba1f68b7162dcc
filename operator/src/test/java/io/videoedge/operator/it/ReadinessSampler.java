package io.videoedge.operator.it;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Watches the edge-server pods of one namespace and, on every pod event, which of a fleet's nodes
 * serve (a pod there, not being deleted, Ready): the most nodes ever out of service at once, and the
 * moments each node left and came back. Exact, not polled: every transition the API server shows is
 * seen.
 */
final class ReadinessSampler implements AutoCloseable {
    /** A node left service (ready false) or came back (ready true). */
    record Transition(Instant at, String node, boolean ready) {}

    private final Set<String> fleet;
    private final SharedIndexInformer<Pod> informer;
    private final List<Transition> transitions = new CopyOnWriteArrayList<>();
    /** The readiness gate reasons each pod was seen with, by pod name. */
    private final java.util.Map<String, Set<String>> gateReasons = new java.util.concurrent.ConcurrentHashMap<>();

    /** When each pod was first seen out of service (Ready False) while not being deleted, by pod name. */
    private final java.util.Map<String, Instant> outOfServiceAt = new java.util.concurrent.ConcurrentHashMap<>();
    /** When each pod was first seen being deleted (its eviction), by pod name. */
    private final java.util.Map<String, Instant> deletedAt = new java.util.concurrent.ConcurrentHashMap<>();

    private Set<String> unready = new TreeSet<>();
    private int maxUnready;

    ReadinessSampler(KubernetesClient admin, String namespace, Set<String> fleet) {
        this.fleet = Set.copyOf(fleet);
        informer = admin.pods().inNamespace(namespace).runnableInformer(0);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod obj) {
                sample();
            }

            @Override
            public void onUpdate(Pod oldObj, Pod newObj) {
                sample();
            }

            @Override
            public void onDelete(Pod obj, boolean deletedFinalStateUnknown) {
                sample();
            }
        });
        informer.run();
        sample();
    }

    private synchronized void sample() {
        Set<String> serving = new TreeSet<>();
        Instant seen = Instant.now();
        for (Pod p : informer.getStore().list()) {
            String name = p.getMetadata().getName();
            if (p.getMetadata().getDeletionTimestamp() != null) {
                deletedAt.putIfAbsent(name, seen);
            } else if (p.getStatus() != null
                    && p.getStatus().getConditions() != null
                    && p.getStatus().getConditions().stream()
                            .anyMatch(c -> "Ready".equals(c.getType()) && "False".equals(c.getStatus()))) {
                outOfServiceAt.putIfAbsent(name, seen);
            }
            if (p.getStatus() != null && p.getStatus().getConditions() != null) {
                p.getStatus().getConditions().stream()
                        .filter(c -> io.videoedge.api.VideoEdgeApi.READINESS_GATE_NODE_TUNED.equals(c.getType())
                                && c.getReason() != null)
                        .forEach(c -> gateReasons
                                .computeIfAbsent(p.getMetadata().getName(), k -> new TreeSet<>())
                                .add(c.getReason()));
            }
            boolean ready = p.getMetadata().getDeletionTimestamp() == null
                    && p.getStatus() != null
                    && p.getStatus().getConditions() != null
                    && p.getStatus().getConditions().stream()
                            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
            if (ready && p.getSpec().getNodeName() != null) {
                serving.add(p.getSpec().getNodeName());
            }
        }
        Set<String> now = new TreeSet<>(fleet);
        now.removeAll(serving);
        Instant t = Instant.now();
        for (String node : fleet) {
            if (now.contains(node) && !unready.contains(node)) {
                transitions.add(new Transition(t, node, false));
            } else if (!now.contains(node) && unready.contains(node)) {
                transitions.add(new Transition(t, node, true));
            }
        }
        unready = now;
        maxUnready = Math.max(maxUnready, now.size());
    }

    /** Starts counting from here (the fleet is expected to be serving now). */
    synchronized void reset() {
        maxUnready = unready.size();
        transitions.clear();
    }

    synchronized int maxUnready() {
        return maxUnready;
    }

    synchronized int unreadyNow() {
        return unready.size();
    }

    Set<String> gateReasons(String pod) {
        return Set.copyOf(gateReasons.getOrDefault(pod, Set.of()));
    }

    /**
     * How long the pod was out of service (Ready False, as seen here) before it was deleted; null unless both were
     * seen. The pod's own deletionTimestamp is not used: it is the deletion plus the grace period.
     */
    java.time.Duration outOfServiceBeforeDeletion(String pod) {
        Instant out = outOfServiceAt.get(pod);
        Instant deleted = deletedAt.get(pod);
        return out == null || deleted == null ? null : java.time.Duration.between(out, deleted);
    }

    List<Transition> transitions() {
        return List.copyOf(transitions);
    }

    @Override
    public void close() {
        informer.close();
    }
}
