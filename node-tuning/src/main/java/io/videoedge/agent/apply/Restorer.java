package io.videoedge.agent.apply;

import io.videoedge.agent.facts.ProbeRequest;
import io.videoedge.agent.plan.Plan;
import io.videoedge.agent.plan.Planner;
import io.videoedge.agent.plan.Setting;
import io.videoedge.agent.plan.SettingKind;
import io.videoedge.agent.plan.Values;
import io.videoedge.agent.probe.Prober;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives journaled originals back (on revert, and of settings a plan no longer manages), and puts back the queue IRQs a
 * NIC driver moved when a queue count changed. {@link ApplyEngine} calls it under its lock.
 */
final class Restorer {
    private static final Logger LOG = LoggerFactory.getLogger(Restorer.class);

    private final Prober prober;
    private final Appliers appliers;
    private final Journal journal;

    Restorer(Prober prober, Appliers appliers, Journal journal) {
        this.prober = prober;
        this.appliers = appliers;
        this.journal = journal;
    }

    /**
     * A queue IRQ the driver moved on a queue change: its affinity from before the change ({@code irq.current()}),
     * the driver's ({@code moved}, null when unknown), and why putting it back failed (null: it was put back).
     */
    record PutBack(Setting irq, String moved, String error) {
        boolean failed() {
            return error != null;
        }

        String problem() {
            return "moved by the driver on the queue change, putting back " + irq.current() + " failed: " + error;
        }

        /** For a person; {@code context} ends the note of a put-back that worked. */
        String note(String context) {
            return irq.name() + ": "
                    + (failed()
                            ? problem()
                            : "moved to " + moved + " by the driver on the queue change, put back to " + irq.current()
                                    + context);
        }
    }

    /** What restoring one journal entry did: written back, or its target gone; what failed (null: nothing). */
    record Restored(Journal.Entry entry, boolean gone, String problem) {
        boolean done() {
            return problem == null;
        }
    }

    /** What restoring journal entries did, and the queue IRQs the driver moved when their queue counts came back. */
    record Restoration(List<Restored> entries, List<PutBack> putBacks) {
        /** Entries written back and dropped from the journal. */
        List<String> restored() {
            return done(false);
        }

        /** Entries whose target no longer exists, dropped from the journal. */
        List<String> gone() {
            return done(true);
        }

        private List<String> done(boolean gone) {
            return entries.stream()
                    .filter(r -> r.done() && r.gone() == gone)
                    .map(r -> r.entry().name())
                    .toList();
        }

        /**
         * Whether a queue count may have been written back (one was tried on an interface still there, whatever
         * came of it): the queues, their RPS files and IRQs may differ from before.
         */
        boolean queueCountRestored() {
            return entries.stream().anyMatch(r -> r.entry().kind() == SettingKind.ETHTOOL_CHANNELS && !r.gone());
        }

        /** What failed, by name: entries not restored or not dropped from the journal, IRQs not put back. */
        Map<String, String> failures() {
            Map<String, String> failed = new LinkedHashMap<>();
            entries.stream()
                    .filter(r -> !r.done())
                    .forEach(r -> failed.put(r.entry().name(), r.problem()));
            putBacks.stream()
                    .filter(PutBack::failed)
                    .forEach(p -> failed.put(p.irq().name(), p.problem()));
            return failed;
        }
    }

    /** Writes every original back (see restoreEntries); each restored entry leaves the journal. */
    RevertResult revert() {
        Restoration r = restoreEntries(journal.entries());
        r.putBacks().stream().filter(p -> !p.failed()).forEach(p -> LOG.info("{}", p.note("")));
        Map<String, String> failed = r.failures(); // an IRQ not put back keeps a journal entry: a retry gives it back
        forgetFingerprintOnceEmpty().ifPresent(why -> failed.put("journal", why));
        return new RevertResult(r.restored(), r.gone(), failed);
    }

