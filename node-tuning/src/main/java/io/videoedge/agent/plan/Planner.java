package io.videoedge.agent.plan;

import io.videoedge.agent.facts.NodeFacts;
import io.videoedge.agent.facts.ProbeRequest;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * spec + facts -> settings. Pure: no I/O, same answer for the same input. Each tuning area plans its own settings
 * ({@link TuningArea}); the planner asks them stage by stage, so the plan is in apply order (but for the
 * queue counts, which ApplyEngine sets first).
 */
public final class Planner {
    private static final List<TuningArea> AREAS =
            List.of(new ModuleArea(), new NicArea(), new SysctlArea(), new IrqRpsArea(), new CpusetArea());

    private Planner() {}

    /** What the probe must read for this spec. */
    public static ProbeRequest request(Desired d) {
        Set<String> sysctls = new LinkedHashSet<>(SysctlArea.sysctls(d).keySet());
        sysctls.addAll(d.sysctlMinimums().keySet());
        return new ProbeRequest(d.interfaces(), sysctls, d.podUid());
    }

    public static Plan plan(Desired d, NodeFacts f) {
        List<Setting> out = new ArrayList<>();
        for (TuningArea.Stage stage : TuningArea.Stage.values()) {
            for (TuningArea area : AREAS) {
                out.addAll(area.plan(stage, d, f));
            }
        }
        return new Plan(List.copyOf(out));
    }

    /**
     * The queue IRQs' affinities of the tuned NICs as they are, for the journal before a queue change (the driver
     * may rewrite them all), whatever the IRQ policy.
     */
    public static List<Setting> irqAffinitiesNow(Desired d, NodeFacts f) {
        return IrqRpsArea.affinitiesNow(d, f);
    }

    /** The queue IRQs' affinities of the named interfaces as they are (a revert's queue change may move them). */
    public static List<Setting> irqAffinitiesNow(NodeFacts f, List<String> interfaces) {
        return IrqRpsArea.affinitiesNow(interfaces.stream()
                .map(n -> f.nics().get(n))
                .filter(java.util.Objects::nonNull)
                .toList());
    }

    /** Names of the settings in a plan (for tests and messages). */
    public static Set<String> names(Plan p) {
        Set<String> s = new LinkedHashSet<>();
        p.settings().forEach(x -> s.add(x.name()));
        return s;
    }
}
