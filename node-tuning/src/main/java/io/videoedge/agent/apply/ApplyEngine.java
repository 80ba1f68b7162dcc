package io.videoedge.agent.apply;

import io.videoedge.agent.facts.Boot;
import io.videoedge.agent.facts.NodeFacts;
import io.videoedge.agent.host.CommandRunner;
import io.videoedge.agent.host.HostFs;
import io.videoedge.agent.plan.Desired;
import io.videoedge.agent.plan.Plan;
import io.videoedge.agent.plan.Planner;
import io.videoedge.agent.plan.Setting;
import io.videoedge.agent.plan.SettingKind;
import io.videoedge.agent.plan.Values;
import io.videoedge.agent.probe.Prober;
import io.videoedge.api.SettingState;
import io.videoedge.api.TuningMode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pass: probe, plan, validate the whole plan, then write each change (original journaled
 * first), read it back, and on the first failure restore everything this pass changed.
 * Also restores originals: of settings no longer asked for, and all of them on revert (see {@link Restorer}).
 */
public final class ApplyEngine {
    private static final Logger LOG = LoggerFactory.getLogger(ApplyEngine.class);

    private final Prober prober;
    private final Appliers appliers;
    private final Validator validator;
    private final Journal journal;
    private final Restorer restorer;

    public ApplyEngine(Prober prober, Appliers appliers, Validator validator, Journal journal) {
        this.prober = prober;
        this.appliers = appliers;
        this.validator = validator;
        this.journal = journal;
        this.restorer = new Restorer(prober, appliers, journal);
    }

    /** The engine over a host root (probe, appliers and checks on the same tree), originals kept in journalFile. */
    public static ApplyEngine onHost(Path root, CommandRunner runner, Path journalFile) {
        HostFs fs = new HostFs(root);
        Prober prober = new Prober(fs, runner);
        return new ApplyEngine(
                prober,
                new Appliers(fs, runner),
                new Validator(fs),
                Journal.open(journalFile, Clock.systemUTC(), prober.boot()));
    }

    /** A write this pass made: the setting and the value it replaced. */
    private record Done(Setting setting, String before, boolean journaled, String actual) {}

    private record Failure(Setting setting, String message) {}

    /**
     * What a pass tells a person besides its outcome: its releases, and the IRQs put back after a queue change; the
     * notes among them that say something failed are its problems too.
     */
    private record Notes(List<String> released, List<String> irqsPutBack, List<String> problems) {
        static final Notes NONE = new Notes(List.of(), List.of(), List.of());

        boolean isEmpty() {
            return released.isEmpty() && irqsPutBack.isEmpty();
        }

        /** The notes of a release (Restorer.release): each entry given back, and the IRQs put back after it. */
        static Notes of(Restorer.Restoration released) {
            List<String> problems = new ArrayList<>();
            List<String> entries = new ArrayList<>();
            for (Restorer.Restored r : released.entries()) {
                String note = Restorer.releaseNote(r);
                entries.add(note);
                if (!r.done()) {
                    problems.add(note);
                }
            }
            return new Notes(List.copyOf(entries), List.of(), List.copyOf(problems))
                    .and(ofPutBacks(released.putBacks(), ""));
        }

        /** The notes of IRQs put back after a queue change; {@code context} ends the note of one that was. */
        static Notes ofPutBacks(List<Restorer.PutBack> putBacks, String context) {
            return new Notes(
                    List.of(),
                    putBacks.stream().map(p -> p.note(context)).toList(),
                    putBacks.stream()
                            .filter(Restorer.PutBack::failed)
                            .map(p -> p.note(context))
                            .toList());
        }

        Notes and(Notes more) {
            return new Notes(
                    concat(released, more.released),
                    concat(irqsPutBack, more.irqsPutBack),
                    concat(problems, more.problems));
        }

        private static List<String> concat(List<String> a, List<String> b) {
            List<String> all = new ArrayList<>(a);
            all.addAll(b);
            return List.copyOf(all);
        }
    }

