package io.videoedge.agent.k8s;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.videoedge.agent.apply.ApplyEngine;
import io.videoedge.agent.apply.PassResult;
import io.videoedge.agent.apply.RevertResult;
import io.videoedge.agent.effect.EffectTracker;
import io.videoedge.agent.effect.TrafficCounters;
import io.videoedge.agent.facts.Boot;
import io.videoedge.agent.metrics.AgentMetrics;
import io.videoedge.agent.plan.Desired;
import io.videoedge.agent.plan.Setting;
import io.videoedge.agent.report.StatusBuilder;
import io.videoedge.api.Conditions;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.SettingState;
import io.videoedge.api.TuningMode;
import io.videoedge.api.VideoEdgeApi;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches this node's NodeTuning only (a Fabric8 informer with the field selector
 * metadata.name=NODE, resync off: it lists, watches, and relists after 410 Gone or a broken
 * watch by itself) and keeps the node as it asks: finalizer first, then a pass on every change,
 * every drift interval, and retries with backoff while something waits or fails; originals
 * restored, then the finalizer released, when it is deleted. All work runs on one thread, so
 * passes never overlap. Stopping the agent changes nothing on the node: rolling back on exit
 * caused outages elsewhere.
 */
public final class NodeTuningAgent implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NodeTuningAgent.class);
    private static final Duration MIN_RETRY = Duration.ofSeconds(2);
    private static final Duration MAX_RETRY = Duration.ofMinutes(2);
    private static final Duration STOP_WAIT = Duration.ofSeconds(5);
    /** Event reason of an original restored (or not) for a setting no longer asked for. */
    static final String RELEASED = "Released";
    /** Event reason of a queue IRQ the driver moved on a queue change, put back (or not) to its affinity from before. */
    static final String IRQ_PUT_BACK = "IrqPutBack";

    private final KubernetesClient client;
    private final String node;
    private final ApplyEngine engine;
    private final AgentMetrics metrics;
    private final EventRecorder events;
    private final Duration driftInterval;
    private final Clock clock;
    private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "node-tuning");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean queued = new AtomicBoolean();
    private SharedIndexInformer<NodeTuning> informer;
    private ScheduledFuture<?> retry;
    private Duration backoff = MIN_RETRY;
    private String lastEventKey;
    private List<NoteEvent> lastNotes = List.of();
    private final Supplier<Optional<TrafficCounters>> traffic;
    private final EffectTracker effects;
    private boolean adoptionChecked;
    private boolean earlierBootNoted;

    public NodeTuningAgent(
            KubernetesClient client,
            String node,
            ApplyEngine engine,
            AgentMetrics metrics,
            EventRecorder events,
            Duration driftInterval,
            Clock clock) {
        this(client, node, engine, metrics, events, driftInterval, clock, Optional::empty);
    }

    /**
     * @param traffic the node's traffic counters now (empty where /proc lacks them): read before every pass, they give
     *     the status its before-and-after effect
     */
    public NodeTuningAgent(
            KubernetesClient client,
            String node,
            ApplyEngine engine,
            AgentMetrics metrics,
            EventRecorder events,
            Duration driftInterval,
            Clock clock,
            Supplier<Optional<TrafficCounters>> traffic) {
        this.traffic = traffic;
        // "after" is the first window about a drift interval long (passes come every drift interval)
        this.effects = new EffectTracker(driftInterval.multipliedBy(9).dividedBy(10));
        this.client = client;
        this.node = node;
        this.engine = engine;
        this.metrics = metrics;
        this.events = events;
        this.driftInterval = driftInterval;
        this.clock = clock;
    }

    public void start() {
        // resync 0: no periodic replay of the cache; the drift check below is the agent's own timer
        informer = client.resources(NodeTuning.class)
                .withField("metadata.name", node)
                .runnableInformer(0);
        // keep list+watch going through any failure (API server away at start-up, a watch error other
        // than 410): Fabric8 logs each one and reconnects with its backoff; the default would stop the
        // informer for good, and /healthz would only say so
        informer.exceptionHandler((started, t) -> true);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(NodeTuning obj) {
                trigger();
            }

            @Override
            public void onUpdate(NodeTuning oldObj, NodeTuning newObj) {
                trigger();
            }

            @Override
            public void onDelete(NodeTuning obj, boolean deletedFinalStateUnknown) {
                LOG.info("NodeTuning {} is gone", node);
            }
        });
        informer.start(); // not waited for: the first list (or relist) triggers the first pass
        // drift: periodic re-check of every value; events trigger one too
        worker.scheduleWithFixedDelay(
                this::trigger, driftInterval.toMillis(), driftInterval.toMillis(), TimeUnit.MILLISECONDS);
        LOG.info("watching NodeTuning {} (drift check every {} s)", node, driftInterval.toSeconds());
    }

    /** Whether the agent is watching its NodeTuning (for /healthz). */
    public boolean healthy() {
        return informer != null && informer.isRunning() && informer.hasSynced() && !worker.isShutdown();
    }

    /** Queues one pass; passes requested while one is queued collapse into it. */
    public void trigger() {
        if (queued.compareAndSet(false, true)) {
            worker.execute(() -> {
                queued.set(false);
                try {
                    reconcile();
                } catch (RuntimeException e) {
                    LOG.error("pass failed", e);
                    retryLater();
                }
            });
        }
    }

    private void reconcile() {
        NodeTuning nt = informer.getStore().getByKey(node); // cluster-scoped: the key is the name
        if (nt == null) {
            return; // nothing asked; the journal stays for whoever comes next
        }
        if (nt.getMetadata().getDeletionTimestamp() != null) {
            if (hasFinalizer(nt)) {
                restoreAndRelease(nt);
            }
            return;
        }
        if (!hasFinalizer(nt)) {
            addFinalizer(nt); // before the first change, so a deletion always waits for the restore
            return; // the update event brings the next pass
        }
        Desired desired = Desired.of(nt.getSpec());
        Optional<String> journalProblem = engine.journalProblem();
        if (journalProblem.isPresent()) {
            readOnly(nt, desired, journalProblem.get());
            return;
        }
        keepJournal(nt, desired);
        Optional<TrafficCounters> counters = traffic.get(); // before the pass's writes
        PassResult r = engine.pass(desired);
        metrics.recordPass(r, clock.instant());
        long generation = Objects.requireNonNullElse(nt.getMetadata().getGeneration(), 0L);
        EffectTracker.Effect effect = counters.map(c -> effects.record(c, r.appliedAChange(), clock.instant()))
                .orElseGet(effects::effect);
        NodeTuningStatus status =
                StatusBuilder.build(r, nt.getStatus(), generation, desired.podUid() != null, clock.instant(), effect);
        metrics.recordConditions(status.conditions());
        recordEvents(nt, r);
        writeStatus(nt, status);
        boolean waiting = r.outcome() != PassResult.Outcome.APPLIED && r.outcome() != PassResult.Outcome.PLANNED
                || Conditions.APPLYING.equals(status.conditions().getFirst().getReason());
        if (waiting) {
            retryLater();
        } else {
            backoff = MIN_RETRY;
        }
    }

    /**
     * The journal cannot be read: nothing is changed on the node (a plan-only pass checks it), the
     * status and a Warning say why, and the file is read again on each retry until someone fixes it.
     */
    private void readOnly(NodeTuning nt, Desired desired, String problem) {
        PassResult r = engine.pass(desired.withMode(TuningMode.PLAN));
        boolean inPlace = r.plan().inState(SettingState.PLANNED).isEmpty()
                && r.plan().inState(SettingState.FAILED).isEmpty();
        long generation = Objects.requireNonNullElse(nt.getMetadata().getGeneration(), 0L);
        NodeTuningStatus status =
                StatusBuilder.journalUnreadable(nt.getStatus(), generation, problem, inPlace, clock.instant());
        metrics.recordConditions(status.conditions());
        String key = Conditions.JOURNAL_UNREADABLE + ":" + problem;
        if (!key.equals(lastEventKey)) {
            lastEventKey = key;
            events.warning(nt, Conditions.JOURNAL_UNREADABLE, problem);
            LOG.error("{}", problem);
        }
        writeStatus(nt, status);
        retryLater();
    }

    /**
     * The journal survives what can happen to its file: deleted while the agent runs, it is written
     * again from memory; absent when the agent started while the last status report names originals
     * (the file was lost with the agent down), those originals are journaled again before any pass.
     */
    private void keepJournal(NodeTuning nt, Desired desired) {
        try {
            if (engine.rewriteJournalIfDeleted()) {
                events.warning(
                        nt,
                        Conditions.JOURNAL_RECOVERED,
                        "the journal of originals was deleted: written again from memory");
            }
            if (!adoptionChecked) {
                adoptionChecked = true;
                noteEarlierBoot(nt, "originals are taken again from this boot as the agent changes them");
                Map<String, String> reported = reportedOriginals(nt.getStatus(), engine.boot());
                if (engine.journalAbsentAtStart() && !reported.isEmpty()) {
                    List<String> adopted = engine.adoptReportedOriginals(desired, reported);
                    if (!adopted.isEmpty()) {
                        events.warning(
                                nt,
                                Conditions.JOURNAL_RECOVERED,
                                "no journal of originals on the node: the originals of " + adopted.size()
                                        + " setting(s) taken from the last status report: "
                                        + String.join(", ", adopted));
                        LOG.warn("journal rebuilt from the last status report: {}", adopted);
                    }
                }
            }
        } catch (IOException e) {
            LOG.warn("could not keep the journal: {}", e.toString());
        }
    }

    /** Once per agent: an Event saying the journal held an earlier boot's originals, dropped, if it did. */
    private void noteEarlierBoot(NodeTuning nt, String then) {
        if (earlierBootNoted) {
            return;
        }
        earlierBootNoted = true;
        engine.earlierBootDropped().ifPresent(dropped -> {
            String why = dropped + "; " + then;
            events.normal(nt, Conditions.JOURNAL_RECOVERED, why);
            LOG.info("{}", why);
        });
    }

    /**
     * The originals the last status reported for settings the agent changed; none when it was written under an
     * earlier boot of the node (its capabilities' boot, or, from an agent that reported none, its last apply
     * before this boot began): a reboot reset those values.
     */
    static Map<String, String> reportedOriginals(NodeTuningStatus status, Boot boot) {
        Map<String, String> originals = new LinkedHashMap<>();
        if (status == null) {
            return originals;
        }
        String reportedBoot =
                status.capabilities() == null ? null : status.capabilities().bootId();
        if (boot.earlier(reportedBoot, lastApplied(status))) {
            return originals;
        }
        if (status.settings() != null) {
            for (NodeTuningStatus.Setting s : status.settings()) {
                if (s.original() != null && s.state() == SettingState.APPLIED) {
                    originals.put(s.name(), s.original());
                }
            }
        }
        return originals;
    }

    private static Instant lastApplied(NodeTuningStatus status) {
        try {
            return status.lastAppliedTime() == null ? null : Instant.parse(status.lastAppliedTime());
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private void recordEvents(NodeTuning nt, PassResult r) {
        if (!r.drifted().isEmpty()) {
            events.warning(
                    nt,
                    Conditions.DRIFT_CORRECTED,
                    "settings rewritten on the node, re-applied: "
                            + r.drifted().stream()
                                    .map(s -> s.name() + " was " + s.current())
                                    .collect(Collectors.joining(", ")));
        }
        recordOutcome(nt, r);
        recordNotes(nt, r);
    }

    private void recordOutcome(NodeTuning nt, PassResult r) {
        String key = switch (r.outcome()) {
            case APPLIED -> r.wrote() ? "Applied:" + r.fingerprint() : null;
            case PLANNED -> "PlanOnly:" + r.fingerprint();
            default -> r.outcome() + ":" + r.error();
        };
        // one event per outcome, not one per retry
        if (key == null || key.equals(lastEventKey)) {
            return;
        }
        lastEventKey = key;
        switch (r.outcome()) {
            case APPLIED ->
                events.normal(
                        nt,
                        "Applied",
                        "applied "
                                + r.plan().inState(io.videoedge.api.SettingState.APPLIED).stream()
                                        .map(Setting::name)
                                        .collect(Collectors.joining(", ")));
            case PLANNED ->
                events.normal(nt, Conditions.PLAN_ONLY, r.plan().changes().size() + " setting(s) would change");
            case INVALID -> events.warning(nt, Conditions.INVALID_SPEC, r.error());
            case ROLLED_BACK -> events.warning(nt, Conditions.ROLLED_BACK, r.error());
            case ROLLBACK_INCOMPLETE -> events.warning(nt, Conditions.APPLY_FAILED, r.error());
        }
    }

    /**
     * The pass's notes as Events, whatever its outcome (a release is often all a pass does), each unless the previous
     * pass had it recorded already (a failure retried says the same); one whose Event could not be recorded is tried
     * again by the next pass that has it.
     */
    private void recordNotes(NodeTuning nt, PassResult r) {
        lastNotes = record(
                noteEvents(r),
                lastNotes,
                e -> e.warning()
                        ? events.warning(nt, e.reason(), e.message())
                        : events.normal(nt, e.reason(), e.message()));
    }

    /**
     * Records ({@code recorder} says whether it did) the notes the previous pass did not have recorded; returns the
     * notes recorded now or before, which the next pass does not record again.
     */
    static List<NoteEvent> record(List<NoteEvent> notes, List<NoteEvent> last, Predicate<NoteEvent> recorder) {
        List<NoteEvent> lost = new ArrayList<>();
        for (NoteEvent e : notesToRecord(notes, last)) {
            if (!recorder.test(e)) {
                lost.add(e);
            }
        }
        return notes.stream().filter(e -> !lost.contains(e)).toList();
    }

    /** The notes of a pass to record after a pass whose recorded notes were {@code last}: those it did not have. */
    static List<NoteEvent> notesToRecord(List<NoteEvent> notes, List<NoteEvent> last) {
        return notes.stream().filter(e -> !last.contains(e)).toList();
    }

    /** An Event about something a pass did besides its outcome: a Warning when it says something failed. */
    record NoteEvent(String reason, String message, boolean warning) {}

    /** The pass's notes as Events: each kind with its own reason. */
    static List<NoteEvent> noteEvents(PassResult r) {
        return java.util.stream.Stream.concat(
                        r.released().stream().map(n -> note(RELEASED, n, r)),
                        r.irqsPutBack().stream().map(n -> note(IRQ_PUT_BACK, n, r)))
                .toList();
    }

    private static NoteEvent note(String reason, String message, PassResult r) {
        return new NoteEvent(reason, message, r.noteProblems().contains(message));
    }

    private void restoreAndRelease(NodeTuning nt) {
        Optional<String> journalProblem = engine.journalProblem();
        if (journalProblem.isPresent()) {
            // the finalizer stays: releasing it would let the node go with originals nobody can restore
            String problem = journalProblem.get();
            events.warning(nt, Conditions.RESTORING, "cannot restore: " + problem);
            NodeTuningStatus restoring = StatusBuilder.journalUnreadable(
                    nt.getStatus(),
                    Objects.requireNonNullElse(nt.getMetadata().getGeneration(), 0L),
                    problem,
                    false,
                    clock.instant());
            metrics.recordConditions(restoring.conditions());
            writeStatus(nt, restoring);
            retryLater();
            return;
        }
        noteEarlierBoot(nt, "nothing of the earlier boot is restored");
        RevertResult r = engine.revert();
        if (!r.complete()) {
            events.warning(nt, Conditions.RESTORING, "could not restore: " + r.describeFailures());
            NodeTuningStatus restoring = StatusBuilder.restoring(
                    r,
                    nt.getStatus(),
                    Objects.requireNonNullElse(nt.getMetadata().getGeneration(), 0L),
                    clock.instant());
            metrics.recordConditions(restoring.conditions());
            writeStatus(nt, restoring);
            retryLater();
            return;
        }
        metrics.recordRevert();
        events.normal(nt, "Restored", "originals restored (" + r.restored().size() + " settings); finalizer released");
        List<String> finalizers = nt.getMetadata().getFinalizers();
        int i = finalizers.indexOf(VideoEdgeApi.AGENT_FINALIZER);
        patchJson(
                nt,
                "[{\"op\":\"test\",\"path\":\"/metadata/finalizers/" + i + "\",\"value\":\""
                        + VideoEdgeApi.AGENT_FINALIZER + "\"},{\"op\":\"remove\",\"path\":\"/metadata/finalizers/" + i
                        + "\"}]");
        LOG.info("originals restored ({}), finalizer released", r.restored().size());
    }

    private void addFinalizer(NodeTuning nt) {
        String patch = nt.getMetadata().getFinalizers() == null
                        || nt.getMetadata().getFinalizers().isEmpty()
                ? "[{\"op\":\"add\",\"path\":\"/metadata/finalizers\",\"value\":[\"" + VideoEdgeApi.AGENT_FINALIZER
                        + "\"]}]"
                : "[{\"op\":\"add\",\"path\":\"/metadata/finalizers/-\",\"value\":\"" + VideoEdgeApi.AGENT_FINALIZER
                        + "\"}]";
        patchJson(nt, patch);
    }

    private void patchJson(NodeTuning nt, String patch) {
        try {
            client.resources(NodeTuning.class)
                    .withName(nt.getMetadata().getName())
                    .patch(PatchContext.of(PatchType.JSON), patch);
        } catch (KubernetesClientException e) {
            // a concurrent change failed the test op: the informer brings the new object and another pass
            LOG.warn("patch of {} failed ({}), retrying", node, e.getMessage());
            retryLater();
        }
    }

    private void writeStatus(NodeTuning nt, NodeTuningStatus status) {
        if (status.equals(nt.getStatus())) {
            return; // written only when it changed
        }
        // a copy: the informer's object is its cache. The whole status is replaced (fields that became
        // empty do not linger), at the resourceVersion the pass saw
        NodeTuning update = client.getKubernetesSerialization().clone(nt);
        update.setStatus(status);
        try {
            client.resource(update).updateStatus();
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                // the object changed since this pass read it (often: our own last status write): the
                // informer delivers the newer one, and its event brings another pass
                LOG.debug("status of {} not written: the object changed meanwhile", node);
                return;
            }
            LOG.warn("status of {} not written ({}), retrying", node, e.getMessage());
            retryLater();
        }
    }

    private static boolean hasFinalizer(NodeTuning nt) {
        return nt.getMetadata().getFinalizers() != null
                && nt.getMetadata().getFinalizers().contains(VideoEdgeApi.AGENT_FINALIZER);
    }

    private void retryLater() {
        if (retry != null && !retry.isDone()) {
            return;
        }
        retry = worker.schedule(this::trigger, backoff.toMillis(), TimeUnit.MILLISECONDS);
        backoff = backoff.multipliedBy(2).compareTo(MAX_RETRY) > 0 ? MAX_RETRY : backoff.multipliedBy(2);
    }

    /**
     * Stops watching and the worker, and returns once a pass in progress has ended (it is interrupted;
     * at most {@link #STOP_WAIT}), so that nothing touches the node after this returns.
     */
    @Override
    public void close() {
        worker.shutdownNow();
        if (informer != null) {
            informer.close();
        }
        try {
            if (!worker.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("a tuning pass was still running {} after stop", STOP_WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
