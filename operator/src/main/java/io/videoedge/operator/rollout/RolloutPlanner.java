package io.videoedge.operator.rollout;

import io.fabric8.kubernetes.api.model.Pod;
import io.videoedge.api.SettingState;
import io.videoedge.api.TuningMode;
import io.videoedge.operator.health.NodeHealth;
import io.videoedge.operator.health.NodeHealth.Server;
import io.videoedge.operator.health.NodeHealth.Tuning;
import io.videoedge.operator.health.NodeHealth.TuningVerdict;
import io.videoedge.operator.render.Names;
import io.videoedge.operator.render.TuningInputs;
import io.videoedge.operator.rollout.NodeDecision.Phase;
import io.videoedge.operator.rollout.NodeDecision.PodAction;
import io.videoedge.operator.rollout.NodeRolloutState.LastGood;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The rollout state machine: which node gets the current revision (tuning and edge-server pod) now,
 * which keeps what it has, which failed. Pure: the same nodes at the same instant give the same plan,
 * and everything it remembers is in each node's {@link NodeRolloutState}, so an operator restarted
 * mid-rollout carries on where the last one stopped.
 *
 * <p>Per node, from {@link NodeView}:
 * <ul>
 *   <li>no NodeTuning yet: a new node, given the current revision at once (it serves nothing yet);</li>
 *   <li>its turn started for the current revision ({@code state.target == key}): a node with a server
 *       pod to re-tune or restart is drained first (readiness gate closed, its tuning kept) until its pod
 *       has been out of service (not Ready) for {@code drainSeconds}, counted from when the kubelet took
 *       it out (a pod out of service already may have drained long ago); then it gets the target tuning
 *       and an outdated pod is evicted; it is <b>updated</b> once its tuning and pod are the target's, it
 *       is tuned and its server Ready for {@code soakSeconds}. It <b>fails</b> when (only for a node that
 *       ran a tuning healthily before) its agent reports Failed for the target tuning, a setting Applied in its last
 *       good tuning is now Unsupported or Failed, or it is not done within
 *       {@code progressDeadlineSeconds}. A failure pauses the rollout; with autoRevert the node gets
 *       its last good tuning back (when that is not the target's own: then, as without autoRevert, the
 *       failure holds until the node is tuned and serving on the target for the soak time). A node
 *       that never ran healthily and is not done within the deadline
 *       is <b>stalled</b> instead: it keeps its turn and pauses nothing, and the status stops counting it
 *       as on its way;</li>
 *   <li>otherwise, outdated, or with nothing to change but not yet tuned and serving for the soak time
 *       (a restart-only change where the node has no pod, say): it <b>waits</b>, keeping its tuning and
 *       server, until there is room (a node out of service needs none); one with nothing to change that
 *       soaks meanwhile is updated without a turn.</li>
 * </ul>
 * Room: at most maxUnavailable nodes are in their turn or out of service at once (nodes already out of
 * service count, and so does a pod whose readiness gate is closed, before the kubelet has acted on it). A waiting node that is out of service anyway, or never ran healthily, starts without
 * needing room (it takes some). While paused, no turn starts (a new node, with no NodeTuning yet, still
 * gets the revision at once), and a turn that has changed nothing on its node yet (its server draining,
 * or drained in the very pass that sees the failure) is called off: the node serves again and waits.
 * The first healthy, soaked tuning of a node is recorded as its last good one, and every later one
 * after it.
 */
public final class RolloutPlanner {
    /** How soon an eviction is asked again while its pod is still there (a PodDisruptionBudget refused it). */
    static final Duration EVICTION_RETRY = Duration.ofSeconds(5);

    private RolloutPlanner() {}

