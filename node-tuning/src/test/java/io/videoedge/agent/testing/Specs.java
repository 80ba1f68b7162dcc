package io.videoedge.agent.testing;

import io.videoedge.agent.plan.Desired;
import io.videoedge.api.IrqAffinity;
import io.videoedge.api.NicSpec;
import io.videoedge.api.NicType;
import io.videoedge.api.NodeTuningSpec;
import io.videoedge.api.TuningMode;
import io.videoedge.api.TuningSpec;
import java.util.List;
import java.util.Map;

/** NodeTuning specs for tests, built from the API records with the fields a case needs. */
public final class Specs {
    private NicType type = NicType.AUTO;
    private List<String> interfaces = List.of("eth0");
    private Integer queues;
    private NicSpec.Coalescing coalescing;
    private IrqAffinity irq = IrqAffinity.SPREAD;
    private boolean rps = true;
    private Integer rfs;
    private TuningMode mode = TuningMode.APPLY;
    private String cc = "bbr";
    private Map<String, String> sysctls = Map.of();
    private Integer relax;
    private boolean interleave;
    private List<String> modules = List.of();
    private String podUid;
    private Boolean tlsTxOffload;
    private Map<String, Long> minimums;

    public static Specs spec() {
        return new Specs();
    }

    public Specs type(NicType t) {
        type = t;
        return this;
    }

    public Specs interfaces(String... names) {
        interfaces = List.of(names);
        return this;
    }

    public Specs queues(Integer n) {
        queues = n;
        return this;
    }

    public Specs coalescing(Integer rx, Integer tx, Boolean adaptive) {
        coalescing = new NicSpec.Coalescing(rx, tx, adaptive);
        return this;
    }

    public Specs irq(IrqAffinity p) {
        irq = p;
        return this;
    }

    public Specs rps(boolean on) {
        rps = on;
        return this;
    }

    public Specs rfs(Integer entries) {
        rfs = entries;
        return this;
    }

    public Specs plan() {
        mode = TuningMode.PLAN;
        return this;
    }

    public Specs cc(String name) {
        cc = name;
        return this;
    }

    public Specs sysctls(Map<String, String> m) {
        sysctls = m;
        return this;
    }

    public Specs relax(Integer level) {
        relax = level;
        return this;
    }

    public Specs interleave() {
        interleave = true;
        return this;
    }

    public Specs modules(String... m) {
        modules = List.of(m);
        return this;
    }

    /** spec.tlsTxOffload, as the operator sets it for tls.mode ktls-offload. */
    public Specs tlsTxOffload(Boolean on) {
        tlsTxOffload = on;
        return this;
    }

    /** spec.sysctlMinimums, as the operator renders them from the server's socket sizes. */
    public Specs minimums(Map<String, Long> m) {
        minimums = m;
        return this;
    }

    public Specs pod(String uid) {
        podUid = uid;
        return this;
    }

    public NodeTuningSpec build() {
        return new NodeTuningSpec(
                new NodeTuningSpec.Source("video", "edge", "uid-1"),
                new NicSpec(type, interfaces, queues, coalescing, irq, rps, rfs == null ? null : new NicSpec.Rfs(rfs)),
                new TuningSpec(mode, cc, sysctls, relax, interleave, modules),
                new NodeTuningSpec.ServerPlacement(
                        2, podUid == null ? null : "video", podUid == null ? null : "edge-x", podUid),
                tlsTxOffload,
                minimums);
    }

    public Desired desired() {
        return Desired.of(build());
    }
}
