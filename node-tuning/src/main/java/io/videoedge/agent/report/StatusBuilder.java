package io.videoedge.agent.report;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.videoedge.agent.apply.PassResult;
import io.videoedge.agent.apply.RevertResult;
import io.videoedge.agent.effect.EffectTracker;
import io.videoedge.agent.effect.TrafficWindow;
import io.videoedge.agent.facts.NicFacts;
import io.videoedge.agent.facts.NodeFacts;
import io.videoedge.agent.plan.Setting;
import io.videoedge.api.Conditions;
import io.videoedge.api.NodeCapabilities;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.SettingState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Pure: pass result + previous status -> new status. Applied and Degraded conditions keep their
 * lastTransitionTime while their status does not change, so an unchanged node yields an equal
 * status and nothing is written.
 *
 * <p>Applied=True means the node is tuned for this generation: every setting the node can take
 * is in place, and pod-specific settings (IRQ policies on the server's cores, its cpuset) are in
 * place too once the spec names the server pod. Before that they are Pending and do not hold
 * Applied back, so the node is tuned before the server starts; the operator's pod reference
 * bumps the generation, and Applied for that generation waits for them.
 */
public final class StatusBuilder {
    /** Degraded reason while pod-specific settings wait for the server pod. */
    public static final String WAITING_FOR_SERVER_POD = "WaitingForServerPod";

    private StatusBuilder() {}

    public static NodeTuningStatus build(
            PassResult r, NodeTuningStatus previous, long generation, boolean podKnown, Instant now) {
        return build(r, previous, generation, podKnown, now, null);
    }

    /**
     * The status of a pass, with the traffic effect the agent keeps (null: the previous status's, so an agent that
     * restarted keeps reporting the last one it measured).
     */
    public static NodeTuningStatus build(
            PassResult r,
            NodeTuningStatus previous,
            long generation,
            boolean podKnown,
            Instant now,
            EffectTracker.Effect effect) {
        NodeTuningStatus prev =
                previous == null ? new NodeTuningStatus(null, null, null, null, null, null, null, null) : previous;
        List<Setting> settings = r.plan().settings();
        List<Setting> failed = in(settings, SettingState.FAILED);
        List<Setting> unsupported = in(settings, SettingState.UNSUPPORTED);
        List<Setting> pending = in(settings, SettingState.PENDING);
        boolean podSettingsWaiting = podKnown && pending.stream().anyMatch(Setting::podScoped);
        long changed = settings.stream()
                .filter(s -> s.state() == SettingState.APPLIED || s.state() == SettingState.UNCHANGED)
                .count();

        String appliedStatus;
        String appliedReason;
        String appliedMessage;
        switch (r.outcome()) {
            case PLANNED -> {
                appliedStatus = Conditions.FALSE;
                appliedReason = Conditions.PLAN_ONLY;
                appliedMessage = "plan only: "
                        + in(settings, SettingState.PLANNED).size() + " setting(s) would change; nothing was changed";
            }
            case INVALID -> {
                appliedStatus = Conditions.FALSE;
                appliedReason = Conditions.INVALID_SPEC;
                appliedMessage = r.error();
            }
            case ROLLED_BACK -> {
                appliedStatus = Conditions.FALSE;
                appliedReason = Conditions.ROLLED_BACK;
                appliedMessage = r.error();
            }
            case ROLLBACK_INCOMPLETE -> {
                appliedStatus = Conditions.FALSE;
                appliedReason = Conditions.APPLY_FAILED;
                appliedMessage = r.error();
            }
            default -> {
                if (podSettingsWaiting) {
                    appliedStatus = Conditions.FALSE;
                    appliedReason = Conditions.APPLYING;
                    appliedMessage = "node settings applied; waiting to apply the server pod's: " + names(pending);
                } else {
                    appliedStatus = Conditions.TRUE;
                    appliedReason = Conditions.AS_EXPECTED;
                    appliedMessage = changed + " setting(s) applied or already in place"
                            + (pending.isEmpty() ? "" : "; " + pending.size() + " wait for the server pod");
                }
            }
        }

        String degradedStatus = Conditions.TRUE;
        String degradedReason;
        List<String> parts = new ArrayList<>();
        if (!failed.isEmpty()) {
            parts.add("failed: " + detail(failed));
        }
        if (!unsupported.isEmpty()) {
            parts.add("unsupported on this node: " + detail(unsupported));
        }
        if (!pending.isEmpty()) {
            parts.add("pending: " + detail(pending));
        }
        if (!failed.isEmpty()) {
            degradedReason = r.outcome() == PassResult.Outcome.ROLLED_BACK
                    ? Conditions.ROLLED_BACK
                    : r.outcome() == PassResult.Outcome.INVALID ? Conditions.INVALID_SPEC : Conditions.APPLY_FAILED;
        } else if (!unsupported.isEmpty()) {
            degradedReason = Conditions.UNSUPPORTED_SETTINGS;
        } else if (!pending.isEmpty()) {
            degradedReason = WAITING_FOR_SERVER_POD;
        } else {
            degradedStatus = Conditions.FALSE;
            degradedReason = Conditions.AS_EXPECTED;
            parts.add("every setting is in place");
        }
        String degradedMessage = String.join("; ", parts);

        List<Condition> conditions = List.of(
                condition(prev, Conditions.APPLIED, appliedStatus, appliedReason, appliedMessage, generation, now),
                condition(prev, Conditions.DEGRADED, degradedStatus, degradedReason, degradedMessage, generation, now));

        String message = switch (r.outcome()) {
            case APPLIED -> summary(settings, podSettingsWaiting ? "applying" : "applied");
            case PLANNED -> summary(settings, "plan only");
            default -> r.error();
        };

        NodeTuningStatus.Drift drift = prev.lastDrift();
        if (!r.drifted().isEmpty()) {
            long count = drift == null || drift.count() == null ? 0 : drift.count();
            drift = new NodeTuningStatus.Drift(
                    now.toString(),
                    r.drifted().stream()
                            .map(s -> s.name() + ": found " + s.current() + ", want " + s.desired())
                            .toList(),
                    count + 1);
        }
        boolean applied = r.outcome() == PassResult.Outcome.APPLIED;
        return new NodeTuningStatus(
                generation,
                conditions,
                truncate(message),
                applied ? r.fingerprint() : prev.fingerprint(),
                r.appliedAChange() ? now.toString() : prev.lastAppliedTime(),
                settings.stream().map(s -> setting(s, r)).toList(),
                capabilities(r.facts()),
                drift,
                effect == null ? prev.effect() : effect(effect));
    }

    /** The before-and-after effect as the status shows it. */
    static NodeTuningStatus.Effect effect(EffectTracker.Effect e) {
        return new NodeTuningStatus.Effect(traffic(e.before()), traffic(e.after()));
    }

    private static NodeTuningStatus.Traffic traffic(EffectTracker.Window w) {
        if (w == null) {
            return null;
        }
        TrafficWindow t = w.traffic();
        return new NodeTuningStatus.Traffic(
                w.end().toString(),
                t.seconds(),
                t.tcpMemoryPagesPerConnection(),
                t.netRxBusiestCpuPercent(),
                t.softnetDropsPerMillion(),
                t.timeSqueezesPerMillion(),
                t.tcpRetransmitPercent());
    }

    /** Status while the NodeTuning is being deleted and originals are restored. */
    public static NodeTuningStatus restoring(RevertResult r, NodeTuningStatus previous, long generation, Instant now) {
        NodeTuningStatus prev =
                previous == null ? new NodeTuningStatus(null, null, null, null, null, null, null, null) : previous;
        String msg =
                "restoring originals: " + r.failed().size() + " could not be restored yet: " + r.describeFailures();
        List<Condition> conditions = List.of(
                condition(prev, Conditions.APPLIED, Conditions.FALSE, Conditions.RESTORING, msg, generation, now),
                condition(prev, Conditions.DEGRADED, Conditions.TRUE, Conditions.RESTORING, msg, generation, now));
        return new NodeTuningStatus(
                generation,
                conditions,
                truncate(msg),
                prev.fingerprint(),
                prev.lastAppliedTime(),
                prev.settings(),
                prev.capabilities(),
                prev.lastDrift(),
                prev.effect());
    }

    /**
     * Status while the journal of originals is unreadable: the agent changes nothing (its pass ran
     * plan-only). Applied stays True when every setting is already in place (the node serves as
     * tuned), else it is False; Degraded says why in either case. The settings, and the originals in
     * them, stay as last reported: they are the copy a repaired agent may need.
     *
     * @param inPlace whether the plan-only pass found nothing to change
     */
    public static NodeTuningStatus journalUnreadable(
            NodeTuningStatus previous, long generation, String problem, boolean inPlace, Instant now) {
        NodeTuningStatus prev =
                previous == null ? new NodeTuningStatus(null, null, null, null, null, null, null, null) : previous;
        List<Condition> conditions = List.of(
                inPlace
                        ? condition(
                                prev,
                                Conditions.APPLIED,
                                Conditions.TRUE,
                                Conditions.AS_EXPECTED,
                                "every setting is in place (checked read-only: the journal is unreadable)",
                                generation,
                                now)
                        : condition(
                                prev,
                                Conditions.APPLIED,
                                Conditions.FALSE,
                                Conditions.JOURNAL_UNREADABLE,
                                problem,
                                generation,
                                now),
                condition(
                        prev,
                        Conditions.DEGRADED,
                        Conditions.TRUE,
                        Conditions.JOURNAL_UNREADABLE,
                        problem,
                        generation,
                        now));
        return new NodeTuningStatus(
                generation,
                conditions,
                truncate(problem),
                prev.fingerprint(),
                prev.lastAppliedTime(),
                prev.settings(),
                prev.capabilities(),
                prev.lastDrift(),
                prev.effect());
    }

    private static NodeTuningStatus.Setting setting(Setting s, PassResult r) {
        String original = r.originals().get(s.name());
        if (original == null && (s.state() == SettingState.UNCHANGED || s.state() == SettingState.PLANNED)) {
            original = s.current(); // never changed by the agent: what is there is the original
        }
        return new NodeTuningStatus.Setting(
                s.name(),
                s.desired(),
                s.current(),
                original,
                s.state(),
                s.state() == SettingState.APPLIED || s.state() == SettingState.UNCHANGED ? null : s.message());
    }

    public static NodeCapabilities capabilities(NodeFacts f) {
        List<NodeCapabilities.Nic> nics =
                f.nics().values().stream().map(StatusBuilder::nic).toList();
        return new NodeCapabilities(
                f.kernel(),
                f.congestionControls(),
                f.congestionControlUsable("bbr"),
                f.ktls(),
                f.cgroupVersion(),
                f.numaNodes().size(),
                f.onlineCpus().toList(),
                nics,
                f.bootId());
    }

    private static NodeCapabilities.Nic nic(NicFacts n) {
        NicFacts.Channels ch = n.channels();
        Integer combined = ch == null ? null : ch.hasCombined() ? ch.combined() : ch.rx();
        Integer max = ch == null ? null : ch.hasCombined() ? ch.maxCombined() : ch.maxRx();
        return new NodeCapabilities.Nic(
                n.name(),
                n.driver(),
                n.rxQueues().size(),
                n.txQueues(),
                combined,
                max,
                n.queueIrqs(),
                n.numaNode(),
                n.tlsTxOffload() == null ? null : n.tlsTxOffload().offered(),
                n.tlsTxOffload() == null ? null : n.tlsTxOffload().on());
    }

    private static Condition condition(
            NodeTuningStatus prev,
            String type,
            String status,
            String reason,
            String message,
            long generation,
            Instant now) {
        Condition old = prev.conditions() == null
                ? null
                : prev.conditions().stream()
                        .filter(c -> type.equals(c.getType()))
                        .findFirst()
                        .orElse(null);
        String since = old != null && Objects.equals(old.getStatus(), status) && old.getLastTransitionTime() != null
                ? old.getLastTransitionTime()
                : now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
        return new ConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withReason(reason)
                .withMessage(truncate(message))
                .withObservedGeneration(generation)
                .withLastTransitionTime(since)
                .build();
    }

    private static String summary(List<Setting> settings, String verb) {
        long applied =
                settings.stream().filter(s -> s.state() == SettingState.APPLIED).count();
        long unchanged = settings.stream()
                .filter(s -> s.state() == SettingState.UNCHANGED)
                .count();
        long planned = in(settings, SettingState.PLANNED).size();
        long unsupported = in(settings, SettingState.UNSUPPORTED).size();
        long pending = in(settings, SettingState.PENDING).size();
        StringBuilder sb = new StringBuilder(verb).append(": ");
        List<String> p = new ArrayList<>();
        if (applied > 0) {
            p.add(applied + " changed");
        }
        if (unchanged > 0) {
            p.add(unchanged + " already set");
        }
        if (planned > 0) {
            p.add(planned + " would change");
        }
        if (unsupported > 0) {
            p.add(unsupported + " unsupported");
        }
        if (pending > 0) {
            p.add(pending + " pending");
        }
        return sb.append(p.isEmpty() ? "nothing to do" : String.join(", ", p)).toString();
    }

    private static List<Setting> in(List<Setting> settings, SettingState state) {
        return settings.stream().filter(s -> s.state() == state).toList();
    }

    private static String names(List<Setting> l) {
        return l.stream().map(Setting::name).collect(Collectors.joining(", "));
    }

    private static String detail(List<Setting> l) {
        return l.stream()
                .map(s -> s.name() + (s.message() == null ? "" : " (" + s.message() + ")"))
                .collect(Collectors.joining("; "));
    }

    private static String truncate(String s) {
        // metav1.Condition messages are limited to 32768 characters
        return s == null || s.length() <= 4096 ? s : s.substring(0, 4093) + "...";
    }
}