    /** One node's facts for this pass. */
    private record Facts(
            NodeView view,
            NodeRolloutState state,
            TuningInputs tuning,
            String tuningRevision,
            TuningVerdict verdict,
            Server server,
            boolean podCurrent,
            boolean podTerminating,
            Instant readySince,
            Instant notReadySince) {

        String node() {
            return view.node();
        }

        boolean healthy() {
            return server == Server.READY && tunedAsAsked();
        }

        /** Tuned, or planned only where tuning.mode Plan asks for that. */
        boolean tunedAsAsked() {
            return verdict.state().tuned()
                    || verdict.state() == Tuning.PLANNED
                            && tuning.tuning() != null
                            && tuning.tuning().mode() == TuningMode.PLAN;
        }

        /** Healthy, and Ready for the soak time counted from {@code since} (a change) or from when it became Ready. */
        boolean soaked(Instant since, Duration soak, Instant now) {
            if (!healthy() || readySince == null) {
                return false;
            }
            Instant from = since != null && since.isAfter(readySince) ? since : readySince;
            return !from.plus(soak).isAfter(now);
        }

        boolean serving() {
            return server == Server.READY;
        }

        boolean tuningIs(String revision) {
            return Objects.equals(tuningRevision, revision);
        }

        /** Its NodeTuning carries the target's tuning and its pod is the target's (or there is none to replace). */
        boolean onTarget(RolloutTarget target) {
            return tuningIs(target.tuningRevision()) && podCurrent;
        }

        /**
         * Out of service for the drain time: its pod not Ready (the closed gate has reached the kubelet, or it
         * was down anyway) for {@code drain}, counted from when it went out of service, not from the turn's start.
         */
        boolean drained(Duration drain, Instant now) {
            return drain.isZero()
                    || drainedAt(notReadySince, drain).map(t -> !t.isAfter(now)).orElse(false);
        }

        /**
         * Its server must be drained before this turn changes anything: it is to be restarted (an outdated pod), or
         * its node re-tuned while a server may have clients, and it has not been out of service for the drain time.
         */
        boolean drainDue(RolloutTarget target, Duration drain, Instant now) {
            boolean hasServer = view.pod() != null && !podTerminating;
            boolean podOutdated = !podCurrent && !podTerminating;
            return hasServer && (podOutdated || !tuningIs(target.tuningRevision())) && !drained(drain, now);
        }

        /**
         * Nothing on the node has changed for {@code target} yet: its NodeTuning does not carry the target's tuning
         * (or carries what the node ran healthily before, with its outdated pod still there), and no pod of it is
         * on its way out.
         */
        boolean untouchedBy(RolloutTarget target) {
            LastGood good = state.lastGood();
            return !podTerminating
                    && (!tuningIs(target.tuningRevision()) || good != null && tuningIs(good.revision()) && !podCurrent);
        }

        Facts with(NodeRolloutState newState) {
            return new Facts(
                    view,
                    newState,
                    tuning,
                    tuningRevision,
                    verdict,
                    server,
                    podCurrent,
                    podTerminating,
                    readySince,
                    notReadySince);
        }
    }

