package io.videoedge.server.accesslog;

import io.videoedge.server.config.AccessLogConfig;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The access log: selectors {@link #offer} finished lines into a bounded queue and never wait (a full
 * queue drops the line and counts it); one writer thread formats them and writes whole lines, many
 * per write(2), so that its lines and the server's own log lines on the same standard output never
 * cut into each other.
 */
public final class AccessLog implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AccessLog.class);
    /** Flushed when this much is buffered, or when the queue runs dry. */
    static final int FLUSH_BYTES = 64 * 1024;
    /** How long the writer sleeps when the queue is empty: the most a line waits before it is written. */
    static final long IDLE_POLL_NANOS = 10_000_000;

    private final int sample;
    private final BlockingQueue<AccessLine> queue;
    private final OutputStream out;
    private final AtomicLong responses = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final Thread writer;
    private volatile boolean closing;

    AccessLog(int sample, int queue, OutputStream out) {
        this.sample = sample;
        this.queue = new ArrayBlockingQueue<>(queue);
        this.out = out;
        this.writer = Thread.ofPlatform().name("access-log").daemon().unstarted(this::run);
    }

    /** The log a config asks for, started; null when it is disabled. */
    public static AccessLog start(AccessLogConfig c) throws IOException {
        if (c == null || !c.enabled) {
            return null;
        }
        OutputStream out = AccessLogConfig.STDOUT.equals(c.path)
                ? new FileOutputStream(FileDescriptor.out)
                : Files.newOutputStream(
                        Path.of(c.path),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND,
                        StandardOpenOption.WRITE);
        AccessLog l = new AccessLog(c.sample, c.queue, out);
        l.writerStart();
        return l;
    }

    void writerStart() {
        writer.start();
    }

    /** Lines waiting for the writer. */
    int queued() {
        return queue.size();
    }

    /** Whether this response is logged (one in {@code sample}); called once per response. */
    public boolean sampled() {
        return sample == 1 || responses.getAndIncrement() % sample == 0;
    }

    /** Queues a finished line; never blocks. */
    public void offer(AccessLine line) {
        if (closing || !queue.offer(line)) {
            dropped.incrementAndGet();
        }
    }

    public long written() {
        return written.get();
    }

    public long dropped() {
        return dropped.get();
    }

    /** Lines lost because the output refused them (a full disk, a closed pipe). */
    public long failed() {
        return failed.get();
    }

    private void run() {
        LineBuffer text = new LineBuffer(FLUSH_BYTES + 4096);
        List<AccessLine> batch = new ArrayList<>(1024);
        int inText = 0;
        while (true) {
            // the writer polls instead of waiting on the queue: a waiting consumer would be woken by
            // every offer, one futex call and thread switch per response on the selectors' side
            if (queue.drainTo(batch, 1024) == 0) {
                inText = flush(text, inText);
                if (closing && queue.isEmpty()) {
                    break;
                }
                if (!closing) {
                    LockSupport.parkNanos(IDLE_POLL_NANOS);
                }
                continue;
            }
            for (AccessLine l : batch) {
                l.appendJson(text);
                inText++;
                if (text.size() >= FLUSH_BYTES) {
                    inText = flush(text, inText);
                }
            }
            batch.clear();
        }
    }

    private int flush(LineBuffer text, int lines) {
        if (lines == 0) {
            return 0;
        }
        try {
            text.writeTo(out);
            out.flush();
            written.addAndGet(lines);
        } catch (IOException e) {
            if (failed.getAndAdd(lines) == 0) {
                log.atWarn()
                        .addKeyValue("error", e.toString())
                        .log("access log: cannot write; lines are counted as failed");
            }
        }
        text.clear();
        return 0;
    }

    /** Writes what is queued, then stops the writer. */
    @Override
    public synchronized void close() {
        if (closing) {
            return;
        }
        closing = true;
        try {
            if (writer.isAlive()) writer.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            out.flush();
            if (!(out instanceof FileOutputStream f && f.getFD() == FileDescriptor.out)) {
                out.close();
            }
        } catch (IOException e) {
            log.atWarn().addKeyValue("error", e.toString()).log("access log: close failed");
        }
    }
}
