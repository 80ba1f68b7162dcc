package io.videoedge.server.cache;

/**
 * When a memory hit may ask the kernel to read its disk copy back into the page cache (pure; the disk
 * tier keeps one per entry). A memory hit goes out from the disk copy with {@code sendfile} only while
 * the page cache holds all of its range; otherwise it is copied from memory, and since nothing then
 * touches the file, the kernel has no reason to read it back: once it lost pages (memory pressure,
 * or a hypervisor taking back guest page cache), the hit would be copied for good. So the first time
 * pages are found missing the read-back is due at once; each later time only after a wait that doubles
 * from {@link #FIRST_WAIT_NANOS} to {@link #LONGEST_WAIT_NANOS}, so that an object the page cache keeps
 * losing (it is hit less often than the page cache turns over) costs its disk at most one read of
 * its range per {@code LONGEST_WAIT_NANOS}, not one per hit. A new version of an object is a new entry
 * and starts again.
 *
 * @param waitNanos the wait set at the last read-back (0: none yet)
 * @param notBefore when the next read-back may be asked for ({@link System#nanoTime()} time)
 */
record ReadBackPacing(long waitNanos, long notBefore) {
    static final long FIRST_WAIT_NANOS = 1_000_000_000L;
    static final long LONGEST_WAIT_NANOS = 64_000_000_000L;
    static final ReadBackPacing NEVER_ASKED = new ReadBackPacing(0, 0);

    /** Whether a read-back may be asked for at {@code now}. */
    boolean due(long now) {
        return waitNanos == 0 || now - notBefore >= 0;
    }

    /** The pacing after a read-back asked for at {@code now}. */
    ReadBackPacing asked(long now) {
        long next = waitNanos == 0 ? FIRST_WAIT_NANOS : Math.min(waitNanos * 2, LONGEST_WAIT_NANOS);
        return new ReadBackPacing(next, now + next);
    }
}
