package io.videoedge.server.testing;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.FileDescriptor;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/** Drops a file's pages from the page cache: written back first, then {@code posix_fadvise(DONTNEED)}. */
public final class PageCacheDrop {
    private static final int POSIX_FADV_DONTNEED = 4;

    private PageCacheDrop() {}

    /** Whether the kernel has cachestat(2) (Linux 6.5), which the edge asks before sending memory hits from the page cache. */
    public static boolean kernelHasCachestat() {
        String[] v = System.getProperty("os.version").split("[.-]");
        int major = Integer.parseInt(v[0]), minor = Integer.parseInt(v[1]);
        return major > 6 || (major == 6 && minor >= 5);
    }

    public static void drop(Path file) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            f.getChannel().force(true); // dirty pages are not dropped
            Linker linker = Linker.nativeLinker();
            MethodHandle fadvise = linker.downcallHandle(
                    linker.defaultLookup().find("posix_fadvise").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
            long fdOffset =
                    one.nio.util.JavaInternals.unsafe.objectFieldOffset(FileDescriptor.class.getDeclaredField("fd"));
            int fd = one.nio.util.JavaInternals.unsafe.getInt(f.getFD(), fdOffset);
            int rc = (int) fadvise.invokeExact(fd, 0L, 0L, POSIX_FADV_DONTNEED);
            if (rc != 0) throw new IOException("posix_fadvise: " + rc);
        } catch (IOException e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException(e);
        }
    }
}