    public static RolloutPlan plan(
            RolloutTarget target, RolloutPolicy policy, Collection<NodeView> nodes, Instant now) {
        String key = target.key();
        SortedMap<String, NodeDecision> decided = new TreeMap<>();
        List<RolloutPlan.Event> events = new ArrayList<>();
        List<Facts> toStart = new ArrayList<>();
        Map<String, Facts> factsOf = new HashMap<>();
        for (NodeView view :
                nodes.stream().sorted(Comparator.comparing(NodeView::node)).toList()) {
            if (view.nt() == null) {
                decided.put(
                        view.node(),
                        new NodeDecision(
                                view.node(),
                                target.tuning(),
                                target.tuningRevision(),
                                NodeRolloutState.NONE.start(key, now),
                                Phase.UPDATING,
                                PodAction.NONE,
                                null));
                continue;
            }
            Facts f = facts(view, target, now);
            factsOf.put(f.node(), f);
            NodeRolloutState state = f.state;
            boolean onTarget = f.onTarget(target);
            if (state.failedFor(key)) {
                // fixed: on the target, soaked since the failure, and what failed holds no more (a regressed
                // setting leaves the node Degraded, which counts as tuned, so soaking alone does not say so)
                boolean fixed = !reverts(policy, state, target)
                        && onTarget
                        && f.soaked(Instant.parse(state.failedAt()), policy.soak(), now)
                        && (state.lastGood() == null || failure(f, target, policy, now, true) == null);
                if (!fixed) {
                    decided.put(f.node(), failed(f, target, policy, state));
                    continue;
                }
                // fixed on the node meanwhile: the failure no longer holds, the rollout goes on
                state = state.done(key, now);
                f = f.with(state);
            }
            if (state.doneFor(key) && onTarget) {
                // updated earlier: what becomes of it now is the node's health, not the rollout's
                state = remember(f, f.soaked(null, policy.soak(), now));
                decided.put(f.node(), updated(f, target, state));
                continue;
            }
            boolean inTurn = state.inTurnFor(key);
            boolean done = onTarget && f.soaked(inTurn ? state.started() : null, policy.soak(), now);
            if (inTurn) {
                // only a node that ran healthily before can fail: there is something to protect and to go back to
                String failure = state.lastGood() != null ? failure(f, target, policy, now, done) : null;
                if (failure != null) {
                    NodeDecision d = failed(f, target, policy, state.fail(now, failure));
                    decided.put(f.node(), d);
                    events.add(new RolloutPlan.Event(
                            "Warning",
                            "RolloutPaused",
                            "node " + f.node() + " failed revision " + key + ": " + failure
                                    + (d.phase() == Phase.REVERTED
                                            ? "; its last good tuning " + d.tuningRevision() + " is put back"
                                            : "")));
                    continue;
                }
                if (!done) {
                    NodeDecision d = inTurn(f, target, policy, state, now);
                    // a pod still being drained or evicted keeps its own phase and message (the eviction is asked
                    // again), unless the drain has not taken the server out of service by the deadline: that stalls it
                    boolean stuckServing = d.podAction() == PodAction.DRAIN && f.serving();
                    String overdue = state.lastGood() == null && (d.podAction() == PodAction.NONE || stuckServing)
                            ? overdue(f, target, policy, now)
                            : null;
                    decided.put(f.node(), overdue == null ? d : stalled(d, overdue));
                    continue;
                }
            }
            // not in its turn, or done now: what it runs healthily is its last good tuning
            state = remember(f, f.soaked(null, policy.soak(), now));
            f = f.with(state);
            if (done) {
                decided.put(f.node(), updated(f, target, state.done(key, now)));
            } else {
                // outdated, or with nothing to change but not tuned and serving (its pod may be missing): a
                // turn, under the deadline like any other, when there is room
                toStart.add(f);
            }
        }

        Optional<NodeDecision> pausedBy = decided.values().stream()
                .filter(d -> d.phase() == Phase.FAILED || d.phase() == Phase.REVERTED)
                .findFirst();
        // a pause calls off the turns that have changed nothing on their node yet (a server draining, or drained in
        // this very pass: its tuning and pod as they were): they serve again and wait like the rest, and drain
        // afresh once the rollout goes on
        pausedBy.ifPresent(by -> List.copyOf(decided.values()).forEach(d -> {
            Facts f = factsOf.get(d.node()); // none for a new node (no NodeTuning yet): it gets the revision
            boolean untouched = f != null
                    && (d.podAction() == PodAction.DRAIN // its tuning and pod kept: nothing changed
                            || d.phase() == Phase.UPDATING && f.untouchedBy(target));
            if (!untouched) {
                return;
            }
            decided.put(
                    d.node(),
                    waiting(
                            d.node(),
                            f.tuning,
                            f.tuningRevision,
                            d.state().withdrawn(),
                            paused(by) + "; its turn was called off before anything on the node changed"));
        }));
        // room: out of service (or on its way out: its gate closed) or in their turn, each node once
        java.util.Set<String> busy = new HashSet<>();
        decided.values().stream().filter(d -> d.phase().inTurn()).forEach(d -> busy.add(d.node()));
        nodes.stream().filter(v -> outOfService(v.pod())).forEach(v -> busy.add(v.node()));
        toStart.sort(Comparator.comparing((Facts f) -> !busy.contains(f.node())).thenComparing(Facts::node));
        for (Facts f : toStart) {
            // free: out of service anyway (it takes room already), or serving without ever having run tuned (nothing
            // to protect); a node tuned and serving that has not soaked yet (no last good tuning so far) serves all
            // the same: it needs room
            boolean free = busy.contains(f.node()) || !f.serving() || (f.state.lastGood() == null && !f.healthy());
            if (pausedBy.isEmpty() && (free || busy.size() < policy.maxUnavailable())) {
                busy.add(f.node());
                decided.put(f.node(), inTurn(f, target, policy, f.state.start(key, now), now));
            } else {
                decided.put(
                        f.node(),
                        waiting(
                                f.node(),
                                f.tuning,
                                f.tuningRevision,
                                f.state,
                                pausedBy.isPresent()
                                        ? paused(pausedBy.get())
                                        : "waiting for its turn (" + busy.size() + " of at most "
                                                + policy.maxUnavailable() + " node(s) updating or out of service)"));
            }
        }
        // blocked: nodes wait, none is in its turn (a stalled one keeps its turn), and what takes the room is out of
        // service outside the rollout: nothing the rollout does frees it
        boolean turnsRunning = decided.values().stream().anyMatch(d -> d.phase().inTurn());
        // (a waiting node already on the target only soaks: it is updated without a turn)
        boolean waiting = decided.values().stream()
                .filter(d -> d.phase() == Phase.WAITING)
                .map(d -> factsOf.get(d.node()))
                .anyMatch(f -> f == null || !f.onTarget(target));
        List<String> blockedBy = pausedBy.isEmpty() && waiting && !turnsRunning && !busy.isEmpty()
                ? busy.stream().sorted().toList()
                : List.of();
        // a failed node with the target's tuning may be fixed there (an outdated pod of its: by deleting it); one
        // reverted, or whose turn failed before it was re-tuned (its drain), has nothing of the revision to fix
        boolean untilNewRevision = pausedBy.map(d ->
                        d.phase() == Phase.REVERTED || !factsOf.get(d.node()).tuningIs(target.tuningRevision()))
                .orElse(false);
        return new RolloutPlan(
                target,
                policy,
                decided,
                pausedBy.map(NodeDecision::node).orElse(null),
                pausedBy.map(d -> d.state().failure()).orElse(null),
                untilNewRevision,
                blockedBy,
                List.copyOf(events));
    }

