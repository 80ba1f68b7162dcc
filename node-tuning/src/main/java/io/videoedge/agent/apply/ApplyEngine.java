package io.videoedge.agent.apply;

import io.videoedge.agent.facts.Boot;
import io.videoedge.agent.facts.NodeFacts;
import io.videoedge.agent.facts.ProbeRequest;
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
 * Also restores originals: of settings no longer asked for, and all of them on revert.
 */
public final class ApplyEngine {
    private static final Logger LOG = LoggerFactory.getLogger(ApplyEngine.class);

    private final Prober prober;
    private final Appliers appliers;
    private final Validator validator;
    private final Journal journal;

    public ApplyEngine(Prober prober, Appliers appliers, Validator validator, Journal journal) {
        this.prober = prober;
        this.appliers = appliers;
        this.validator = validator;
        this.journal = journal;
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

    public synchronized PassResult pass(Desired d) {
        NodeFacts facts = prober.probe(Planner.request(d));
        Plan plan = Planner.plan(d, facts);
        List<Setting> drifted = drifted(plan);
        if (d.mode() == TuningMode.PLAN) {
            return result(PassResult.Outcome.PLANNED, plan, facts, drifted, false, null, List.of());
        }
        Map<String, String> problems = validator.validate(plan);
        if (!problems.isEmpty()) {
            return result(
                    PassResult.Outcome.INVALID,
                    refused(plan, problems),
                    facts,
                    drifted,
                    false,
                    "refused before any write: " + describe(problems),
                    List.of());
        }
        List<String> notes = release(plan);
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
                notes.addAll(putBackUnmanagedIrqs(irqsBefore, plan));
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
        forgetUnmovedIrqs(irqsBefore, done);
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

    /** How many originals the journal held for an earlier boot of the node (dropped: the reboot reset them). */
    public int journalEntriesOfEarlierBoot() {
        return journal.droppedFromEarlierBoot();
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

    /** Writes the originals back, newest change first; each restored entry leaves the journal. */
    public synchronized RevertResult revert() {
        List<String> restored = new ArrayList<>();
        List<String> gone = new ArrayList<>();
        Map<String, String> failed = new LinkedHashMap<>();
        List<Journal.Entry> order = restoreOrder(journal.entries());
        List<Setting> irqsBefore = irqsBeforeQueueCounts(order);
        boolean irqsPutBack = irqsBefore.isEmpty();
        for (Journal.Entry e : order) {
            if (!irqsPutBack && e.kind() != SettingKind.ETHTOOL_CHANNELS) {
                failed.putAll(putBackIrqsTheDriverMoved(irqsBefore)); // the queue counts are back: they come first
                irqsPutBack = true;
            }
            try {
                if (restore(e)) {
                    restored.add(e.name());
                } else {
                    gone.add(e.name());
                }
                journal.remove(e.name());
            } catch (IOException ex) {
                failed.put(e.name(), ex.getMessage());
            }
        }
        if (!irqsPutBack) {
            failed.putAll(putBackIrqsTheDriverMoved(irqsBefore));
        }
        try {
            if (journal.isEmpty()) {
                journal.setFingerprint(null);
            }
        } catch (IOException ex) {
            failed.put("journal", ex.getMessage());
        }
        return new RevertResult(restored, gone, failed);
    }

    /**
     * Before a revert gives queue counts back: the affinity of every queue IRQ of those NICs as it is now. A
     * driver that rewrites them on a queue change (virtio_net) would otherwise leave its own values on the IRQs
     * the journal has no original for (their policy waited for the pod, or was none).
     */
    private List<Setting> irqsBeforeQueueCounts(List<Journal.Entry> order) {
        List<String> interfaces = order.stream()
                .filter(e -> e.kind() == SettingKind.ETHTOOL_CHANNELS)
                .map(Journal.Entry::target)
                .distinct()
                .toList();
        if (interfaces.isEmpty()) {
            return List.of();
        }
        try {
            return Planner.irqAffinitiesNow(prober.probe(new ProbeRequest(interfaces, Set.of(), null)), interfaces);
        } catch (RuntimeException e) {
            // the originals come back without it: only IRQs the journal has no original for may keep the
            // driver's values
            LOG.warn("could not read the queue IRQs before the revert's queue change: {}", e.toString());
            return List.of();
        }
    }

    /**
     * After a revert's queue counts: the IRQs the journal does not restore get their affinity from before.
     * Returns those that could not be put back (the revert says so; a retry finds the queue counts restored).
     */
    private Map<String, String> putBackIrqsTheDriverMoved(List<Setting> irqsBefore) {
        Map<String, String> failures = new LinkedHashMap<>();
        for (Setting s : irqsBefore) {
            if (journal.has(s.name())) {
                continue; // its original comes back with its own entry
            }
            try {
                putBackIfMoved(s)
                        .ifPresent(moved -> LOG.info(
                                "{}: moved to {} by the driver on the queue change, put back to {}",
                                s.name(),
                                moved,
                                s.current()));
            } catch (IOException e) {
                failures.put(
                        s.name(),
                        "moved by the driver on the queue change, putting back " + s.current() + " failed: "
                                + e.getMessage());
            }
        }
        return failures;
    }

    /**
     * Newest first, but queue counts before everything else: a queue change makes some drivers
     * (virtio_net) rewrite every queue IRQ's affinity, which must come back after it, and queues that
     * go away take their RPS settings with them.
     */
    private static List<Journal.Entry> restoreOrder(List<Journal.Entry> entries) {
        List<Journal.Entry> newestFirst = new ArrayList<>(entries);
        java.util.Collections.reverse(newestFirst);
        List<Journal.Entry> out = new ArrayList<>();
        newestFirst.stream()
                .filter(e -> e.kind() == SettingKind.ETHTOOL_CHANNELS)
                .forEach(out::add);
        newestFirst.stream()
                .filter(e -> e.kind() != SettingKind.ETHTOOL_CHANNELS)
                .forEach(out::add);
        return out;
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
     * for the server's pod) get their affinity from before the change back, and leave the journal; otherwise the
     * driver's values would be taken for originals once the policy can be decided. Returns what it did.
     */
    private List<String> putBackUnmanagedIrqs(Map<String, Setting> irqsBefore, Plan plan) {
        Set<String> managed = new HashSet<>();
        plan.settings().stream()
                .filter(s -> s.kind() == SettingKind.IRQ_AFFINITY)
                .forEach(s -> managed.add(s.name()));
        List<String> notes = new ArrayList<>();
        for (Setting s : irqsBefore.values()) {
            if (managed.contains(s.name())) {
                continue;
            }
            try {
                putBackIfMoved(s)
                        .ifPresent(moved -> notes.add(s.name() + ": moved to " + moved
                                + " by the driver on the queue change, put back to " + s.current()
                                + " (this plan does not set it)"));
                journal.remove(s.name());
            } catch (IOException e) {
                notes.add(s.name() + ": moved by the driver on the queue change, putting back " + s.current()
                        + " failed: " + e.getMessage());
            }
        }
        return notes;
    }

    /** Drops the entries journaled before the queue change whose IRQ this pass neither wrote nor moved. */
    private void forgetUnmovedIrqs(Map<String, Setting> irqsBefore, List<Done> done) {
        Set<String> written = new HashSet<>();
        done.forEach(x -> written.add(x.setting().name()));
        for (Setting s : irqsBefore.values()) {
            if (written.contains(s.name())) {
                continue;
            }
            try {
                Optional<String> now = appliers.of(s.kind()).read(s);
                if (now.isEmpty() || Values.same(s.kind(), s.current(), now.get())) {
                    journal.remove(s.name());
                }
            } catch (IOException e) {
                LOG.warn("could not check {} after the queue change: {}", s.name(), e.toString());
            }
        }
    }

    /** Writes one original back and checks it; false when the target is gone. */
    private boolean restore(Journal.Entry e) throws IOException {
        Setting s = e.asRestore();
        Applier a = appliers.of(e.kind());
        Optional<String> now = a.read(s);
        if (now.isEmpty()) {
            return false;
        }
        if (!Values.same(e.kind(), e.original(), now.get())) {
            a.write(s, e.original());
            String back = a.read(s).orElse(null);
            if (!Values.same(e.kind(), e.original(), back)) {
                throw new IOException("wrote original " + e.original() + ", read back " + back);
            }
        }
        return true;
    }

    /** Settings of the same plan whose value someone changed since it was applied. */
    private List<Setting> drifted(Plan plan) {
        String last = journal.fingerprint();
        if (last == null || !last.equals(plan.fingerprint())) {
            return List.of();
        }
        return plan.changes();
    }

    /** Restores originals of journaled settings the plan no longer manages (spec changed, pod replaced). */
    private List<String> release(Plan plan) {
        Set<String> managed = new HashSet<>();
        plan.settings().stream().filter(s -> s.kind() != null).forEach(s -> managed.add(s.name() + "|" + s.target()));
        List<String> notes = new ArrayList<>();
        List<Journal.Entry> entries = new ArrayList<>(journal.entries());
        java.util.Collections.reverse(entries);
        for (Journal.Entry e : entries) {
            if (managed.contains(e.name() + "|" + e.target())) {
                continue;
            }
            try {
                notes.add(e.name()
                        + (restore(e)
                                ? ": no longer asked for, original " + e.original() + " restored"
                                : ": no longer asked for and gone"));
                journal.remove(e.name());
            } catch (IOException ex) {
                notes.add(
                        e.name() + ": no longer asked for, restoring " + e.original() + " failed: " + ex.getMessage());
            }
        }
        return notes;
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
     * Restores this pass's writes, queue counts first and then the rest newest first (see restoreOrder),
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
                put(s, before);
                forgetIfJournaled(s, x.journaled() || early != null);
                restored.add(s.name());
                LOG.warn("{}: rolled back to {}", s.name(), before);
            } catch (IOException e) {
                errors.put(s.name(), e.getMessage());
            }
        }
        // IRQs the driver moved on the queue change and this pass did not write
        for (Setting s : irqsBefore.values()) {
            if (restored.contains(s.name()) || errors.containsKey(s.name())) {
                continue;
            }
            try {
                putBackIfMoved(s);
                journal.remove(s.name());
            } catch (IOException e) {
                errors.put(s.name(), e.getMessage());
            }
        }
        return errors;
    }

    /**
     * An IRQ's affinity as it was before a queue change ({@code s.current()}), written back when the driver moved
     * it; returns the driver's value when it did (empty: not moved, or the IRQ is gone).
     */
    private Optional<String> putBackIfMoved(Setting s) throws IOException {
        Optional<String> now = appliers.of(s.kind()).read(s);
        if (now.isEmpty() || Values.same(s.kind(), s.current(), now.get())) {
            return Optional.empty();
        }
        put(s, s.current());
        return now;
    }

    /** Writes a value and reads it back. */
    private void put(Setting s, String value) throws IOException {
        Applier a = appliers.of(s.kind());
        a.write(s, value);
        String back = a.read(s).orElse(null);
        if (!Values.same(s.kind(), value, back)) {
            throw new IOException("wrote " + value + ", read back " + back);
        }
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
            List<String> notes) {
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
        return new PassResult(o, shown, facts, reapplied, wrote, error, notes, originals);
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