    public synchronized PassResult pass(Desired d) {
        NodeFacts facts = prober.probe(Planner.request(d));
        Plan plan = Planner.plan(d, facts);
        List<Setting> drifted = drifted(plan);
        if (d.mode() == TuningMode.PLAN) {
            return result(PassResult.Outcome.PLANNED, plan, facts, drifted, false, null, Notes.NONE);
        }
        Map<String, String> problems = validator.validate(plan);
        if (!problems.isEmpty()) {
            return invalid(plan, problems, facts, drifted, Notes.NONE);
        }
        Restorer.Restoration release = restorer.release(plan);
        Notes notes = Notes.of(release);
        if (release.queueCountRestored()) {
            // the plan above saw the queues from before the release: plan for the queues it left (RPS, RFS, IRQs),
            // and release what only the new plan drops (the settings of the queues that went)
            facts = prober.probe(Planner.request(d));
            Plan before = plan;
            plan = Planner.plan(d, facts);
            drifted = drifted(plan);
            notes = notes.and(Notes.of(restorer.releaseAlso(before, plan)));
            problems = validator.validate(plan);
            if (!problems.isEmpty()) {
                return invalid(plan, problems, facts, drifted, notes);
            }
        }
        List<Done> done = new ArrayList<>();

        // channels first: they add or remove the queues and IRQs the other settings address
        List<Setting> channels = plan.changes().stream()
                .filter(s -> s.kind() == SettingKind.ETHTOOL_CHANNELS)
                .toList();
        // the IRQs as they are now: read again when the release above wrote some of them back
        Map<String, Setting> irqsBefore = channels.isEmpty()
                ? Map.of()
                : journalIrqAffinities(
                        Planner.irqAffinitiesNow(d, notes.isEmpty() ? facts : prober.probe(Planner.request(d))));
        Failure failure = irqsBefore == null
                ? new Failure(channels.getFirst(), "could not journal the IRQ affinities before the queue change")
                : write(channels, done);
        if (failure == null && !channels.isEmpty()) {
            facts = prober.probe(Planner.request(d));
            plan = Planner.plan(d, facts);
            problems = validator.validate(plan);
            if (!problems.isEmpty()) {
                Setting first = plan.find(problems.keySet().iterator().next()).orElseThrow();
                failure = new Failure(first, "refused after the queue change: " + describe(problems));
            } else {
                notes = notes.and(putBackUnmanagedIrqs(irqsBefore, plan));
            }
        }
        if (failure == null) {
            Set<String> alreadyDone = new HashSet<>();
            done.forEach(x -> alreadyDone.add(x.setting().name()));
            failure = write(
                    plan.changes().stream()
                            .filter(s -> !alreadyDone.contains(s.name()))
                            .toList(),
                    done);
        }
        if (failure != null) {
            Map<String, String> rollbackErrors = rollback(done, irqsBefore == null ? Map.of() : irqsBefore);
            Plan marked = markFailed(plan, done, failure, rollbackErrors);
            String error = failure.setting().name() + ": " + failure.message();
            if (!rollbackErrors.isEmpty()) {
                return result(
                        PassResult.Outcome.ROLLBACK_INCOMPLETE,
                        marked,
                        facts,
                        drifted,
                        true,
                        error + "; restoring this pass's changes failed for " + describe(rollbackErrors),
                        notes);
            }
            return result(
                    PassResult.Outcome.ROLLED_BACK,
                    marked,
                    facts,
                    drifted,
                    false,
                    error + "; the " + done.size() + " change(s) of this pass were restored",
                    notes);
        }
        forgetIrqsAsBefore(irqsBefore, done);
        Plan applied = markApplied(plan, done);
        try {
            journal.setFingerprint(applied.fingerprint());
        } catch (IOException e) {
            LOG.warn("could not record the plan fingerprint in the journal: {}", e.toString());
        }
        return result(PassResult.Outcome.APPLIED, applied, facts, drifted, !done.isEmpty(), null, notes);
    }

    /** Why the journal of originals cannot be used, if it cannot (it is read again on each call). */
    public Optional<String> journalProblem() {
        return journal.unreadable();
    }

