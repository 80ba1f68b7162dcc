package io.videoedge.server.cache;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.FileDescriptor;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether a file's bytes are in the page cache. By {@code cachestat(2)} (Linux 6.5) when the kernel and
 * the seccomp profile allow it: one system call, no mapping. Else by {@code mincore(2)} on a read-only
 * mapping from the range to a page past the end of the file that is never touched (so never a page
 * fault, nor a SIGBUS under a truncated file): mmap, mincore twice, munmap. Container runtimes' name-based seccomp defaults written before
 * cachestat refuse it (EPERM) and allow mincore.
 *
 * <p>Both answer only for files the process owns or could write, which the cache's own files are:
 * cachestat refuses others (EPERM, kernels since 2025); mincore reports every page of them as present.
 * So each mincore answer is checked against a page no folio of the file can hold (past the end of
 * file, beyond the largest folio that can straddle it): reported present, the answer is a pretence
 * and counts as "not held".
 *
 * <p>Unavailable without native access, or when neither call works: {@link #probe} says which, and
 * {@link #holds} then always says no, so callers keep their other path.
 */
final class PageCache {
    /** How the page cache is asked. */
    enum Method {
        CACHESTAT,
        MINCORE
    }

    private static final long SYS_CACHESTAT =
            451; // x86_64 and aarch64 alike (a syscall added after the numbers were unified)
    private static final int PROT_READ = 1;
    private static final int MAP_SHARED = 1;
    private static final MethodHandle SYSCALL;
    private static final MethodHandle SYSCALL_ERRNO; // the same, capturing errno (for the probe's message)
    private static final MethodHandle MMAP;
    private static final MethodHandle MINCORE;
    private static final MethodHandle MUNMAP;
    private static final MethodHandle FADVISE;
    private static final int POSIX_FADV_WILLNEED = 3;
    private static final long FD_OFFSET;
    static final long PAGE_SIZE;
    /** The largest folio the page cache uses (a PMD: 2 MiB with 4 KiB pages); folios are aligned to their size. */
    private static final long LARGEST_FOLIO;

    private static final String NO_NATIVE;

    /** What the last probe found: a method, or why there is none. One volatile: read together. */
    private record State(Method method, String unavailable) {}

    private static volatile State state = new State(null, "not probed yet");

    static {
        MethodHandle syscall = null, syscallErrno = null, mmap = null, mincore = null, munmap = null, fadvise = null;
        long fdOffset = -1;
        long pageSize = 4096;
        String why = null;
        try {
            Linker linker = Linker.nativeLinker();
            var libc = linker.defaultLookup();
            MemorySegment symbol = libc.find("syscall").orElseThrow();
            FunctionDescriptor d = FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG);
            syscall = linker.downcallHandle(symbol, d, Linker.Option.firstVariadicArg(1));
            syscallErrno = linker.downcallHandle(
                    symbol, d, Linker.Option.firstVariadicArg(1), Linker.Option.captureCallState("errno"));
            mmap = linker.downcallHandle(
                    libc.find("mmap").orElseThrow(),
                    FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
            mincore = linker.downcallHandle(
                    libc.find("mincore").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
            munmap = linker.downcallHandle(
                    libc.find("munmap").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
            fadvise = linker.downcallHandle(
                    libc.find("posix_fadvise").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
            MethodHandle getpagesize =
                    linker.downcallHandle(libc.find("getpagesize").orElseThrow(), FunctionDescriptor.of(JAVA_INT));
            pageSize = (int) getpagesize.invokeExact();
            fdOffset = one.nio.util.JavaInternals.unsafe.objectFieldOffset(FileDescriptor.class.getDeclaredField("fd"));
        } catch (Throwable e) {
            why = "no native access (" + e + ")";
        }
        SYSCALL = syscall;
        SYSCALL_ERRNO = syscallErrno;
        MMAP = mmap;
        MINCORE = mincore;
        MUNMAP = munmap;
        FADVISE = fadvise;
        FD_OFFSET = fdOffset;
        PAGE_SIZE = pageSize;
        LARGEST_FOLIO = pageSize
                * (pageSize / 8); // one page table's reach: 2 MiB, 32 MiB with 16 KiB pages, 512 MiB with 64 KiB
        NO_NATIVE = why;
    }

    private PageCache() {}

    /** Null when {@link #holds} can answer; else why it cannot (for the start-up log). */
    static String unavailable() {
        return state.unavailable();
    }

    /** How {@link #holds} asks (for the start-up log); null when it cannot. */
    static Method method() {
        return state.method();
    }

    /**
     * Asks about a file of its own in {@code dir} (where the files to ask about will be): cachestat,
     * else mincore. Records the answer for {@link #unavailable} and {@link #method}: null when one of
     * them works, else why neither does.
     */
    static String probe(Path dir) {
        return probe(dir, Method.CACHESTAT);
    }

    /** As {@link #probe(Path)}, starting with {@code first} (MINCORE: as on a kernel or profile without cachestat). */
    static String probe(Path dir, Method first) {
        String why = NO_NATIVE;
        if (why == null && !Boolean.parseBoolean(System.getProperty("videoedge.pageCacheSend", "true"))) {
            why = "turned off (-Dvideoedge.pageCacheSend=false, for measuring)";
        }
        Method found = null;
        if (why == null) {
            String noCachestat = first == Method.CACHESTAT ? probeFile(dir, Method.CACHESTAT) : "not tried";
            if (noCachestat == null) {
                found = Method.CACHESTAT;
            } else {
                String noMincore = probeFile(dir, Method.MINCORE);
                if (noMincore == null) {
                    found = Method.MINCORE;
                } else {
                    why = noCachestat + "; " + noMincore;
                }
            }
        }
        state = new State(found, why);
        return why;
    }

    private static String probeFile(Path dir, Method m) {
        Path probe = null;
        try {
            probe = Files.createTempFile(dir, "pagecache", ".probe");
            Files.write(probe, new byte[1]);
            try (RandomAccessFile f = new RandomAccessFile(probe.toFile(), "r")) {
                if (m == Method.MINCORE) {
                    return mincore(f, 0, 1, 1) >= 0
                            ? null
                            : "mincore(2) failed or does not answer for the cache's files";
                }
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment errno = arena.allocate(Linker.Option.captureStateLayout());
                    MemorySegment range = arena.allocate(16, 8);
                    range.set(JAVA_LONG, 8, 1);
                    MemorySegment stat = arena.allocate(40, 8);
                    long rc = (long) SYSCALL_ERRNO.invokeExact(errno, SYS_CACHESTAT, (long) fd(f), range, stat, 0L);
                    if (rc == 0) return null;
                    int e = errno.get(
                            JAVA_INT, Linker.Option.captureStateLayout().byteOffset(groupElement("errno")));
                    return "cachestat(2) failed, errno " + e
                            + (e == 38
                                    ? " (ENOSYS: a kernel before 6.5)"
                                    : e == 1 ? " (EPERM: seccomp, or a file not ours)" : "");
                }
            }
        } catch (Throwable e) {
            return m.name().toLowerCase() + " could not be probed in " + dir + " (" + e + ")";
        } finally {
            if (probe != null) {
                try {
                    Files.deleteIfExists(probe);
                } catch (IOException ignored) {
                    // a probe file left behind; a restart of the disk tier ignores unknown names
                }
            }
        }
    }

    /**
     * Whether every page of {@code [offset, offset + length)} of the open file, {@code fileSize} bytes
     * long, is in the page cache.
     */
    static boolean holds(RandomAccessFile file, long offset, long length, long fileSize) {
        Method m = state.method();
        if (m == null || length <= 0) return false;
        long cached = m == Method.MINCORE ? mincore(file, offset, length, fileSize) : cachestat(file, offset, length);
        return cached == pages(offset, length);
    }

    /**
     * Asks the kernel to read {@code [offset, offset + length)} of the open file into the page cache
     * ({@code posix_fadvise(WILLNEED)}: it starts the reads and returns; it may wait for the file's
     * block map, so not on a selector). False when the call failed or there is no native access.
     */
    static boolean readBack(RandomAccessFile file, long offset, long length) {
        if (FADVISE == null) return false;
        try {
            return (int) FADVISE.invokeExact(fd(file), offset, length, POSIX_FADV_WILLNEED) == 0;
        } catch (Throwable e) {
            return false;
        }
    }

    static long pages(long offset, long length) {
        return (offset + length - 1) / PAGE_SIZE - offset / PAGE_SIZE + 1;
    }

    /** Pages of the range in the page cache, or -1 when the call failed. */
    private static long cachestat(RandomAccessFile file, long offset, long length) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment range = arena.allocate(16, 8); // struct cachestat_range { u64 off; u64 len; }
            range.set(JAVA_LONG, 0, offset);
            range.set(JAVA_LONG, 8, length);
            MemorySegment stat = arena.allocate(40, 8); // struct cachestat: nr_cache first, four u64 more
            long rc = (long) SYSCALL.invokeExact(SYS_CACHESTAT, (long) fd(file), range, stat, 0L);
            return rc == 0 ? stat.get(JAVA_LONG, 0) : -1;
        } catch (Throwable e) {
            return -1;
        }
    }

    /**
     * Pages of the range in the page cache by mincore(2), or -1 when a call failed or the kernel
     * pretends (see the class comment): the mapping reaches one page past {@link #pastAnyFolio}, which
     * must be reported absent.
     */
    private static long mincore(RandomAccessFile file, long offset, long length, long fileSize) {
        long start = offset / PAGE_SIZE * PAGE_SIZE;
        long pages = pages(offset, length);
        long sentinel = pastAnyFolio(fileSize);
        long mapped = sentinel + PAGE_SIZE - start;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment at = (MemorySegment)
                    MMAP.invokeExact(MemorySegment.NULL, mapped, PROT_READ, MAP_SHARED, fd(file), start);
            if (at.address() == -1L) return -1; // MAP_FAILED
            try {
                MemorySegment vec = arena.allocate(pages + 1);
                if ((int) MINCORE.invokeExact(at, pages * PAGE_SIZE, vec) != 0) return -1;
                MemorySegment past = MemorySegment.ofAddress(at.address() + sentinel - start);
                if ((int) MINCORE.invokeExact(past, PAGE_SIZE, vec.asSlice(pages)) != 0) return -1;
                if ((vec.get(JAVA_BYTE, pages) & 1) != 0) return -1; // a page past the end "present": not told
                long present = 0;
                for (long i = 0; i < pages; i++) present += vec.get(JAVA_BYTE, i) & 1;
                return present;
            } finally {
                int ignored = (int) MUNMAP.invokeExact(at, mapped);
            }
        } catch (Throwable e) {
            return -1;
        }
    }

    /** The offset of a page past the end of a file of {@code fileSize} bytes that no folio of it can hold. */
    static long pastAnyFolio(long fileSize) {
        return (fileSize + LARGEST_FOLIO - 1) / LARGEST_FOLIO * LARGEST_FOLIO; // folios are aligned to their size
    }

    private static int fd(RandomAccessFile file) throws IOException {
        return one.nio.util.JavaInternals.unsafe.getInt(file.getFD(), FD_OFFSET);
    }
}