    /**
     * When the next time-based step is due (a soak ending, a drain ending, a deadline passing), so the
     * reconciler looks again then; empty when nothing waits on the clock.
     */
    public static Optional<Duration> recheck(RolloutPlan plan, Collection<NodeView> nodes, Instant now) {
        Map<String, NodeView> views = new TreeMap<>();
        nodes.forEach(v -> views.put(v.node(), v));
        Instant next = null;
        for (NodeDecision d : plan.nodes().values()) {
            NodeView v = views.get(d.node());
            Pod pod = v == null ? null : v.pod();
            // from when a soak counts: the start of the turn; for a failed node that may recover (not
            // reverted), the failure; for a waiting node (one with nothing to change is updated once it
            // soaked), when it became Ready
            Instant anchor;
            List<Instant> due = new ArrayList<>();
            if (d.phase().inTurn()) {
                anchor = d.state().started();
                due.add(anchor.plus(plan.policy().deadline()));
                if (d.podAction() == PodAction.DRAIN) {
                    // drained counts from when its pod went out of service; until then the kubelet's Ready change
                    // (the closed gate) wakes the reconciler
                    drainedAt(
                                    NodeHealth.notReadySince(pod).orElse(null),
                                    plan.policy().drain())
                            .ifPresent(due::add);
                } else if (d.podAction() == PodAction.EVICT) {
                    // an eviction a PodDisruptionBudget refused is asked again soon (once it succeeds, the
                    // pod's deletion wakes the reconciler anyway), not only at the deadline
                    due.add(now.plus(EVICTION_RETRY));
                }
            } else if (d.phase() == Phase.FAILED && d.state().failedAt() != null) {
                anchor = Instant.parse(d.state().failedAt());
            } else if (d.phase() == Phase.WAITING) {
                anchor = Instant.EPOCH;
            } else {
                continue;
            }
            NodeHealth.readySince(pod)
                    .ifPresent(since -> due.add((since.isAfter(anchor) ? since : anchor)
                            .plus(plan.policy().soak())));
            for (Instant t : due) {
                if (t.isAfter(now) && (next == null || t.isBefore(next))) {
                    next = t;
                }
            }
        }
        return next == null
                ? Optional.empty()
                : Optional.of(Duration.between(now, next).plusMillis(500));
    }

    /**
     * When a pod out of service since {@code since} (the Ready condition's lastTransitionTime, in whole seconds:
     * it may have gone up to a second later) has been out for {@code drain}; empty while it serves.
     */
    private static Optional<Instant> drainedAt(Instant since, Duration drain) {
        return Optional.ofNullable(since).map(t -> t.plus(drain).plusSeconds(1));
    }

    private static Facts facts(NodeView view, RolloutTarget target, Instant now) {
        Pod pod = view.pod();
        boolean terminating = pod != null && pod.getMetadata().getDeletionTimestamp() != null;
        // no pod (or only one on its way out): the DaemonSet controller makes the next from the current template
        boolean podCurrent = pod == null || terminating || Objects.equals(podRevision(pod), target.podRevision());
        TuningInputs tuning = TuningInputs.of(view.nt().getSpec());
        String revision = Optional.ofNullable(view.nt().getMetadata().getAnnotations())
                .map(a -> a.get(Names.TUNING_REVISION))
                .orElseGet(tuning::revision);
        Server server = NodeHealth.server(serving(pod));
        return new Facts(
                view,
                NodeRolloutState.of(view.nt()),
                tuning,
                revision,
                NodeHealth.tuning(view.nt()),
                server,
                podCurrent,
                terminating,
                terminating ? null : NodeHealth.readySince(pod).orElse(null),
                terminating ? null : NodeHealth.notReadySince(pod).orElse(null));
    }