    /** Forgets the applied plan's fingerprint once no original is left; says why not when the journal cannot. */
    private Optional<String> forgetFingerprintOnceEmpty() {
        try {
            if (journal.isEmpty()) {
                journal.setFingerprint(null);
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of(e.getMessage());
        }
    }

    /**
     * Restores originals of journaled settings the plan no longer manages (spec changed, pod replaced, interface no
     * longer tuned), as a revert does (restoreEntries).
     */
    Restoration release(Plan plan) {
        return restoreEntries(notManagedBy(plan, journal.entries()));
    }

    /**
     * As release(plan), for the entries {@code earlier} still managed: after a release under {@code earlier} gave a
     * queue count back, what the plan made again drops (the settings of queues that went). An entry the first
     * release tried is not tried twice in one pass.
     */
    Restoration releaseAlso(Plan earlier, Plan plan) {
        Set<String> managedEarlier = managed(earlier);
        return restoreEntries(notManagedBy(plan, journal.entries()).stream()
                .filter(e -> managedEarlier.contains(key(e.name(), e.target())))
                .toList());
    }

    /** The entries of settings the plan does not have (by name and target). */
    private static List<Journal.Entry> notManagedBy(Plan plan, List<Journal.Entry> entries) {
        Set<String> managed = managed(plan);
        return entries.stream()
                .filter(e -> !managed.contains(key(e.name(), e.target())))
                .toList();
    }

    private static Set<String> managed(Plan plan) {
        Set<String> managed = new HashSet<>();
        plan.settings().stream().filter(s -> s.kind() != null).forEach(s -> managed.add(key(s.name(), s.target())));
        return managed;
    }

    private static String key(String name, String target) {
        return name + "|" + target;
    }

    /** For a person: what releasing one entry did. */
    static String releaseNote(Restored r) {
        Journal.Entry e = r.entry();
        return e.name() + ": no longer asked for"
                + (!r.done()
                        ? ", " + r.problem()
                        : r.gone() ? " and gone" : ", original " + e.original() + " restored");
    }

    /**
     * Writes these originals back, queue counts first (see restoreOrder). Right after the queue counts, the queue IRQs
     * the driver moved on that change get their affinity from before it back, unless one of these entries restores
     * them: a driver that rewrites them on a queue change (virtio_net) would otherwise leave its own values on the IRQs
     * the journal has no original for (their policy waited for the pod, or was none) and, when only some settings
     * are released, on those that keep the agent's value. Each restored entry leaves the journal.
     */
    private Restoration restoreEntries(List<Journal.Entry> entries) {
        List<Journal.Entry> order = restoreOrder(entries);
        List<Setting> irqsBefore = irqsBeforeQueueCounts(order);
        int queueCounts = (int) order.stream()
                .filter(e -> e.kind() == SettingKind.ETHTOOL_CHANNELS)
                .count();
        List<Setting> journaled = journalIrqsBefore(irqsBefore);
        List<Restored> restored = new ArrayList<>();
        for (Journal.Entry e : order.subList(0, queueCounts)) {
            restored.add(restoreAndForget(e, true));
        }
        List<PutBack> putBacks = putBackAndForget(irqsBefore, journaled);
        List<Journal.Entry> rest = order.subList(queueCounts, order.size());
        Map<String, Set<Integer>> deviceIrqs = deviceIrqsNow(rest);
        for (Journal.Entry e : rest) {
            restored.add(restoreAndForget(e, stillItsDevicesIrq(e, deviceIrqs)));
        }
        return new Restoration(restored, putBacks);
    }

    /**
     * The IRQs each interface of these entries' IRQ affinities has now ({@link Prober#deviceIrqs}; null when that
     * cannot be told), read after the queue counts came back. A driver reloaded
     * within the boot gives its device new IRQ numbers, and an old number may then be another device's.
     */
    private Map<String, Set<Integer>> deviceIrqsNow(List<Journal.Entry> entries) {
        Map<String, Set<Integer>> irqs = new HashMap<>();
        for (Journal.Entry e : entries) {
            if (e.kind() == SettingKind.IRQ_AFFINITY) {
                irqName(e)
                        .map(IrqName::iface)
                        .filter(iface -> !irqs.containsKey(iface))
                        .ifPresent(iface -> irqs.put(iface, deviceIrqs(iface)));
            }
        }
        return irqs;
    }

    private Set<Integer> deviceIrqs(String iface) {
        try {
            return prober.deviceIrqs(iface);
        } catch (RuntimeException ex) {
            LOG.warn(
                    "could not read the IRQs of {} (its IRQ originals are written by number): {}",
                    iface,
                    ex.toString());
            return null;
        }
    }

    /** False for the affinity of an IRQ its interface's device no longer has: the original is not written there. */
    private static boolean stillItsDevicesIrq(Journal.Entry e, Map<String, Set<Integer>> deviceIrqs) {
        if (e.kind() != SettingKind.IRQ_AFFINITY) {
            return true;
        }
        IrqName name = irqName(e).orElse(null);
        Set<Integer> irqs = name == null ? null : deviceIrqs.get(name.iface());
        if (irqs == null || irqs.contains(name.irq())) {
            return true; // not known: written by number, as the journal has it
        }
        LOG.info(
                "{}: IRQ {} is no longer one of {}'s device's (its driver was reloaded): its original {}"
                        + " is not written there, the entry is dropped as gone",
                e.name(),
                name.irq(),
                name.iface(),
                e.original());
        return false;
    }

    /** The interface and number of an IRQ affinity's name, irq/IF/N; empty for a name not so made. */
    private record IrqName(String iface, int irq) {}

    private static Optional<IrqName> irqName(Journal.Entry e) {
        String[] parts = e.name().split("/");
        if (parts.length != 3 || !parts[0].equals("irq") || !parts[2].matches("[0-9]{1,9}")) {
            return Optional.empty();
        }
        return Optional.of(new IrqName(parts[1], Integer.parseInt(parts[2])));
    }

    /**
     * Journals the IRQs read before a queue count comes back that have no entry, so that their value survives a
     * put-back that fails (or a crash before it): the next revert or release gives it back like any original.
     * Returns those it journaled; one it cannot journal is put back all the same.
     */
    private List<Setting> journalIrqsBefore(List<Setting> irqsBefore) {
        List<Setting> journaled = new ArrayList<>();
        for (Setting s : irqsBefore) {
            try {
                if (journal.recordIfAbsent(s, s.current())) {
                    journaled.add(s);
                }
            } catch (IOException e) {
                LOG.warn("could not journal {} before giving back a queue count: {}", s.name(), e.toString());
            }
        }
        return journaled;
    }

    /**
     * Puts back each of these IRQs the driver moved on a queue change (putBackMoved), then drops the journal entries
     * of those in {@code journaledForIt} that have their value from before again; an IRQ not put back keeps its entry,
     * so its original is not lost. Returns those the driver moved, put back or not.
     */
    List<PutBack> putBackAndForget(List<Setting> irqs, List<Setting> journaledForIt) {
        List<PutBack> putBacks = putBackMoved(irqs);
        Set<String> failed = new HashSet<>();
        putBacks.stream()
                .filter(PutBack::failed)
                .forEach(p -> failed.add(p.irq().name()));
        for (Setting s : journaledForIt) {
            if (failed.contains(s.name())) continue; // its original stays for the next try
            try {
                journal.remove(s.name());
            } catch (IOException e) {
                LOG.warn("could not drop the journal entry of {} (put back): {}", s.name(), e.toString());
            }
        }
        return putBacks;
    }

    /**
     * Writes one original back, unless its target is gone ({@code there} false: known gone before), and drops its journal
     * entry; says what failed, if anything did.
     */
    private Restored restoreAndForget(Journal.Entry e, boolean there) {
        try {
            there = there && restore(e);
        } catch (IOException ex) {
            return new Restored(e, false, "restoring " + e.original() + " failed: " + ex.getMessage());
        }
        try {
            journal.remove(e.name());
        } catch (IOException ex) {
            return new Restored(
                    e,
                    !there,
                    (there ? "original " + e.original() + " restored" : "gone")
                            + ", but its journal entry could not be dropped: " + ex.getMessage());
        }
        return new Restored(e, !there, null);
    }

    /**
     * Before queue counts are given back: the affinity of every queue IRQ of those NICs as it is now, but for the IRQs
     * the entries restore themselves (their own original comes back).
     */
    private List<Setting> irqsBeforeQueueCounts(List<Journal.Entry> entries) {
        List<String> interfaces = entries.stream()
                .filter(e -> e.kind() == SettingKind.ETHTOOL_CHANNELS)
                .map(Journal.Entry::target)
                .distinct()
                .toList();
        if (interfaces.isEmpty()) {
            return List.of();
        }
        Set<String> restoredByEntries = new HashSet<>();
        entries.forEach(e -> restoredByEntries.add(e.name()));
        try {
            return Planner.irqAffinitiesNow(prober.probe(new ProbeRequest(interfaces, Set.of(), null)), interfaces)
                    .stream()
                    .filter(s -> !restoredByEntries.contains(s.name()))
                    .toList();
        } catch (RuntimeException e) {
            // the originals come back without it: only IRQs the journal has no original for may keep the
            // driver's values
            LOG.warn("could not read the queue IRQs before giving back a queue count: {}", e.toString());
            return List.of();
        }
    }

    /** Puts back each of these IRQs the driver moved on a queue change; returns those it moved, put back or not. */
    List<PutBack> putBackMoved(List<Setting> irqs) {
        List<PutBack> moved = new ArrayList<>();
        for (Setting s : irqs) {
            try {
                putBackIfMoved(s).ifPresent(driver -> moved.add(new PutBack(s, driver, null)));
            } catch (IOException e) {
                moved.add(new PutBack(s, null, e.getMessage()));
            }
        }
        return moved;
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

    /**
     * An IRQ's affinity as it was before a queue change ({@code s.current()}), written back when the driver moved
     * it; returns the driver's value when it did (empty: not moved, or the IRQ is gone).
     */
    private Optional<String> putBackIfMoved(Setting s) throws IOException {
        Optional<String> moved = movedAffinity(s);
        if (moved.isPresent()) {
            put(s, s.current());
        }
        return moved;
    }

    /** An IRQ's affinity now when it is not its value from before a queue change; empty when it is, or the IRQ is gone. */
    Optional<String> movedAffinity(Setting s) throws IOException {
        return appliers.of(s.kind()).read(s).filter(now -> !Values.same(s.kind(), s.current(), now));
    }

    /** Writes a value and reads it back. */
    void put(Setting s, String value) throws IOException {
        Applier a = appliers.of(s.kind());
        a.write(s, value);
        String back = a.read(s).orElse(null);
        if (!Values.same(s.kind(), value, back)) {
            throw new IOException("wrote " + value + ", read back " + back);
        }
    }
}
