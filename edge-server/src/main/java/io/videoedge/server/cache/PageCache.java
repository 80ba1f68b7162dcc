package io.videoedge.server.cache;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
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
 * Whether a file's bytes are in the page cache, by {@code cachestat(2)} (Linux 6.5): one system call,
 * no mapping. Since 2025 kernels answer only for files the caller owns or could write (else EPERM),
 * which the cache's own files are. Unavailable on older kernels, under a seccomp profile that does not
 * allow it, or without native access: {@link #probe} says which, and {@link #holds} then always says
 * no, so callers keep their other path.
 */
final class PageCache {
    private static final long SYS_CACHESTAT =
            451; // x86_64 and aarch64 alike (a syscall added after the numbers were unified)
    private static final MethodHandle SYSCALL;
    private static final MethodHandle SYSCALL_ERRNO; // the same, capturing errno (for the probe's message)
    private static final long FD_OFFSET;
    static final long PAGE_SIZE;
    private static final String NO_NATIVE;

    private static volatile String unavailable = "not probed yet";

    static {
        MethodHandle syscall = null, syscallErrno = null;
        long fdOffset = -1;
        long pageSize = 4096;
        String why = null;
        try {
            Linker linker = Linker.nativeLinker();
            MemorySegment symbol = linker.defaultLookup().find("syscall").orElseThrow();
            FunctionDescriptor d = FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG);
            syscall = linker.downcallHandle(symbol, d, Linker.Option.firstVariadicArg(1));
            syscallErrno = linker.downcallHandle(
                    symbol, d, Linker.Option.firstVariadicArg(1), Linker.Option.captureCallState("errno"));
            MethodHandle getpagesize = linker.downcallHandle(
                    linker.defaultLookup().find("getpagesize").orElseThrow(), FunctionDescriptor.of(JAVA_INT));
            pageSize = (int) getpagesize.invokeExact();
            fdOffset = one.nio.util.JavaInternals.unsafe.objectFieldOffset(FileDescriptor.class.getDeclaredField("fd"));
        } catch (Throwable e) {
            why = "no native access (" + e + ")";
        }
        SYSCALL = syscall;
        SYSCALL_ERRNO = syscallErrno;
        FD_OFFSET = fdOffset;
        PAGE_SIZE = pageSize;
        NO_NATIVE = why;
    }

    private PageCache() {}

    /** Null when {@link #holds} can answer; else why it cannot (for the start-up log). */
    static String unavailable() {
        return unavailable;
    }

    /**
     * Asks about a file of its own in {@code dir} (where the files to ask about will be), and records
     * the answer for {@link #unavailable}: null when the call works, else why not.
     */
    static String probe(Path dir) {
        String why = NO_NATIVE;
        if (why == null && !Boolean.parseBoolean(System.getProperty("videoedge.pageCacheSend", "true"))) {
            why = "turned off (-Dvideoedge.pageCacheSend=false, for measuring)";
        }
        if (why == null) why = probeFile(dir);
        unavailable = why;
        return why;
    }

    private static String probeFile(Path dir) {
        Path probe = null;
        try {
            probe = Files.createTempFile(dir, "cachestat", ".probe");
            Files.write(probe, new byte[1]);
            try (RandomAccessFile f = new RandomAccessFile(probe.toFile(), "r");
                    Arena arena = Arena.ofConfined()) {
                MemorySegment errno = arena.allocate(Linker.Option.captureStateLayout());
                MemorySegment range = arena.allocate(16, 8);
                range.set(JAVA_LONG, 8, 1);
                MemorySegment stat = arena.allocate(40, 8);
                long rc = (long) SYSCALL_ERRNO.invokeExact(errno, SYS_CACHESTAT, (long) fd(f), range, stat, 0L);
                if (rc == 0) return null;
                int e = errno.get(JAVA_INT, Linker.Option.captureStateLayout().byteOffset(groupElement("errno")));
                return "cachestat(2) failed, errno " + e
                        + (e == 38
                                ? " (ENOSYS: a kernel before 6.5)"
                                : e == 1 ? " (EPERM: seccomp, or a file not ours)" : "");
            }
        } catch (Throwable e) {
            return "cachestat(2) could not be probed in " + dir + " (" + e + ")";
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

    /** Whether every page of {@code [offset, offset + length)} of the open file is in the page cache. */
    static boolean holds(RandomAccessFile file, long offset, long length) {
        return unavailable == null && length > 0 && cached(file, offset, length) == pages(offset, length);
    }

    static long pages(long offset, long length) {
        return (offset + length - 1) / PAGE_SIZE - offset / PAGE_SIZE + 1;
    }

    /** Pages of the range in the page cache, or -1 when the call failed. */
    private static long cached(RandomAccessFile file, long offset, long length) {
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

    private static int fd(RandomAccessFile file) throws IOException {
        return one.nio.util.JavaInternals.unsafe.getInt(file.getFD(), FD_OFFSET);
    }
}
