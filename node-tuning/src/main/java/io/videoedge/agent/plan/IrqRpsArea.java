package io.videoedge.agent.plan;

import io.videoedge.agent.facts.CpuSet;
import io.videoedge.agent.facts.NicFacts;
import io.videoedge.agent.facts.NodeFacts;
import io.videoedge.api.IrqAffinity;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the NICs' receive work runs: the queue interrupts' CPUs (/proc/irq/N/smp_affinity_list), RPS (rps_cpus) and
 * RFS (rps_flow_cnt) of every RX queue, for the spec's IRQ policy.
 */
final class IrqRpsArea implements TuningArea {

    @Override
    public List<Setting> plan(Stage stage, Desired d, NodeFacts f) {
        List<Setting> out = new ArrayList<>();
        switch (stage) {
            case IRQ_AFFINITY -> NicArea.tuned(d, f).forEach(nic -> irqs(d, f, nic, out));
            case RPS -> NicArea.tuned(d, f).forEach(nic -> rps(d, f, nic, out));
            case RFS -> NicArea.tuned(d, f).forEach(nic -> rfs(d, f, nic, out));
            default -> {}
        }
        return out;
    }

    /**
     * The affinity of every queue IRQ of the tuned NICs as it is now, as settings that would keep it: what a queue
     * change must journal first, since some drivers (virtio_net) rewrite them all on one. Every policy's, whether
     * or not it can be decided yet (a pod-based one waiting for its pod), and policy none's too: a queue change
     * the agent makes leaves the IRQs it does not set as they were, so that a revert (which puts back what its own
     * queue change moves) ends where the node began.
     */
    static List<Setting> affinitiesNow(Desired d, NodeFacts f) {
        return affinitiesNow(NicArea.tuned(d, f));
    }

    /** The affinity of every queue IRQ of these NICs as it is now, as settings that would keep it. */
    static List<Setting> affinitiesNow(List<NicFacts> nics) {
        List<Setting> out = new ArrayList<>();
        for (NicFacts nic : nics) {
            for (int irq : nic.queueIrqs()) {
                String now = nic.irqAffinity().get(irq);
                if (now != null) {
                    out.add(irqFile(nic, irq, now, now));
                }
            }
        }
        return out;
    }

    private static Setting irqFile(NicFacts nic, int irq, String cpus, String current) {
        return Setting.file(
                "irq/" + nic.name() + "/" + irq,
                SettingKind.IRQ_AFFINITY,
                "proc/irq/" + irq + "/smp_affinity_list",
                cpus,
                current);
    }

    /** A finding for a policy without CPUs: Pending while the pod is not known, else Unsupported. */
    private static Setting noTarget(Desired d, String name, PodCpus.Target t) {
        Setting s = t.pending() ? Setting.pending(name, null, t.why()) : Setting.unsupported(name, null, null, t.why());
        return PodCpus.podPolicy(d) ? s.onPod() : s;
    }

    private static void irqs(Desired d, NodeFacts f, NicFacts nic, List<Setting> out) {
        if (d.irqAffinity() == IrqAffinity.NONE) {
            return;
        }
        String name = "irq/" + nic.name();
        if (nic.queueIrqs().isEmpty()) {
            out.add(Setting.unsupported(
                    name,
                    d.irqAffinity().name().toLowerCase(),
                    null,
                    nic.name() + " has no queue interrupts (virtual device or no MSI-X vectors found)"));
            return;
        }
        PodCpus.Target t = PodCpus.target(d, f, nic);
        if (t.cpus() == null) {
            out.add(noTarget(d, name, t));
            return;
        }
        // one CPU per queue: the RX and TX vectors of a queue pair (virtio input.N, output.N) share it,
        // so the pairs, not the vectors, go round the CPUs; an IRQ without a queue number counts by position
        List<Integer> irqs = nic.queueIrqs();
        for (int i = 0; i < irqs.size(); i++) {
            int irq = irqs.get(i);
            int queue = nic.irqQueues().getOrDefault(irq, i);
            String cpu = Integer.toString(t.order().get(queue % t.order().size()));
            Setting s = irqFile(nic, irq, cpu, nic.irqAffinity().get(irq));
            out.add(PodCpus.podPolicy(d) ? s.onPod() : s);
        }
    }

    private static void rps(Desired d, NodeFacts f, NicFacts nic, List<Setting> out) {
        if (!d.rps()) {
            return;
        }
        PodCpus.Target t = PodCpus.target(d, f, nic);
        if (t.cpus() == null) {
            out.add(noTarget(d, "rps/" + nic.name(), t));
            return;
        }
        CpuSet cpus = t.cpus().minus(f.isolatedCpus());
        if (cpus.isEmpty()) {
            out.add(Setting.unsupported(
                    "rps/" + nic.name(),
                    t.cpus().toMask(f.possibleCpus()),
                    null,
                    "every CPU of " + t.cpus().toList()
                            + " is isolated (isolcpus=, nohz_full=): the kernel takes no RPS work there"));
            return;
        }
        // isolated CPUs left out: the kernel drops them from a mask written (Linux 5.10+), so a mask
        // naming them would never read back as written and every pass would roll back
        String mask = cpus.toMask(f.possibleCpus());
        for (String q : nic.rxQueues()) {
            String current = nic.rpsCpus().get(q);
            String name = "rps/" + nic.name() + "/" + q;
            if (current == null) {
                out.add(Setting.unsupported(name, mask, null, "no rps_cpus for " + q + " (kernel without CONFIG_RPS)"));
            } else {
                out.add(queueFile(
                        f, nic, name, SettingKind.RPS_CPUS, q + "/rps_cpus", mask, current, PodCpus.podPolicy(d)));
            }
        }
    }

    private static void rfs(Desired d, NodeFacts f, NicFacts nic, List<Setting> out) {
        if (d.rfsFlowEntries() == null || nic.rxQueues().isEmpty()) {
            return;
        }
        int perQueue = d.rfsFlowEntries() == 0
                ? 0
                : Values.pow2(Math.max(1, d.rfsFlowEntries() / nic.rxQueues().size()));
        for (String q : nic.rxQueues()) {
            String current = nic.rpsFlowCnt().get(q);
            String name = "rfs/" + nic.name() + "/" + q;
            if (current == null) {
                out.add(Setting.unsupported(name, Integer.toString(perQueue), null, "no rps_flow_cnt for " + q));
            } else {
                out.add(queueFile(
                        f,
                        nic,
                        name,
                        SettingKind.RPS_FLOW_CNT,
                        q + "/rps_flow_cnt",
                        Integer.toString(perQueue),
                        current,
                        false));
            }
        }
    }

    /**
     * An RPS/RFS file of a queue. On a read-only /sys a value that differs is a finding, not a write that would fail
     * and roll back the sysctls of the same pass.
     */
    private static Setting queueFile(
            NodeFacts f,
            NicFacts nic,
            String name,
            SettingKind kind,
            String file,
            String want,
            String current,
            boolean podScoped) {
        String target = "sys/class/net/" + nic.name() + "/queues/" + file;
        Setting s;
        if (f.sysfsReadOnly() && !Values.same(kind, want, current)) {
            s = Setting.unsupported(
                    name,
                    want,
                    current,
                    "/sys is mounted read-only on this node (kind's node image does this): /" + target + " stays "
                            + current);
        } else {
            s = Setting.file(name, kind, target, want, current);
        }
        return podScoped ? s.onPod() : s;
    }
}
