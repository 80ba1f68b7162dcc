package io.videoedge.operator.render;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningSpec;
import io.videoedge.api.ServerSpec;
import io.videoedge.api.TlsMode;
import io.videoedge.api.TuningSpec;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.api.VideoEdgeSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * VideoEdge + node + the tuning the rollout gives that node (+ the edge-server pod scheduled there,
 * once it is) to that node's NodeTuning. Pure. No ownerReference (a cluster-scoped object cannot have
 * a namespaced owner): the owner is in the labels, and the operator maps NodeTuning events back by
 * them. The spec holds nothing that changes with the VideoEdge's generation alone: a NodeTuning
 * changes only when the node's tuning or its pod does.
 */
public final class NodeTuningRenderer {
    /** The kernel module kernel TLS needs. */
    public static final String TLS_MODULE = "tls";

    private NodeTuningRenderer() {}

    /**
     * @param tuning what the node's NodeTuning carries (the current spec's, or the node's own while it
     *     waits for its turn, or its last good one)
     * @param annotations the rollout's annotations (tuning revision, rollout state)
     * @param pod the edge-server pod bound to this node, or null while there is none
     */
    public static NodeTuning render(
            VideoEdge ve, String node, TuningInputs tuning, Map<String, String> annotations, Pod pod) {
        NodeTuning nt = new NodeTuning();
        ObjectMeta meta = new ObjectMeta();
        meta.setName(node);
        var labels = Names.ownerLabels(ve, Names.COMPONENT_NODE_TUNING);
        labels.put(VideoEdgeApi.LABEL_NODE, node);
        meta.setLabels(labels);
        meta.setAnnotations(new TreeMap<>(annotations));
        nt.setMetadata(meta);
        nt.setSpec(spec(ve, tuning, pod));
        return nt;
    }

    public static NodeTuningSpec spec(VideoEdge ve, TuningInputs tuning, Pod pod) {
        var source = new NodeTuningSpec.Source(
                ve.getMetadata().getNamespace(),
                ve.getMetadata().getName(),
                ve.getMetadata().getUid());
        var server = pod == null
                ? new NodeTuningSpec.ServerPlacement(tuning.cpus(), null, null, null)
                : new NodeTuningSpec.ServerPlacement(
                        tuning.cpus(),
                        pod.getMetadata().getNamespace(),
                        pod.getMetadata().getName(),
                        pod.getMetadata().getUid());
        return new NodeTuningSpec(
                source, tuning.nic(), tuning.tuning(), server, tuning.tlsTxOffload(), tuning.sysctlMinimums());
    }

    /** Linux caps SO_SNDBUF requests at it (the edge server's server.socket.sendBuf). */
    public static final String WMEM_MAX = "net.core.wmem_max";
    /** Linux caps SO_RCVBUF requests at it (server.socket.recvBuf). */
    public static final String RMEM_MAX = "net.core.rmem_max";
    /** wmem_max is raised to at least this whatever sendBuf (the default sendBuf, 4m): sizes up to it stay live. */
    static final long WMEM_MAX_AT_LEAST = 4L << 20;
    /** rmem_max is raised to at least this whatever recvBuf (the kernel's default cap): sizes up to it stay live. */
    static final long RMEM_MAX_AT_LEAST = 212_992L;

    /**
     * What the node's socket buffer caps must be at least so that the edge server's sockets get the sizes it
     * asks for (Linux caps SO_SNDBUF at net.core.wmem_max, SO_RCVBUF at rmem_max; 208 KiB by default): the
     * size in bytes, never below a base (so that smaller sizes change live, without touching the node's
     * tuning). Left out for a sysctl tuning.sysctls sets: that value is set as it is (admission refuses one
     * below the size).
     */
    static Map<String, Long> sysctlMinimums(VideoEdgeSpec spec) {
        Map<String, String> explicit = spec.tuning() == null || spec.tuning().sysctls() == null
                ? Map.of()
                : spec.tuning().sysctls();
        ServerSpec.Socket socket = spec.server() == null ? null : spec.server().socket();
        Map<String, Long> m = new TreeMap<>();
        if (!explicit.containsKey(WMEM_MAX)) {
            m.put(
                    WMEM_MAX,
                    atLeast("server.socket.sendBuf", socket == null ? null : socket.sendBuf(), WMEM_MAX_AT_LEAST));
        }
        if (!explicit.containsKey(RMEM_MAX)) {
            m.put(
                    RMEM_MAX,
                    atLeast("server.socket.recvBuf", socket == null ? null : socket.recvBuf(), RMEM_MAX_AT_LEAST));
        }
        return m;
    }

    private static long atLeast(String field, String size, long base) {
        return size == null ? base : Math.max(base, EdgeServerConfigRenderer.size(field, size));
    }

    /**
     * Whether the node's NIC TLS TX offload is turned on: the HTTPS acceptor serves with tls.mode
     * ktls-offload. The kernel needs the tls module for device offload too: {@link #tuning} adds it
     * for every kernel TLS mode.
     */
    static boolean nicTlsOffload(VideoEdgeSpec spec) {
        return EdgeServerConfigRenderer.usesKernelTls(spec) && spec.tls().mode() == TlsMode.KTLS_OFFLOAD;
    }

    /** The VideoEdge's tuning, with the tls module added when the HTTPS acceptor uses kernel TLS. */
    static TuningSpec tuning(VideoEdgeSpec spec) {
        TuningSpec t = spec.tuning();
        boolean kernelTls = EdgeServerConfigRenderer.usesKernelTls(spec);
        List<String> modules = new ArrayList<>(t.kernelModules() == null ? List.of() : t.kernelModules());
        if (kernelTls && !modules.contains(TLS_MODULE)) {
            modules.add(TLS_MODULE);
        }
        return new TuningSpec(
                t.mode(), t.congestionControl(), t.sysctls(), t.cpusetRelaxDomainLevel(), t.numaInterleave(), modules);
    }
}
