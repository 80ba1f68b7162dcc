package io.videoedge.operator.it;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Nodes as kubelets register them and keep them: created with the labels and annotations a kubelet
 * sets, then their status (capacity, allocatable, conditions, addresses, node info, the images on the
 * node: the bulk of a real Node object), and, every {@code statusEvery}, a node status update with new
 * heartbeat times (the kubelet's nodeStatusReportFrequency, 5 minutes by default with node leases).
 * The node leases a kubelet renews every 10 s are not simulated: the operator never reads them, and on
 * a shared 2-core machine they would only take CPU from what is measured.
 */
final class SimNodes implements AutoCloseable {
    private final KubernetesClient admin;
    private final WriteCounter writes;
    private final ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sim-node-status");
        t.setDaemon(true);
        return t;
    });

    SimNodes(KubernetesClient admin, WriteCounter writes) {
        this.admin = admin;
        this.writes = writes;
    }

    static String name(String prefix, int i) {
        return String.format("%s-%05d", prefix, i);
    }

    /** Registers nodes prefix-00001 .. prefix-n with these extra labels, {@code parallel} kubelets at a time. */
    List<String> register(String prefix, int n, Map<String, String> labels, int parallel) {
        ExecutorService pool = Executors.newFixedThreadPool(parallel);
        try {
            List<Future<String>> done = new ArrayList<>();
            for (int i = 1; i <= n; i++) {
                String name = name(prefix, i);
                done.add(pool.submit(() -> register(name, labels)));
            }
            List<String> names = new ArrayList<>();
            for (Future<String> f : done) {
                names.add(f.get());
            }
            return names;
        } catch (Exception e) {
            throw new IllegalStateException("registering nodes: " + e.getMessage(), e);
        } finally {
            pool.shutdownNow();
        }
    }

    private String register(String name, Map<String, String> extra) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("beta.kubernetes.io/arch", "amd64");
        labels.put("beta.kubernetes.io/os", "linux");
        labels.put("kubernetes.io/arch", "amd64");
        labels.put("kubernetes.io/hostname", name);
        labels.put("kubernetes.io/os", "linux");
        labels.put("node.kubernetes.io/instance-type", "edge-25g");
        labels.put("topology.kubernetes.io/region", "eu-central");
        labels.put("topology.kubernetes.io/zone", "eu-central-" + (1 + Math.floorMod(name.hashCode(), 3)));
        labels.putAll(extra);
        Node node = new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
                .addToAnnotations("volumes.kubernetes.io/controller-managed-attach-detach", "true")
                .addToAnnotations("kubeadm.alpha.kubernetes.io/cri-socket", "unix:///run/containerd/containerd.sock")
                .endMetadata()
                .withNewSpec()
                .withPodCIDR("10.244.0.0/24")
                .withPodCIDRs("10.244.0.0/24")
                .withProviderID("sim://" + name)
                .endSpec()
                .build();
        writes.count("nodes", "POST", () -> admin.nodes().resource(node).create());
        patchStatus(name, status(name, Instant.now()));
        scheduleHeartbeat(name);
        return name;
    }

    private Duration statusEvery = Duration.ofMinutes(5);

    /** How often each node's status is reported again (kubelet nodeStatusReportFrequency); zero: never. */
    SimNodes statusEvery(Duration every) {
        this.statusEvery = every;
        return this;
    }

    private void scheduleHeartbeat(String name) {
        if (statusEvery.isZero()) {
            return;
        }
        long period = statusEvery.toMillis();
        heartbeats.scheduleAtFixedRate(
                () -> {
                    try {
                        patchStatus(name, heartbeat(Instant.now()));
                    } catch (RuntimeException e) {
                        // the next one comes
                    }
                },
                ThreadLocalRandom.current().nextLong(period),
                period,
                TimeUnit.MILLISECONDS);
    }

    private void patchStatus(String name, Object status) {
        String patch = Serialization.asJson(Map.of("status", status));
        writes.count(
                "nodes/status",
                "PATCH",
                () -> admin.nodes()
                        .withName(name)
                        .subresource("status")
                        .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch));
    }

    private static Map<String, Object> heartbeat(Instant now) {
        String t = now.truncatedTo(ChronoUnit.SECONDS).toString();
        List<Map<String, String>> conditions = new ArrayList<>();
        for (String[] c : CONDITIONS) {
            conditions.add(Map.of("type", c[0], "status", c[1], "lastHeartbeatTime", t));
        }
        return Map.of("conditions", conditions);
    }

    private static final String[][] CONDITIONS = {
        {"MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
        {"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
        {"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
        {"Ready", "True", "KubeletReady", "kubelet is posting ready status"},
    };

    private static final List<String> IMAGES = List.of(
            "registry.k8s.io/kube-proxy:v1.34.4",
            "videoedge/edge-server:0.1.0",
            "videoedge/node-agent:0.1.0",
            "docker.io/calico/node:v3.30.3",
            "docker.io/calico/cni:v3.30.3",
            "registry.k8s.io/coredns/coredns:v1.12.1",
            "quay.io/prometheus/node-exporter:v1.9.1",
            "docker.io/fluent/fluent-bit:4.0.3",
            "registry.k8s.io/pause:3.10",
            "registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.14.0",
            "docker.io/library/busybox:1.37",
            "quay.io/cilium/cilium-envoy:v1.33.4");

    private static NodeStatus status(String name, Instant now) {
        String t = now.truncatedTo(ChronoUnit.SECONDS).toString();
        NodeStatusBuilder b = new NodeStatusBuilder()
                .addToCapacity("cpu", new Quantity("32"))
                .addToCapacity("memory", new Quantity("131072Mi"))
                .addToCapacity("pods", new Quantity("110"))
                .addToCapacity("ephemeral-storage", new Quantity("960Gi"))
                .addToCapacity("hugepages-1Gi", new Quantity("0"))
                .addToCapacity("hugepages-2Mi", new Quantity("0"))
                .addToAllocatable("cpu", new Quantity("31"))
                .addToAllocatable("memory", new Quantity("126976Mi"))
                .addToAllocatable("pods", new Quantity("110"))
                .addToAllocatable("ephemeral-storage", new Quantity("884Gi"))
                .addToAllocatable("hugepages-1Gi", new Quantity("0"))
                .addToAllocatable("hugepages-2Mi", new Quantity("0"))
                .addNewAddress("10.0." + Math.floorMod(name.hashCode(), 250) + ".1", "InternalIP")
                .addNewAddress(name, "Hostname")
                .withNewDaemonEndpoints()
                .withNewKubeletEndpoint(10250)
                .endDaemonEndpoints()
                .withNewNodeInfo()
                .withArchitecture("amd64")
                .withBootID("b7c3d2a0-0000-4000-8000-" + String.format("%012d", Math.abs((long) name.hashCode())))
                .withContainerRuntimeVersion("containerd://2.1.4")
                .withKernelVersion("6.12.48+deb13-amd64")
                .withKubeProxyVersion("")
                .withKubeletVersion("v1.34.4")
                .withMachineID(String.format("%032x", Math.abs((long) name.hashCode())))
                .withOperatingSystem("linux")
                .withOsImage("Debian GNU/Linux 13 (trixie)")
                .withSystemUUID("4c4c4544-0000-1000-8000-" + String.format("%012d", Math.abs((long) name.hashCode())))
                .endNodeInfo();
        for (String[] c : CONDITIONS) {
            b.addNewCondition()
                    .withType(c[0])
                    .withStatus(c[1])
                    .withReason(c[2])
                    .withMessage(c[3])
                    .withLastHeartbeatTime(t)
                    .withLastTransitionTime(t)
                    .endCondition();
        }
        int i = 0;
        for (String image : IMAGES) {
            String repo = image.substring(0, image.lastIndexOf(':'));
            b.addNewImage()
                    .withNames(repo + "@sha256:" + String.format("%064x", (long) image.hashCode() & 0xffffffffL), image)
                    .withSizeBytes(20_000_000L + 7_000_000L * i++)
                    .endImage();
        }
        return b.build();
    }

    @Override
    public void close() {
        heartbeats.shutdownNow();
    }
}
