package io.videoedge.agent.testing;

import io.videoedge.agent.apply.PassResult;
import io.videoedge.agent.facts.NodeFacts;
import io.videoedge.agent.plan.Plan;
import io.videoedge.agent.plan.Setting;
import io.videoedge.api.SettingState;
import java.util.List;
import java.util.Map;

/** Pass results for tests of what reads them (status, metrics): no notes, no originals. */
public final class Passes {
    private Passes() {}

    public static PassResult of(
            PassResult.Outcome outcome,
            Plan plan,
            NodeFacts facts,
            List<Setting> drifted,
            boolean wrote,
            String error) {
        return new PassResult(outcome, plan, facts, drifted, wrote, error, List.of(), List.of(), List.of(), Map.of());
    }

    /** The plan with every setting that needed a write applied. */
    public static PassResult applied(Plan p, NodeFacts f) {
        List<Setting> done = p.settings().stream()
                .map(s -> s.needsWrite() ? s.with(SettingState.APPLIED, s.desired(), null) : s)
                .toList();
        return of(PassResult.Outcome.APPLIED, new Plan(done), f, List.of(), true, null);
    }
}
