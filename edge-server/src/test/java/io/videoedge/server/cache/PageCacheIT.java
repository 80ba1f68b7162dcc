package io.videoedge.server.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.videoedge.server.testing.PageCacheDrop;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** cachestat(2) on this machine's kernel: what the page cache holds of a real file, as pages come and go. */
class PageCacheIT {
    @TempDir
    Path dir;

    @BeforeAll
    static void kernelHasCachestat() {
        String[] v = System.getProperty("os.version").split("[.-]");
        int major = Integer.parseInt(v[0]);
        int minor = Integer.parseInt(v[1]);
        assumeTrue(
                major > 6 || (major == 6 && minor >= 5),
                "cachestat(2) came with Linux 6.5; this kernel is " + System.getProperty("os.version"));
    }

    @Test
    void onAKernelWithCachestatTheCheckIsAvailable() {
        assertThat(PageCache.unavailable()).isNull();
    }

    @Test
    void aWrittenFileIsHeldDroppedPagesAreNotAndReadingBringsBackOnlyWhatWasRead() throws Exception {
        Path file = dir.resolve("object");
        byte[] bytes = new byte[32 << 20]; // much more than one read brings back with read-ahead
        new Random(1).nextBytes(bytes);
        Files.write(file, bytes);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            assertThat(PageCache.holds(f, 0, bytes.length)).as("just written").isTrue();
            assertThat(PageCache.holds(f, 1000, 300_000)).as("a range inside").isTrue();

            PageCacheDrop.drop(file);
            assertThat(PageCache.holds(f, 0, bytes.length)).as("dropped").isFalse();
            assertThat(PageCache.holds(f, 5000, 10))
                    .as("a few bytes of a dropped page")
                    .isFalse();

            f.getChannel().read(java.nio.ByteBuffer.allocate(64 * 1024), 0); // 64 KiB read back (and read ahead)
            assertThat(PageCache.holds(f, 0, 60_000)).as("inside what was read").isTrue();
            assertThat(PageCache.holds(f, 0, bytes.length))
                    .as("the whole file: the rest is still out")
                    .isFalse();
        }
    }

    @Test
    void rangesCountEveryPageTheyTouch() {
        assertThat(PageCache.pages(0, 1)).isEqualTo(1);
        assertThat(PageCache.pages(0, 4096)).isEqualTo(1);
        assertThat(PageCache.pages(4095, 2)).isEqualTo(2);
        assertThat(PageCache.pages(100, 3 * 4096)).isEqualTo(4);
    }
}
