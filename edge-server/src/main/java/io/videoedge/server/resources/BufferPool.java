package io.videoedge.server.resources;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import one.nio.mem.DirectMemory;

/**
 * A fixed set of equal direct buffers, sliced at startup from one allocation and never freed or grown
 * (seed 004: pooled direct buffers instead of the JDK's per-thread temporary ones). All file and
 * network buffers of the request path come from here, so direct memory is bounded by the pool size.
 * Last in, first out: the buffer released last, still in the CPU cache, is the next one lent (a FIFO
 * queue handed out the coldest buffer every time). An array stack under a lock: no allocation per
 * acquire or release, and no ABA hazard.
 */
public final class BufferPool {
    private final int chunkSize;
    private final int count;
    private final Chunk[] stack;
    private int top;
    private final LongAdder exhausted = new LongAdder();

    public BufferPool(long totalBytes, int chunkSize) {
        if (chunkSize <= 0 || totalBytes < chunkSize) {
            throw new IllegalArgumentException("pool of " + totalBytes + " bytes cannot hold chunks of " + chunkSize);
        }
        long n = totalBytes / chunkSize;
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("too many chunks: " + n);
        }
        this.chunkSize = chunkSize;
        this.count = (int) n;
        this.stack = new Chunk[count];
        // one allocation per 1 GiB at most (a ByteBuffer's capacity is an int)
        int perSlab = Math.max(1, (1 << 30) / chunkSize);
        for (int made = 0; made < count; ) {
            int inSlab = Math.min(perSlab, count - made);
            ByteBuffer slab = ByteBuffer.allocateDirect(inSlab * chunkSize);
            for (int i = 0; i < inSlab; i++, made++) {
                ByteBuffer slice = slab.slice(i * chunkSize, chunkSize);
                stack[top++] = new Chunk(slice, DirectMemory.getAddress(slice));
            }
        }
    }

    /** A chunk, or null when all are in use (counted as exhaustion). */
    public Chunk tryAcquire() {
        Chunk c;
        synchronized (this) {
            c = top > 0 ? stack[--top] : null;
        }
        if (c == null) {
            exhausted.increment();
            return null;
        }
        c.buffer.clear();
        return c;
    }

    /** A chunk, waiting up to the timeout for one to be released; null on timeout. For worker threads only. */
    public Chunk acquire(long timeoutMillis) throws InterruptedException {
        Chunk c;
        synchronized (this) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            while (top == 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    exhausted.increment();
                    return null;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            c = stack[--top];
        }
        c.buffer.clear();
        return c;
    }

    public void release(Chunk c) {
        synchronized (this) {
            if (top == count) {
                throw new IllegalStateException("chunk released twice");
            }
            stack[top++] = c;
            notify();
        }
    }

    public int chunkSize() {
        return chunkSize;
    }

    public int chunks() {
        return count;
    }

    public long capacityBytes() {
        return (long) count * chunkSize;
    }

    public synchronized long usedBytes() {
        return (long) (count - top) * chunkSize;
    }

    public long exhaustedCount() {
        return exhausted.sum();
    }

    /** One pooled direct buffer and its native address (for one-nio's readRaw/writeRaw). */
    public static final class Chunk {
        final ByteBuffer buffer;
        final long address;

        Chunk(ByteBuffer buffer, long address) {
            this.buffer = buffer;
            this.address = address;
        }

        public ByteBuffer buffer() {
            return buffer;
        }

        public long address() {
            return address;
        }
    }
}