    /** Writes the journal file again if it was deleted while the agent ran; true when it had to. */
    public boolean rewriteJournalIfDeleted() throws IOException {
        return journal.rewriteIfDeleted();
    }

    /** What a person should know when the journal held originals of an earlier boot of the node (dropped), if it did. */
    public Optional<String> earlierBootDropped() {
        int n = journal.droppedFromEarlierBoot();
        return n == 0
                ? Optional.empty()
                : Optional.of("the node rebooted since the journal of originals was written: its " + n
                        + " original(s) of the earlier boot were dropped (the reboot reset those values)");
    }

    /** This boot of the node, as the journal's originals are kept for. */
    public Boot boot() {
        return journal.boot();
    }

    /** Whether there was no journal file when the agent started (a first start, or a lost journal). */
    public boolean journalAbsentAtStart() {
        return journal.absentAtOpen();
    }

    /**
     * After the journal was lost, takes the originals back from the node's last status report: for each
     * setting of the plan that the report says the agent changed (its original differs from what the
     * node has now) and the journal does not hold, the reported original is journaled. Without this,
     * a node already tuned would look "unchanged" and its originals would never be restored. Returns
     * the names adopted.
     *
     * @param reported each setting's original as the last status reported it
     */
    public synchronized List<String> adoptReportedOriginals(Desired d, Map<String, String> reported)
            throws IOException {
        List<String> adopted = new ArrayList<>();
        if (reported.isEmpty()) {
            return adopted;
        }
        Plan plan = Planner.plan(d, prober.probe(Planner.request(d)));
        for (Setting s : plan.settings()) {
            String original = reported.get(s.name());
            if (original != null && !journal.has(s.name()) && !original.equals(s.current())) {
                journal.recordIfAbsent(s, original);
                adopted.add(s.name());
            }
        }
        return adopted;
    }

    /** Writes every original back (see Restorer.restoreEntries); each restored entry leaves the journal. */
    public synchronized RevertResult revert() {
        return restorer.revert();
    }

    /**
     * Before a queue change: journals the affinity of every queue IRQ the spec's policy covers, as it is now.
     * virtio_net rewrites all of them on a queue change (pair N to CPU N mod CPUs), so the values read
     * after it are not the originals. Returns the settings journaled here (null when the journal failed).
     */
    private Map<String, Setting> journalIrqAffinities(List<Setting> affinitiesNow) {
        Map<String, Setting> journaled = new LinkedHashMap<>();
        for (Setting s : affinitiesNow) {
            try {
                if (journal.recordIfAbsent(s, s.current())) {
                    journaled.put(s.name(), s);
                }
            } catch (IOException e) {
                LOG.warn("could not journal {}: {}", s.name(), e.toString());
                return null;
            }
        }
        return journaled;
    }

    /**
     * After a queue change: the IRQs the driver moved that the plan does not set (a pod-based policy still waiting
     * for the server's pod, or policy none) get their affinity from before the change back; otherwise the driver's
     * values would be taken for originals once the policy can be decided. Their journal entries stay until the pass
     * is final (forgetIrqsAsBefore): a rollback that cannot put one back after its own queue change still has the
     * original. Returns what it did.
     */
    private Notes putBackUnmanagedIrqs(Map<String, Setting> irqsBefore, Plan plan) {
        Set<String> managed = new HashSet<>();
        plan.settings().stream()
                .filter(s -> s.kind() == SettingKind.IRQ_AFFINITY)
                .forEach(s -> managed.add(s.name()));
        List<Setting> unmanaged = irqsBefore.values().stream()
                .filter(s -> !managed.contains(s.name()))
                .toList();
        return Notes.ofPutBacks(restorer.putBackMoved(unmanaged), " (this plan does not set it)");
    }

    /**
     * Once the pass is final: drops the entries journaled before its queue change whose IRQ it did not write and that
     * has its affinity from before (not moved by the driver, or put back): the pass did not change those.
     */
    private void forgetIrqsAsBefore(Map<String, Setting> irqsBefore, List<Done> done) {
        Set<String> written = new HashSet<>();
        done.forEach(x -> written.add(x.setting().name()));
        irqsBefore.values().stream()
                .filter(s -> !written.contains(s.name()) && asBeforeTheQueueChange(s))
                .forEach(s -> forgetIfJournaled(s, true));
    }

