package io.videoedge.agent.plan;

import io.videoedge.api.IrqAffinity;
import io.videoedge.api.NicSpec;
import io.videoedge.api.NicType;
import io.videoedge.api.NodeTuningSpec;
import io.videoedge.api.TuningMode;
import io.videoedge.api.TuningSpec;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The spec with the CRD's defaults filled in. The API server defaults objects it stores; the
 * command line reads files it never saw, so the agent applies the same defaults itself.
 */
public record Desired(
        TuningMode mode,
        String congestionControl,
        Map<String, String> sysctls,
        Integer cpusetRelaxDomainLevel,
        boolean numaInterleave,
        List<String> kernelModules,
        NicType nicType,
        List<String> interfaces,
        Integer combinedQueues,
        NicSpec.Coalescing coalescing,
        IrqAffinity irqAffinity,
        boolean rps,
        Integer rfsFlowEntries,
        boolean tlsTxOffload,
        String podUid,
        Map<String, Long> sysctlMinimums) {

    public static Desired of(NodeTuningSpec spec) {
        TuningSpec t = spec == null || spec.tuning() == null
                ? new TuningSpec(null, null, null, null, null, null)
                : spec.tuning();
        NicSpec n =
                spec == null || spec.nic() == null ? new NicSpec(null, null, null, null, null, null, null) : spec.nic();
        NodeTuningSpec.ServerPlacement s = spec == null || spec.server() == null
                ? new NodeTuningSpec.ServerPlacement(null, null, null, null)
                : spec.server();
        String pod = s.podUid() == null || s.podUid().isBlank() ? null : s.podUid();
        return new Desired(
                Objects.requireNonNullElse(t.mode(), TuningMode.APPLY),
                Objects.requireNonNullElse(t.congestionControl(), "bbr"),
                t.sysctls() == null ? Map.of() : new TreeMap<>(t.sysctls()),
                t.cpusetRelaxDomainLevel(),
                Boolean.TRUE.equals(t.numaInterleave()),
                t.kernelModules() == null ? List.of() : List.copyOf(t.kernelModules()),
                Objects.requireNonNullElse(n.type(), NicType.AUTO),
                n.interfaces() == null ? List.of() : List.copyOf(n.interfaces()),
                n.combinedQueues(),
                n.coalescing(),
                Objects.requireNonNullElse(n.irqAffinity(), IrqAffinity.SPREAD),
                !Boolean.FALSE.equals(n.rps()),
                n.rfs() == null ? null : Objects.requireNonNullElse(n.rfs().flowEntries(), 32768),
                spec != null && Boolean.TRUE.equals(spec.tlsTxOffload()),
                pod,
                spec == null || spec.sysctlMinimums() == null ? Map.of() : new TreeMap<>(spec.sysctlMinimums()));
    }

    /** The same spec in another mode (the plan command plans whatever the file says). */
    public Desired withMode(TuningMode m) {
        return new Desired(
                m,
                congestionControl,
                sysctls,
                cpusetRelaxDomainLevel,
                numaInterleave,
                kernelModules,
                nicType,
                interfaces,
                combinedQueues,
                coalescing,
                irqAffinity,
                rps,
                rfsFlowEntries,
                tlsTxOffload,
                podUid,
                sysctlMinimums);
    }
}
