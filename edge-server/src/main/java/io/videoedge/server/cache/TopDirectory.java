package io.videoedge.server.cache;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * The ext4 "top of a directory hierarchy" flag ({@code chattr +T}, {@code FS_TOPDIR_FL}) on the disk
 * tier's data directory, so that ext4's Orlov allocator spreads its 256 subdirectories, and with them
 * the cache's files, over the file system's block groups instead of keeping them all in the group of
 * their parent.
 *
 * <p>Why it matters: a cache creates and deletes a file per object all day. On ext4 without a journal
 * (a common choice for cache disks, and this project's CI machine) every new inode is searched from
 * the start of its group past each inode freed in the last 5 to 35 seconds ({@code recently_deleted}
 * in {@code fs/ext4/ialloc.c}), so with every file in one group each create scans the whole recent
 * churn: 12% of the edge's CPU under cache misses, measured. nginx's cache avoids it by having 4,096
 * level directories, which overflow into other groups.
 *
 * <p>Best effort: on other file systems (xfs, tmpfs, overlayfs) the ioctl fails and nothing changes;
 * the flag only steers where directories created afterwards go.
 */
final class TopDirectory {
    private static final int O_RDONLY = 0;
    private static final int O_DIRECTORY = 0200000;
    private static final int O_CLOEXEC = 02000000;
    /** _IOR('f', 1, long) and _IOW('f', 2, long); the kernel reads and writes an int through them. */
    private static final long FS_IOC_GETFLAGS = 0x80086601L;

    private static final long FS_IOC_SETFLAGS = 0x40086602L;
    static final int FS_TOPDIR_FL = 0x00020000;

    private TopDirectory() {}

    /** What {@link #mark} found or did. */
    enum Mark {
        /** The flag was there already. */
        ALREADY,
        /** Set by this call: only directories made from now on are spread. */
        NOW,
        /** Flags readable, the flag absent, and not asked to set it ({@link #isMarked}). */
        ABSENT,
        /** Not ext4, no permission, or no native access: nothing changed. */
        UNAVAILABLE
    }

    /** Sets the flag on {@code dir} unless it is there: one open, one or two ioctls. */
    static Mark mark(Path dir) {
        return update(dir, true);
    }

    /** Whether {@code dir} has the flag (false where flags cannot be read). */
    static boolean isMarked(Path dir) {
        return update(dir, false) == Mark.ALREADY;
    }

    private static Mark update(Path dir, boolean set) {
        try (Arena arena = Arena.ofConfined()) {
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            MethodHandle open = linker.downcallHandle(
                    libc.find("open").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT),
                    Linker.Option.firstVariadicArg(2));
            MethodHandle ioctl = linker.downcallHandle(
                    libc.find("ioctl").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS),
                    Linker.Option.firstVariadicArg(2));
            MethodHandle close =
                    linker.downcallHandle(libc.find("close").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
            int fd = (int) open.invokeExact(
                    arena.allocateFrom(dir.toAbsolutePath().toString()), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (fd < 0) return Mark.UNAVAILABLE;
            try {
                MemorySegment flags = arena.allocate(JAVA_LONG); // room for a long, read as an int
                if ((int) ioctl.invokeExact(fd, FS_IOC_GETFLAGS, flags) != 0) return Mark.UNAVAILABLE;
                int current = flags.get(JAVA_INT, 0);
                if ((current & FS_TOPDIR_FL) != 0) return Mark.ALREADY;
                if (!set) return Mark.ABSENT;
                flags.set(JAVA_INT, 0, current | FS_TOPDIR_FL);
                return (int) ioctl.invokeExact(fd, FS_IOC_SETFLAGS, flags) == 0 ? Mark.NOW : Mark.UNAVAILABLE;
            } finally {
                int ignored = (int) close.invokeExact(fd);
            }
        } catch (Throwable e) {
            return Mark.UNAVAILABLE; // no native access, no such symbol: only a placement hint is lost
        }
    }
}
