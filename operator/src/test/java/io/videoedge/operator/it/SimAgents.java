package io.videoedge.operator.it;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.videoedge.api.NodeCapabilities;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.SettingState;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.operator.render.Names;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The node agents of a fleet, doing to the API what the real agent (node-tuning's NodeTuningAgent)
 * does: its finalizer first (a JSON patch), then, for every new generation of its node's NodeTuning,
 * after the time a pass takes on a node ({@code applyTime}), the whole status replaced (PUT
 * nodetunings/status at the resourceVersion it read; a 409 waits for the next event) with every
 * setting it manages and what the node can do, and an Event "Applied"; on deletion the originals
 * restored and the finalizer released. One informer over all NodeTunings stands in for one watch per
 * agent (the real ones watch their own by field selector): the writes are the same.
 */
final class SimAgents implements AutoCloseable {
    static final String EVENT_NAMESPACE = "default"; // the agent's --events-namespace default

    private final KubernetesClient admin;
    private final WriteCounter writes;
    private final Duration applyTime;
    private final SharedIndexInformer<NodeTuning> informer;
    private final WorkQueue queue;
    /** When the pass for (node, generation) started; its status is written applyTime later. */
    private final Map<String, Instant> passes = new ConcurrentHashMap<>();

    private final AtomicReference<Instant> lastReport = new AtomicReference<>();
    private final AtomicLong reports = new AtomicLong();
    private final AtomicLong conflicts = new AtomicLong();

    SimAgents(KubernetesClient admin, WriteCounter writes, Duration applyTime, int workers) {
        this.admin = admin;
        this.writes = writes;
        this.applyTime = applyTime;
        this.queue = new WorkQueue("sim-agents", workers, this::sync);
        informer = admin.resources(NodeTuning.class)
                .withLabelSelector(Names.MANAGED_SELECTOR)
                .runnableInformer(0);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(NodeTuning nt) {
                queue.add(nt.getMetadata().getName());
            }

            @Override
            public void onUpdate(NodeTuning old, NodeTuning nt) {
                queue.add(nt.getMetadata().getName());
            }

            @Override
            public void onDelete(NodeTuning nt, boolean unknown) {}
        });
        informer.run();
    }

    /** NodeTunings that exist now (in this informer's view). */
    int count() {
        return informer.getStore().list().size();
    }

    /** When an agent last wrote an Applied status. */
    Instant lastReport() {
        return lastReport.get();
    }

    long reports() {
        return reports.get();
    }

    long conflicts() {
        return conflicts.get();
    }

    private void sync(String node) {
        NodeTuning nt = informer.getStore().getByKey(node);
        if (nt == null) {
            return;
        }
        boolean finalizer = nt.hasFinalizer(VideoEdgeApi.AGENT_FINALIZER);
        if (nt.getMetadata().getDeletionTimestamp() != null) {
            if (finalizer) {
                int i = nt.getMetadata().getFinalizers().indexOf(VideoEdgeApi.AGENT_FINALIZER);
                patch(
                        node,
                        "[{\"op\":\"test\",\"path\":\"/metadata/finalizers/" + i + "\",\"value\":\""
                                + VideoEdgeApi.AGENT_FINALIZER
                                + "\"},{\"op\":\"remove\",\"path\":\"/metadata/finalizers/"
                                + i + "\"}]");
            }
            return;
        }
        if (!finalizer) {
            patch(
                    node,
                    nt.getMetadata().getFinalizers() == null
                                    || nt.getMetadata().getFinalizers().isEmpty()
                            ? "[{\"op\":\"add\",\"path\":\"/metadata/finalizers\",\"value\":[\""
                                    + VideoEdgeApi.AGENT_FINALIZER + "\"]}]"
                            : "[{\"op\":\"add\",\"path\":\"/metadata/finalizers/-\",\"value\":\""
                                    + VideoEdgeApi.AGENT_FINALIZER + "\"}]");
            return; // the update brings the next pass
        }
        long generation = nt.getMetadata().getGeneration();
        if (nt.getStatus() != null
                && nt.getStatus().observedGeneration() != null
                && nt.getStatus().observedGeneration() == generation) {
            return;
        }
        // a pass takes its time on the node: the status comes applyTime after the agent saw the generation
        String pass = node + "@" + generation;
        Instant started = passes.computeIfAbsent(pass, k -> Instant.now());
        Duration left = Duration.between(Instant.now(), started.plus(applyTime));
        if (!left.isNegative() && !left.isZero()) {
            queue.addAfter(node, left);
            return;
        }
        NodeTuning update = admin.getKubernetesSerialization().clone(nt);
        update.setStatus(status(nt));
        try {
            writes.count(
                    "nodetunings/status", "PUT", () -> admin.resource(update).updateStatus());
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                conflicts.incrementAndGet(); // changed meanwhile: its event brings another pass
                return;
            }
            throw e;
        }
        passes.remove(pass);
        reports.incrementAndGet();
        lastReport.set(Instant.now());
        event(nt);
    }

    private void patch(String node, String json) {
        try {
            writes.count(
                    "nodetunings",
                    "PATCH",
                    () -> admin.resources(NodeTuning.class)
                            .withName(node)
                            .patch(PatchContext.of(PatchType.JSON), json));
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404 && e.getCode() != 422) {
                throw e;
            }
        }
    }

    private void event(NodeTuning nt) {
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        var event = new EventBuilder()
                .withNewMetadata()
                .withName(nt.getMetadata().getName() + "."
                        + UUID.randomUUID().toString().substring(0, 8))
                .withNamespace(EVENT_NAMESPACE)
                .endMetadata()
                .withNewInvolvedObject()
                .withApiVersion(nt.getApiVersion())
                .withKind(nt.getKind())
                .withName(nt.getMetadata().getName())
                .withUid(nt.getMetadata().getUid())
                .endInvolvedObject()
                .withType("Normal")
                .withReason("Applied")
                .withMessage("applied " + String.join(", ", settingNames(nt)))
                .withFirstTimestamp(now)
                .withLastTimestamp(now)
                .withCount(1)
                .withNewSource()
                .withComponent("videoedge-node-agent")
                .withHost(nt.getMetadata().getName())
                .endSource()
                .withReportingComponent("videoedge-node-agent")
                .withReportingInstance(nt.getMetadata().getName())
                .build();
        try {
            writes.count(
                    "events",
                    "POST",
                    () -> admin.v1()
                            .events()
                            .inNamespace(EVENT_NAMESPACE)
                            .resource(event)
                            .create());
        } catch (KubernetesClientException e) {
            // an Event is a courtesy
        }
    }

    private static List<String> settingNames(NodeTuning nt) {
        return settings(nt).stream().map(NodeTuningStatus.Setting::name).toList();
    }

    /** What a real agent reports on a virtio node with one 4-queue NIC: every setting it manages. */
    static List<NodeTuningStatus.Setting> settings(NodeTuning nt) {
        List<NodeTuningStatus.Setting> s = new ArrayList<>();
        var tuning = nt.getSpec().tuning();
        if (tuning != null && tuning.sysctls() != null) {
            tuning.sysctls()
                    .forEach((name, value) -> s.add(new NodeTuningStatus.Setting(
                            "sysctl/" + name, value, value, "0", SettingState.APPLIED, null)));
        }
        if (tuning != null && tuning.congestionControl() != null) {
            s.add(new NodeTuningStatus.Setting(
                    "sysctl/net.ipv4.tcp_congestion_control",
                    tuning.congestionControl(),
                    tuning.congestionControl(),
                    "cubic",
                    SettingState.APPLIED,
                    null));
        }
        s.add(new NodeTuningStatus.Setting(
                "cpuset/sched_relax_domain_level", "1", "1", "-1", SettingState.APPLIED, null));
        s.add(new NodeTuningStatus.Setting("cpuset/memory_spread_page", "1", "1", "0", SettingState.APPLIED, null));
        for (String f : List.of("combined", "rx-usecs", "tx-usecs", "adaptive-rx")) {
            s.add(new NodeTuningStatus.Setting("ethtool/eth0/" + f, "64", "64", "0", SettingState.UNCHANGED, null));
        }
        for (int q = 0; q < 4; q++) {
            s.add(new NodeTuningStatus.Setting("rps/eth0/rx-" + q, "e", "e", "0", SettingState.APPLIED, null));
            s.add(new NodeTuningStatus.Setting("irq/eth0/" + (24 + q), "1", "1", "f", SettingState.APPLIED, null));
        }
        s.add(new NodeTuningStatus.Setting(
                "sysctl/net.core.rps_sock_flow_entries", "32768", "32768", "0", SettingState.APPLIED, null));
        return s;
    }

    private static NodeTuningStatus status(NodeTuning nt) {
        List<NodeTuningStatus.Setting> settings = settings(nt);
        String t = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        Condition applied = FakeAgent.cond("Applied", "True", "AsExpected", settings.size() + " settings applied");
        applied.setLastTransitionTime(t);
        Condition degraded = FakeAgent.cond("Degraded", "False", "AsExpected", "");
        var caps = new NodeCapabilities(
                "6.12.48+deb13-amd64",
                List.of("reno", "cubic", "bbr"),
                true,
                "available",
                "v2",
                2,
                "0-31",
                List.of(new NodeCapabilities.Nic("eth0", "virtio_net", 4, 4, 4, 4, List.of(24, 25, 26, 27), 0, false)));
        return new NodeTuningStatus(
                nt.getMetadata().getGeneration(),
                List.of(applied, degraded),
                applied.getMessage(),
                "sha256:" + Integer.toHexString(nt.getSpec().hashCode()),
                t,
                settings,
                caps,
                null);
    }

    @Override
    public void close() {
        informer.close();
        queue.close();
    }
}
