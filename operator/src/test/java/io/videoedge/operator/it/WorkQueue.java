package io.videoedge.operator.it;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A controller's work queue, as client-go has it: keys, not events; a key queued twice runs once; a
 * key is never handled by two workers at once (added while it runs, it runs again after); a handler
 * that throws is retried a second later. The simulated kubelets, DaemonSet controller and agents of
 * the scale tests use one each, so that their cost per event is per object, never per fleet.
 */
final class WorkQueue implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WorkQueue.class);

    private enum State {
        QUEUED,
        RUNNING,
        DIRTY
    }

    private final String name;
    private final Consumer<String> handler;
    private final ExecutorService workers;
    private final ScheduledExecutorService timers;
    private final ConcurrentHashMap<String, State> states = new ConcurrentHashMap<>();

    WorkQueue(String name, int workers, Consumer<String> handler) {
        this.name = name;
        this.handler = handler;
        this.workers = Executors.newFixedThreadPool(workers, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        this.timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name + "-timer");
            t.setDaemon(true);
            return t;
        });
    }

    void add(String key) {
        states.compute(key, (k, s) -> {
            if (s == null) {
                workers.execute(() -> run(k));
                return State.QUEUED;
            }
            return s == State.RUNNING ? State.DIRTY : s;
        });
    }

    void addAfter(String key, Duration delay) {
        if (delay.isZero() || delay.isNegative()) {
            add(key);
        } else {
            timers.schedule(() -> add(key), delay.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void run(String key) {
        states.put(key, State.RUNNING);
        try {
            handler.accept(key);
        } catch (RuntimeException e) {
            log.debug("{}: {} failed ({}), retried in 1 s", name, key, e.getMessage());
            addAfter(key, Duration.ofSeconds(1));
        } finally {
            states.compute(key, (k, s) -> {
                if (s == State.DIRTY) {
                    workers.execute(() -> run(k));
                    return State.QUEUED;
                }
                return null;
            });
        }
    }

    /** Keys queued or running. */
    int depth() {
        return states.size();
    }

    @Override
    public void close() {
        timers.shutdownNow();
        workers.shutdownNow();
    }
}