    /** Whether an IRQ has its affinity from before the queue change, or is gone; false when it cannot be read. */
    private boolean asBeforeTheQueueChange(Setting irq) {
        try {
            return restorer.movedAffinity(irq).isEmpty();
        } catch (IOException e) {
            LOG.warn(
                    "could not check {} after the queue change (its journal entry stays): {}",
                    irq.name(),
                    e.toString());
            return false;
        }
    }

    /** Settings of the same plan whose value someone changed since it was applied. */
    private List<Setting> drifted(Plan plan) {
        String last = journal.fingerprint();
        if (last == null || !last.equals(plan.fingerprint())) {
            return List.of();
        }
        return plan.changes();
    }

    private Failure write(List<Setting> changes, List<Done> done) {
        for (Setting s : changes) {
            Applier a = appliers.of(s.kind());
            boolean journaled;
            try {
                journaled = journal.recordIfAbsent(s, s.current());
            } catch (IOException e) {
                return new Failure(s, "could not journal the original before changing it: " + e.getMessage());
            }
            try {
                a.write(s, s.desired());
            } catch (IOException e) {
                String back = readBack(a, s);
                if (back != null && !Values.same(s.kind(), s.current(), back)) {
                    // the kernel took part of the value before refusing the rest (tcp_wmem stores each
                    // number as it parses it): the change is real, so it stays journaled and is rolled back
                    done.add(new Done(s, s.current(), journaled, back));
                } else {
                    forgetIfJournaled(s, journaled);
                }
                return new Failure(s, e.getMessage());
            }
            String back = readBack(a, s);
            done.add(new Done(s, s.current(), journaled, back));
            if (!Values.same(s.kind(), s.desired(), back)) {
                return new Failure(s, "wrote " + s.desired() + ", read back " + back);
            }
            LOG.info("{}: {} -> {}", s.name(), s.current(), s.desired());
        }
        return null;
    }

