package io.videoedge.server.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.videoedge.server.testing.PageCacheDrop;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** cachestat(2) on this machine's kernel: what the page cache holds of a real file, as pages come and go. */
class PageCacheIT {
    @TempDir
    Path dir;

    @BeforeAll
    static void kernelHasCachestat() {
        assumeTrue(
                PageCacheDrop.kernelHasCachestat(),
                "cachestat(2) came with Linux 6.5; this kernel is " + System.getProperty("os.version"));
    }

    @BeforeEach
    void probeWhereTheFilesAre() throws Exception {
        assumeFalse("tmpfs".equals(Files.getFileStore(dir).type()), "tmpfs pages cannot be dropped");
        assertThat(PageCache.probe(dir))
                .as("on a kernel with cachestat, for a file of our own")
                .isNull();
        assertThat(PageCache.unavailable()).isNull();
    }

    /**
     * Kernels since 2025 answer cachestat only for files the process owns or could write (else EPERM),
     * so the probe asks about a file it creates where the cache's files are; as root, as here, any file
     * would answer, so this checks that the probe depends on that directory at all.
     */
    @Test
    void theProbeAsksAboutAFileOfItsOwnInTheCacheDirectory() {
        try {
            assertThat(PageCache.probe(dir.resolve("missing"))).contains("could not be probed in");
            assertThat(PageCache.unavailable()).isNotNull();
        } finally {
            PageCache.probe(dir);
        }
        try (var left = Files.list(dir)) {
            assertThat(left).as("the probe's file is removed").isEmpty();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void theMeasurementSwitchTurnsTheCheckOff() {
        System.setProperty("videoedge.pageCacheSend", "false");
        try {
            assertThat(PageCache.probe(dir)).contains("turned off");
            assertThat(PageCache.unavailable()).contains("turned off");
        } finally {
            System.clearProperty("videoedge.pageCacheSend");
            PageCache.probe(dir);
        }
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
        long page = PageCache.PAGE_SIZE;
        assertThat(PageCache.pages(0, 1)).isEqualTo(1);
        assertThat(PageCache.pages(0, page)).isEqualTo(1);
        assertThat(PageCache.pages(page - 1, 2)).isEqualTo(2);
        assertThat(PageCache.pages(100, 3 * page)).isEqualTo(4);
    }
}
