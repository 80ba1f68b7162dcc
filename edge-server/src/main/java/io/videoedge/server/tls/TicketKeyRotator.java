package io.videoedge.server.tls;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rotates the session ticket keys of each {@code ticketDir} every {@code rotation} ({@link TicketKeys#rotateIfDue}),
 * on one daemon thread. The first step runs in {@link #start}, before one-nio loads the directory;
 * then each step is scheduled for when the current key of some directory turns {@code rotation} old
 * (so a restart continues the schedule of the keys it finds). A failed step is logged and retried.
 */
public final class TicketKeyRotator implements TicketKeyKeeper {
    private static final Logger log = LoggerFactory.getLogger(TicketKeyRotator.class);
    static final long RETRY_MILLIS = 10_000;

    private final List<Path> dirs;
    private final long rotationMillis;
    private final Consumer<Boolean> outcome;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ticket-key-rotation");
        t.setDaemon(true);
        return t;
    });

    private TicketKeyRotator(List<Path> dirs, long rotationMillis, Consumer<Boolean> outcome) {
        this.dirs = List.copyOf(dirs);
        this.rotationMillis = rotationMillis;
        this.outcome = outcome;
    }

    /**
     * Runs the first step now (throws when a directory cannot be written) and schedules the next.
     *
     * @param outcome told true for each rotation done, false for each failed step
     */
    public static TicketKeyRotator start(List<Path> dirs, long rotationMillis, Consumer<Boolean> outcome)
            throws IOException {
        TicketKeyRotator r = new TicketKeyRotator(dirs, rotationMillis, outcome);
        long next = Long.MAX_VALUE;
        for (Path dir : r.dirs) {
            next = Math.min(next, r.step(dir).nextDueMillis());
        }
        r.schedule(next);
        return r;
    }

    private TicketKeys.Step step(Path dir) throws IOException {
        TicketKeys.Step s = TicketKeys.rotateIfDue(dir, rotationMillis, System.currentTimeMillis());
        if (s.rotated()) {
            outcome.accept(true);
            log.atInfo()
                    .addKeyValue("ticketDir", dir.toString())
                    .addKeyValue("key", s.current().file().getFileName().toString())
                    .addKeyValue("deleted", s.deleted())
                    .addKeyValue("rotationMs", rotationMillis)
                    .log("session ticket key rotated: the new key encrypts, the previous one still decrypts");
        } else if (s.deleted() > 0) {
            log.atInfo()
                    .addKeyValue("ticketDir", dir.toString())
                    .addKeyValue("deleted", s.deleted())
                    .log("session ticket keys older than the previous one deleted");
        }
        return s;
    }

    private void run() {
        long next = Long.MAX_VALUE;
        for (Path dir : dirs) {
            try {
                next = Math.min(next, step(dir).nextDueMillis());
            } catch (IOException | RuntimeException e) {
                outcome.accept(false);
                log.atError()
                        .addKeyValue("ticketDir", dir.toString())
                        .addKeyValue("error", e.toString())
                        .log("session ticket key rotation failed; retrying");
                next = Math.min(next, System.currentTimeMillis() + Math.min(RETRY_MILLIS, rotationMillis));
            }
        }
        schedule(next);
    }

    private void schedule(long dueMillis) {
        long delay = Math.max(10, dueMillis - System.currentTimeMillis());
        try {
            timer.schedule(this::run, delay, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closed
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
