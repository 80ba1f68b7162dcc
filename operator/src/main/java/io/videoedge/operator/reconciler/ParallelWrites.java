package io.videoedge.operator.reconciler;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;

/**
 * Sends independent API writes of one reconcile side by side, at most {@link #IN_FLIGHT} at a time,
 * each on a virtual thread, and returns when all are done. One at a time, a pass that opens the
 * readiness gates of 5,000 pods waited for 5,000 round trips to a busy API server in a row (about 100 s
 * of one reconcile at 5,000 nodes); side by side it waits for the slowest of each batch. The bound keeps
 * a fleet-wide change from arriving at the API server as thousands of requests at once. The first
 * failure is rethrown after every write has ended (the others are not cancelled: each is whole in
 * itself, and the next pass retries what failed).
 */
final class ParallelWrites {
    static final int IN_FLIGHT = 16;

    private ParallelWrites() {}

    static <T> void each(Collection<T> items, Consumer<T> write) {
        if (items.size() <= 1) {
            items.forEach(write);
            return;
        }
        Semaphore slots = new Semaphore(IN_FLIGHT);
        List<Future<?>> sent = new ArrayList<>(items.size());
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (T item : items) {
                slots.acquireUninterruptibly();
                sent.add(threads.submit(() -> {
                    try {
                        write.accept(item);
                    } finally {
                        slots.release();
                    }
                }));
            }
        }
        RuntimeException first = null;
        for (Future<?> f : sent) {
            try {
                f.get();
            } catch (ExecutionException e) {
                if (first == null) {
                    first = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                } else {
                    first.addSuppressed(e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the API writes", e);
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
