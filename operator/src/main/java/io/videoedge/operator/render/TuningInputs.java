package io.videoedge.operator.render;

import io.videoedge.api.NicSpec;
import io.videoedge.api.NodeTuningSpec;
import io.videoedge.api.TuningSpec;
import io.videoedge.api.VideoEdgeSpec;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything a node's tuning depends on: the NIC and kernel tuning (with the tls module added when
 * the server uses kernel TLS), the edge server's dedicated CPU count (IRQ policies) and whether the
 * NIC's TLS TX offload is turned on (tls.mode ktls-offload). A NodeTuning changes only when these
 * change (or its pod is replaced): a server-only change of the VideoEdge never touches node tuning. Pure.
 *
 * @param tlsTxOffload true when the server serves HTTPS with tls.mode ktls-offload, else null (never
 *     false): the revision of a tuning without it is the revision it had before the field existed
 * @param sysctlMinimums the sysctls the node must have at least (net.core.wmem_max and rmem_max for the
 *     server's socket sizes: {@link NodeTuningRenderer#sysctlMinimums}), sorted; null when none
 */
public record TuningInputs(
        NicSpec nic, TuningSpec tuning, Integer cpus, Boolean tlsTxOffload, Map<String, Long> sysctlMinimums) {
    public TuningInputs {
        tlsTxOffload = Boolean.TRUE.equals(tlsTxOffload) ? Boolean.TRUE : null;
        sysctlMinimums = sysctlMinimums == null || sysctlMinimums.isEmpty()
                ? null
                : java.util.Collections.unmodifiableMap(new TreeMap<>(sysctlMinimums));
    }

    /** Inputs without sysctl minimums. */
    public TuningInputs(NicSpec nic, TuningSpec tuning, Integer cpus, Boolean tlsTxOffload) {
        this(nic, tuning, cpus, tlsTxOffload, null);
    }

    public static TuningInputs of(VideoEdgeSpec spec) {
        return new TuningInputs(
                spec.nic(),
                NodeTuningRenderer.tuning(spec),
                spec.server().cpus(),
                NodeTuningRenderer.nicTlsOffload(spec),
                NodeTuningRenderer.sysctlMinimums(spec));
    }

    /** What a NodeTuning carries now (its spec as written, so it compares with what we would write). */
    public static TuningInputs of(NodeTuningSpec spec) {
        return new TuningInputs(
                spec.nic(),
                spec.tuning(),
                spec.server() == null ? null : spec.server().cpus(),
                spec.tlsTxOffload(),
                spec.sysctlMinimums());
    }

    /** A short stable hash of the inputs: equal inputs, equal revision, in any operator instance. */
    public String revision() {
        return Hashes.revision(this, 10);
    }
}