    static String podRevision(Pod pod) {
        var annotations = pod.getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(Names.POD_REVISION);
    }

    /** A node tuned and serving for the soak time: what it runs is its last good tuning. */
    private static NodeRolloutState remember(Facts f, boolean soaked) {
        NodeRolloutState state = f.state;
        if (!soaked) {
            return state;
        }
        List<String> applied = NodeHealth.settingsIn(f.view.nt(), SettingState.APPLIED, SettingState.UNCHANGED);
        LastGood good = new LastGood(f.tuningRevision, f.tuning, applied);
        return good.equals(state.lastGood()) ? state : state.withLastGood(good);
    }

    private static NodeDecision inTurn(
            Facts f, RolloutTarget target, RolloutPolicy policy, NodeRolloutState state, Instant now) {
        boolean podOutdated = !f.podCurrent && !f.podTerminating;
        boolean retune = !f.tuningIs(target.tuningRevision());
        PodAction action = PodAction.NONE;
        String message;
        // a server that may have clients is taken out of service before anything of its node changes: a re-tune
        // (NIC queues, IRQs) as well as a restart
        if (f.drainDue(target, policy.drain(), now)) {
            action = PodAction.DRAIN;
            message = podOutdated
                    ? "draining its edge server before the restart"
                    : "draining its edge server before re-tuning the node";
        } else if (podOutdated) {
            action = PodAction.EVICT;
            message = "restarting its edge server for the new revision";
        } else if (retune) {
            message = "tuning it";
        } else if (!f.tunedAsAsked()) {
            message = "tuning: " + f.verdict.message();
        } else if (f.server != Server.READY) {
            message = "waiting for its edge server to be Ready";
        } else {
            message = "soaking: Ready for " + policy.soak().toSeconds() + " s before the next node";
        }
        // while it drains, the node keeps the tuning it serves on; the target's comes once it is out of service
        boolean keep = action == PodAction.DRAIN;
        return new NodeDecision(
                f.node(),
                keep ? f.tuning : target.tuning(),
                keep ? f.tuningRevision : target.tuningRevision(),
                state,
                keep ? Phase.DRAINING : Phase.UPDATING,
                action,
                message);
    }

    /** Keeps its tuning and server, and serves, until its turn. */
    private static NodeDecision waiting(
            String node, TuningInputs tuning, String tuningRevision, NodeRolloutState state, String message) {
        return new NodeDecision(node, tuning, tuningRevision, state, Phase.WAITING, PodAction.NONE, message);
    }

    private static String paused(NodeDecision by) {
        return "waiting: the rollout is paused (node " + by.node() + " failed)";
    }

    /** On the target, tuned and serving: nothing for the rollout to do on this node. */
    private static NodeDecision updated(Facts f, RolloutTarget target, NodeRolloutState state) {
        return new NodeDecision(
                f.node(), target.tuning(), target.tuningRevision(), state, Phase.UPDATED, PodAction.NONE, null);
    }

    /**
     * A node past the deadline in its turn that never ran healthily: it cannot fail the rollout (nothing
     * to protect or go back to), but the status and the alerts stop counting it as on its way.
     */
    private static NodeDecision stalled(NodeDecision d, String overdue) {
        return new NodeDecision(
                d.node(),
                d.tuning(),
                d.tuningRevision(),
                d.state(),
                Phase.STALLED,
                d.podAction(),
                overdue + "; it never ran tuned and serving before, so the rollout does not pause for it");
    }

    /**
     * Whether a failed node is given its last good tuning back: with autoRevert, when that tuning is not the
     * target's own (a restart-only change leaves nothing to put back, so such a node is left failed and
     * counts as fixed once it is tuned and serving on the target, as without autoRevert).
     */
    private static boolean reverts(RolloutPolicy policy, NodeRolloutState state, RolloutTarget target) {
        LastGood good = state.lastGood();
        return policy.autoRevert() && good != null && !Objects.equals(good.revision(), target.tuningRevision());
    }