    private static String readBack(Applier a, Setting s) {
        try {
            return a.read(s).orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    private void forgetIfJournaled(Setting s, boolean journaled) {
        if (journaled) {
            try {
                journal.remove(s.name()); // nothing was changed: the entry would claim an original for nothing
            } catch (IOException e) {
                LOG.warn("could not drop journal entry {}: {}", s.name(), e.toString());
            }
        }
    }

    /**
     * Restores this pass's writes, queue counts first and then the rest newest first (see Restorer.restoreOrder),
     * and the IRQ affinities journaled before a queue change to those values; returns the ones that
     * could not be restored.
     */
    private Map<String, String> rollback(List<Done> done, Map<String, Setting> irqsBefore) {
        Map<String, String> errors = new LinkedHashMap<>();
        List<Done> order = new ArrayList<>();
        for (int i = done.size() - 1; i >= 0; i--) {
            if (done.get(i).setting().kind() == SettingKind.ETHTOOL_CHANNELS) {
                order.add(done.get(i));
            }
        }
        for (int i = done.size() - 1; i >= 0; i--) {
            if (done.get(i).setting().kind() != SettingKind.ETHTOOL_CHANNELS) {
                order.add(done.get(i));
            }
        }
        Set<String> restored = new HashSet<>();
        for (Done x : order) {
            Setting s = x.setting();
            Setting early = irqsBefore.get(s.name());
            String before = early != null ? early.current() : x.before();
            try {
                if (before == null) {
                    throw new IOException("no value before the change to restore");
                }
                if (appliers.of(s.kind()).read(s).isEmpty()) {
                    forgetIfJournaled(s, x.journaled() || early != null); // a queue the restored queue count removed
                    continue;
                }
                restorer.put(s, before);
                forgetIfJournaled(s, x.journaled() || early != null);
                restored.add(s.name());
                LOG.warn("{}: rolled back to {}", s.name(), before);
            } catch (IOException e) {
                errors.put(s.name(), e.getMessage());
            }
        }
        // IRQs the driver moved on the queue change and this pass did not write: each leaves the journal only
        // once it has its value from before again, so no original is lost when putting one back fails
        List<Setting> notWritten = irqsBefore.values().stream()
                .filter(s -> !restored.contains(s.name()) && !errors.containsKey(s.name()))
                .toList();
        restorer.putBackAndForget(notWritten, notWritten).stream()
                .filter(Restorer.PutBack::failed)
                .forEach(p -> errors.put(p.irq().name(), p.problem()));
        return errors;
    }

    /** A plan refused before any of its writes (a release of settings no longer asked for may have run). */
    private PassResult invalid(
            Plan plan, Map<String, String> problems, NodeFacts facts, List<Setting> drifted, Notes notes) {
        return result(
                PassResult.Outcome.INVALID,
                refused(plan, problems),
                facts,
                drifted,
                false,
                "refused before any write: " + describe(problems),
                notes);
    }

    private static Plan refused(Plan plan, Map<String, String> problems) {
        return new Plan(plan.settings().stream()
                .map(s -> problems.containsKey(s.name())
                        ? s.with(
                                SettingState.FAILED, s.current(), "refused before any write: " + problems.get(s.name()))
                        : s.needsWrite()
                                ? s.with(
                                        SettingState.PENDING,
                                        s.current(),
                                        "not applied: other values of this plan were refused")
                                : s)
                .toList());
    }

    private static Plan markApplied(Plan plan, List<Done> done) {
        Map<String, Done> byName = new LinkedHashMap<>();
        done.forEach(x -> byName.put(x.setting().name(), x));
        return new Plan(plan.settings().stream()
                .map(s -> {
                    Done x = byName.get(s.name());
                    return x == null ? s : s.with(SettingState.APPLIED, x.actual(), s.message());
                })
                .toList());
    }

    private static Plan markFailed(Plan plan, List<Done> done, Failure failure, Map<String, String> rollbackErrors) {
        Set<String> touched = new HashSet<>();
        done.forEach(x -> touched.add(x.setting().name()));
        String why = "not applied: the pass was rolled back after "
                + failure.setting().name() + " failed";
        return new Plan(plan.settings().stream()
                .map(s -> {
                    if (s.name().equals(failure.setting().name())) {
                        return s.with(SettingState.FAILED, s.current(), failure.message());
                    }
                    if (rollbackErrors.containsKey(s.name())) {
                        return s.with(
                                SettingState.FAILED, s.desired(), "rollback failed: " + rollbackErrors.get(s.name()));
                    }
                    if (touched.contains(s.name()) || s.needsWrite()) {
                        return s.with(SettingState.PENDING, s.current(), why);
                    }
                    return s;
                })
                .toList());
    }

    private PassResult result(
            PassResult.Outcome o,
            Plan plan,
            NodeFacts facts,
            List<Setting> drifted,
            boolean wrote,
            String error,
            Notes notes) {
        Map<String, String> originals = new LinkedHashMap<>();
        journal.entries().forEach(e -> originals.put(e.name(), e.original()));
        // a value the agent set earlier stays Applied on later passes (Unchanged means it was already so)
        Plan shown = new Plan(plan.settings().stream()
                .map(s -> s.state() == SettingState.UNCHANGED && originals.containsKey(s.name())
                        ? s.with(SettingState.APPLIED, s.current(), s.message())
                        : s)
                .toList());
        // drift is what a pass re-applies: none from one that did not apply (Plan mode, refused, rolled back)
        List<Setting> reapplied = o == PassResult.Outcome.APPLIED ? drifted : List.of();
        return new PassResult(
                o,
                shown,
                facts,
                reapplied,
                wrote,
                error,
                notes.released(),
                notes.irqsPutBack(),
                notes.problems(),
                originals);
    }

    /** Problems by setting for a person: "name (why); name (why)". */
    static String describe(Map<String, String> m) {
        return String.join(
                "; ",
                m.entrySet().stream()
                        .map(e -> e.getKey() + " (" + e.getValue() + ")")
                        .toList());
    }
}
