package io.videoedge.server.cache;

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

/**
 * Whether a file's bytes are in the page cache, by {@code cachestat(2)} (Linux 6.5): one system call,
 * no mapping. Unavailable on older kernels, under a seccomp profile that does not allow it, or without
 * native access; then {@link #holds} always says no and callers keep their other path.
 */
final class PageCache {
    private static final long SYS_CACHESTAT = 451; // the same number on every architecture (a new syscall)
    private static final MethodHandle SYSCALL;
    private static final long FD_OFFSET;
    private static final long PAGE_SIZE;
    private static final String UNAVAILABLE;

    static {
        MethodHandle syscall = null;
        long fdOffset = -1;
        long pageSize = 4096;
        String why = null;
        try {
            Linker linker = Linker.nativeLinker();
            var libc = linker.defaultLookup();
            syscall = linker.downcallHandle(
                    libc.find("syscall").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG),
                    Linker.Option.firstVariadicArg(1));
            MethodHandle getpagesize =
                    linker.downcallHandle(libc.find("getpagesize").orElseThrow(), FunctionDescriptor.of(JAVA_INT));
            pageSize = (int) getpagesize.invokeExact();
            fdOffset = one.nio.util.JavaInternals.unsafe.objectFieldOffset(FileDescriptor.class.getDeclaredField("fd"));
        } catch (Throwable e) {
            why = "no native access (" + e + ")";
        }
        SYSCALL = syscall;
        FD_OFFSET = fdOffset;
        PAGE_SIZE = pageSize;
        if (why == null && !Boolean.parseBoolean(System.getProperty("videoedge.pageCacheSend", "true"))) {
            why = "turned off (-Dvideoedge.pageCacheSend=false, for measuring)";
        }
        UNAVAILABLE = why != null ? why : probe();
    }

    private PageCache() {}

    /** Null when {@link #holds} can answer; else why it cannot (for the start-up log). */
    static String unavailable() {
        return UNAVAILABLE;
    }

    /** Whether every page of {@code [offset, offset + length)} of the open file is in the page cache. */
    static boolean holds(RandomAccessFile file, long offset, long length) {
        return UNAVAILABLE == null && length > 0 && cached(file, offset, length) == pages(offset, length);
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
            int fd = one.nio.util.JavaInternals.unsafe.getInt(file.getFD(), FD_OFFSET);
            long rc = (long) SYSCALL.invokeExact(SYS_CACHESTAT, (long) fd, range, stat, 0L);
            return rc == 0 ? stat.get(JAVA_LONG, 0) : -1;
        } catch (Throwable e) {
            return -1;
        }
    }

    /** One call on the running JVM's own executable: null if the call works, else why not. */
    private static String probe() {
        try (RandomAccessFile self = new RandomAccessFile("/proc/self/exe", "r")) {
            return cached(self, 0, 1) >= 0 ? null : "cachestat(2) failed (a kernel before 6.5, or seccomp)";
        } catch (IOException e) {
            return "no file to probe cachestat(2) with (" + e.getMessage() + ")";
        }
    }
}