    /** A node that failed the target: back on its last good tuning with autoRevert, else left as its turn made it. */
    private static NodeDecision failed(Facts f, RolloutTarget target, RolloutPolicy policy, NodeRolloutState state) {
        LastGood good = state.lastGood();
        if (reverts(policy, state, target)) {
            return new NodeDecision(
                    f.node(),
                    good.tuning(),
                    good.revision(),
                    state,
                    Phase.REVERTED,
                    PodAction.NONE,
                    "failed revision " + target.key() + ": " + state.failure() + "; back on its last good tuning "
                            + good.revision());
        }
        if (!f.tuningIs(target.tuningRevision())) {
            // it failed before its NodeTuning changed (its drain never took its server out of service): it serves,
            // so it keeps the tuning it has, as it would have while waiting
            return new NodeDecision(
                    f.node(),
                    f.tuning,
                    f.tuningRevision,
                    state,
                    Phase.FAILED,
                    PodAction.NONE,
                    "failed revision " + target.key() + ": " + state.failure()
                            + "; it keeps the tuning it had (its turn had not re-tuned it)");
        }
        return new NodeDecision(
                f.node(),
                target.tuning(),
                target.tuningRevision(),
                state,
                Phase.FAILED,
                PodAction.NONE,
                "failed revision " + target.key() + ": " + state.failure());
    }

    /** Why a node in its turn failed the target, or null while it has not (yet); the deadline only while not done. */
    private static String failure(Facts f, RolloutTarget target, RolloutPolicy policy, Instant now, boolean done) {
        if (f.tuningIs(target.tuningRevision())) {
            if (f.verdict.state() == Tuning.FAILED) {
                return f.verdict.message();
            }
            if (f.verdict.state() == Tuning.DEGRADED) {
                List<String> before = f.state.lastGood().applied() == null
                        ? List.of()
                        : f.state.lastGood().applied();
                List<String> regressed =
                        NodeHealth.settingsIn(f.view.nt(), SettingState.UNSUPPORTED, SettingState.FAILED).stream()
                                .filter(before::contains)
                                .toList();
                if (!regressed.isEmpty()) {
                    return "setting(s) applied in its last good tuning now Unsupported or Failed: "
                            + String.join(", ", regressed) + " (" + f.verdict.message() + ")";
                }
            }
        }
        return done ? null : overdue(f, target, policy, now);
    }

    /** Why a node not done in its turn is past the deadline, or null while it is not. */
    private static String overdue(Facts f, RolloutTarget target, RolloutPolicy policy, Instant now) {
        if (f.state.started().plus(policy.deadline()).isBefore(now)) {
            List<String> missing = new ArrayList<>();
            if (f.serving() && f.drainDue(target, policy.drain(), now)) {
                missing.add("its edge server never went out of service for the drain (still Ready with its readiness "
                        + "gate closed)");
            }
            if (!f.tuningIs(target.tuningRevision()) || !f.tunedAsAsked()) {
                missing.add("tuning: " + Objects.requireNonNullElse(f.verdict.message(), "not the target's yet"));
            }
            if (!f.podCurrent) {
                missing.add("its edge server was not restarted");
            } else if (f.server != Server.READY) {
                missing.add("server: " + NodeHealth.serverMessage(f.server, f.view.pod(), f.view.untoleratedTaint()));
            }
            return "not tuned and serving within progressDeadlineSeconds ("
                    + policy.deadline().toSeconds() + " s)"
                    + (missing.isEmpty() ? "" : ": " + String.join("; ", missing));
        }
        return null;
    }

    /**
     * Out of service as far as the room goes: no pod, not Ready, being deleted, or its readiness gate closed (in a
     * pass just before, say a turn called off or begun for another revision: the kubelet has not taken it out yet,
     * but will within about a second, and a turn started beside it meanwhile would overlap two drains).
     */
    private static boolean outOfService(Pod pod) {
        return NodeHealth.server(serving(pod)) != Server.READY || NodeHealth.gateClosed(pod);
    }

    /**
     * The pod as far as serving goes: none while it is being deleted. A deleted pod keeps Ready=True until
     * its readiness probe fails (up to the probe's period times its failure threshold), but its endpoints
     * leave the Service at once: it is out of service, and takes room, from the deletion on.
     */
    private static Pod serving(Pod pod) {
        return pod != null && pod.getMetadata().getDeletionTimestamp() != null ? null : pod;
    }
}
