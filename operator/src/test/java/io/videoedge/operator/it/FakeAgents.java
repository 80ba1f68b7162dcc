package io.videoedge.operator.it;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.videoedge.api.NodeCapabilities;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.SettingState;
import io.videoedge.api.VideoEdgeApi;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stands in for the node agents of the nodes a test hands it, by the agent's contract and driven by
 * watches like the real one: finalizer first, then a status for every new generation of the node's
 * NodeTuning (Applied, one setting per sysctl; or RolledBack where the test injects a fault; or
 * nothing while the test holds the node), and the finalizer released when the NodeTuning is deleted
 * (the node restored). It keeps a timeline of what it applied, for the tests' rollout assertions.
 */
final class FakeAgents implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FakeAgents.class);

    /** One thing an agent did: applied (or failed) generation g of its NodeTuning, or restored the node. */
    record Step(Instant at, String node, long generation, String outcome) {}

    private final KubernetesClient admin;
    private final SharedIndexInformer<NodeTuning> informer;
    private final ExecutorService loop = Executors.newSingleThreadExecutor(r -> new Thread(r, "fake-agents"));
    private final AtomicBoolean pending = new AtomicBoolean();
    private final Set<String> managed = ConcurrentHashMap.newKeySet();
    private final Set<String> held = ConcurrentHashMap.newKeySet();
    private final Map<String, Predicate<NodeTuning>> faults = new ConcurrentHashMap<>();
    private final List<Step> timeline = new CopyOnWriteArrayList<>();

    FakeAgents(KubernetesClient admin) {
        this.admin = admin;
        informer = admin.resources(NodeTuning.class).runnableInformer(0);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(NodeTuning obj) {
                kick();
            }

            @Override
            public void onUpdate(NodeTuning oldObj, NodeTuning newObj) {
                kick();
            }

            @Override
            public void onDelete(NodeTuning obj, boolean deletedFinalStateUnknown) {}
        });
        informer.run();
    }

    /** From now on, act as this node's agent. */
    FakeAgents manage(String... nodes) {
        managed.addAll(List.of(nodes));
        kick();
        return this;
    }

    /** The agent refuses (Applied=False RolledBack) every spec of this node's NodeTuning that matches. */
    FakeAgents fault(String node, Predicate<NodeTuning> when) {
        faults.put(node, when);
        kick();
        return this;
    }

    FakeAgents noFault(String node) {
        faults.remove(node);
        kick();
        return this;
    }

    /** The agent does nothing (applies no new generation, restores nothing: it is slow or down) until released. */
    FakeAgents hold(String node) {
        held.add(node);
        return this;
    }

    FakeAgents release(String node) {
        held.remove(node);
        kick();
        return this;
    }

    List<Step> timeline() {
        return List.copyOf(timeline);
    }

    private void kick() {
        if (pending.compareAndSet(false, true)) {
            loop.execute(() -> {
                pending.set(false);
                try {
                    sync();
                } catch (KubernetesClientException e) {
                    log.debug("fake agents: {} (retried on the next event)", e.getMessage());
                    kick();
                }
            });
        }
    }

    private void sync() {
        for (NodeTuning nt : informer.getStore().list()) {
            String node = nt.getMetadata().getName();
            if (!managed.contains(node)) {
                continue;
            }
            boolean finalizer = nt.hasFinalizer(VideoEdgeApi.AGENT_FINALIZER);
            if (nt.getMetadata().getDeletionTimestamp() != null) {
                if (finalizer && !held.contains(node)) {
                    admin.resources(NodeTuning.class).withName(node).edit(n -> {
                        n.removeFinalizer(VideoEdgeApi.AGENT_FINALIZER);
                        return n;
                    });
                    timeline.add(new Step(Instant.now(), node, nt.getMetadata().getGeneration(), "Restored"));
                }
                continue;
            }
            if (!finalizer) {
                admin.resources(NodeTuning.class).withName(node).edit(n -> {
                    n.addFinalizer(VideoEdgeApi.AGENT_FINALIZER);
                    return n;
                });
                continue; // the update brings the next pass
            }
            long generation = nt.getMetadata().getGeneration();
            boolean seen = nt.getStatus() != null
                    && nt.getStatus().observedGeneration() != null
                    && nt.getStatus().observedGeneration() == generation;
            if (seen || held.contains(node)) {
                continue;
            }
            Predicate<NodeTuning> fault = faults.get(node);
            boolean fails = fault != null && fault.test(nt);
            report(nt, fails);
            timeline.add(new Step(Instant.now(), node, generation, fails ? "RolledBack" : "Applied"));
        }
    }

    private void report(NodeTuning nt, boolean fails) {
        List<NodeTuningStatus.Setting> settings = new ArrayList<>();
        Map<String, String> sysctls =
                nt.getSpec().tuning() == null || nt.getSpec().tuning().sysctls() == null
                        ? Map.of()
                        : nt.getSpec().tuning().sysctls();
        sysctls.forEach((name, value) -> settings.add(new NodeTuningStatus.Setting(
                "sysctl/" + name,
                value,
                fails ? "0" : value,
                "0",
                fails ? SettingState.FAILED : SettingState.APPLIED,
                fails ? "write failed: EROFS" : null)));
        Condition applied = fails
                ? FakeAgent.cond(
                        "Applied",
                        "False",
                        "RolledBack",
                        "sysctl write failed: Read-only file system; the pass was restored")
                : FakeAgent.cond("Applied", "True", "AsExpected", settings.size() + " settings applied");
        Condition degraded = fails
                ? FakeAgent.cond("Degraded", "True", "RolledBack", applied.getMessage())
                : FakeAgent.cond("Degraded", "False", "AsExpected", "");
        var caps = new NodeCapabilities(
                "6.12.48+deb13-amd64",
                List.of("reno", "cubic", "bbr"),
                true,
                "available",
                "v2",
                1,
                "0-3",
                List.of(new NodeCapabilities.Nic(
                        "eth0", "virtio_net", 4, 4, 4, 4, List.of(24, 25, 26, 27), -1, false)));
        NodeTuning update = admin.getKubernetesSerialization().clone(nt);
        update.setStatus(new NodeTuningStatus(
                nt.getMetadata().getGeneration(),
                List.of(applied, degraded),
                applied.getMessage(),
                "sha256:" + nt.getMetadata().getGeneration(),
                null,
                settings,
                caps,
                null));
        admin.resource(update).updateStatus();
    }

    @Override
    public void close() {
        informer.close();
        loop.shutdownNow();
    }
}
