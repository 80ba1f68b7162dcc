package io.videoedge.server.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.videoedge.server.testing.PageCacheDrop;
import io.videoedge.server.testing.TempDirs;
import io.videoedge.server.testing.Tools;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** cachestat(2) and mincore(2) on this machine's kernel: what the page cache holds of a real file, as pages come and go. */
class PageCacheIT {
    @TempDir
    Path dir;

    @BeforeEach
    void probeWhereTheFilesAre() throws Exception {
        assumeFalse("tmpfs".equals(Files.getFileStore(dir).type()), "tmpfs pages cannot be dropped");
        assertThat(PageCache.probe(dir))
                .as("cachestat (Linux 6.5) or else mincore, for a file of our own")
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

    /** Both ways of asking (mincore where cachestat is refused) give the same answers on this kernel. */
    @ParameterizedTest
    @EnumSource(PageCache.Method.class)
    void aWrittenFileIsHeldDroppedPagesAreNotAndReadingBringsBackOnlyWhatWasRead(PageCache.Method method)
            throws Exception {
        try {
            assertThat(PageCache.probe(dir, method)).isNull();
            assumeTrue(
                    PageCache.method() == method,
                    "cachestat is refused here (a kernel before 6.5, or seccomp): mincore answered the probe");
            Path file = dir.resolve("object");
            int size = (32 << 20) + 1234; // much more than one read brings back with read-ahead; a partial last page
            byte[] bytes = new byte[size];
            new Random(1).nextBytes(bytes);
            Files.write(file, bytes);
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
                assertThat(PageCache.holds(f, 0, size, size)).as("just written").isTrue();
                assertThat(PageCache.holds(f, 1000, 300_000, size))
                        .as("a range inside")
                        .isTrue();
                assertThat(PageCache.holds(f, size - 10, 10, size))
                        .as("the last bytes")
                        .isTrue();

                PageCacheDrop.drop(file);
                assertThat(PageCache.holds(f, 0, size, size)).as("dropped").isFalse();
                assertThat(PageCache.holds(f, 5000, 10, size))
                        .as("a few bytes of a dropped page")
                        .isFalse();
                assertThat(PageCache.holds(f, size - 10, 10, size))
                        .as("the last bytes, dropped")
                        .isFalse();

                f.getChannel().read(java.nio.ByteBuffer.allocate(64 * 1024), 0); // 64 KiB read back (and read ahead)
                assertThat(PageCache.holds(f, 0, 60_000, size))
                        .as("inside what was read")
                        .isTrue();
                assertThat(PageCache.holds(f, 0, size, size))
                        .as("the whole file: the rest is still out")
                        .isFalse();
            }
        } finally {
            PageCache.probe(dir);
        }
    }

    @Test
    void theProbePrefersCachestat() {
        assumeTrue(
                PageCacheDrop.kernelHasCachestat(),
                "cachestat(2) came with Linux 6.5; this kernel is " + System.getProperty("os.version"));
        assertThat(PageCache.probe(dir)).isNull();
        assertThat(PageCache.method()).isEqualTo(PageCache.Method.CACHESTAT);
    }

    /**
     * For a file the process neither owns nor could write, the kernel's mincore says every page is
     * present, dropped or not; the check page past the end catches that, so such a file never counts
     * as held (a sendfile from it could wait for the disk on a selector thread). Run as nobody, on a
     * file of root's that is in the page cache, and on one of its own.
     */
    @Test
    void mincoreAnswersForAFileNotOursArePretenceAndCountAsNotHeld() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root, to run a JVM as another user");
        String classes = System.getProperty("videoedge.runtime.classpath");
        assumeTrue(classes != null, "videoedge.runtime.classpath not set (run through Maven failsafe)");
        Path testClasses = Path.of(classes.split(":")[0]).resolveSibling("test-classes");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> asNobody = List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups");
        var readable = Tools.run(concat(
                asNobody,
                List.of(
                        "test",
                        "-r",
                        testClasses
                                .resolve("io/videoedge/server/cache/PageCacheAnotherUser.class")
                                .toString())));
        assumeTrue(readable.exitCode() == 0, "the build directory is not readable by nobody: " + testClasses);

        Path shared = TempDirs.create("pagecache-users");
        try {
            Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
            Path roots = shared.resolve("roots");
            Files.write(roots, new byte[1 << 20]);
            Files.setPosixFilePermissions(roots, PosixFilePermissions.fromString("rw-r--r--"));
            try (RandomAccessFile f = new RandomAccessFile(roots.toFile(), "r")) {
                assertThat(PageCache.holds(f, 0, 1 << 20, 1 << 20))
                        .as("root's view: cached")
                        .isTrue();
            }
            var run = Tools.run(concat(
                    asNobody,
                    List.of(
                            java,
                            "--enable-native-access=ALL-UNNAMED",
                            "--sun-misc-unsafe-memory-access=allow",
                            "-cp",
                            testClasses + ":" + classes,
                            PageCacheAnotherUser.class.getName(),
                            shared.toString(),
                            roots.toString())));
            assertThat(run.exitCode()).as(run.all()).isZero();
            assertThat(run.stdout().strip()).isEqualTo("own=true other=false");
        } finally {
            try (var files = Files.list(shared)) {
                for (Path p : files.toList()) Files.delete(p);
            }
            Files.delete(shared);
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /**
     * mincore's answer is checked against a page past the end of the file that no folio can hold: the
     * kernel reports every page of a file that is not the caller's as present, and that page then too.
     */
    @Test
    void theMincoreCheckPageIsPastTheLargestFolioThatCanHoldTheEnd() {
        long folio = PageCache.PAGE_SIZE * (PageCache.PAGE_SIZE / 8);
        assertThat(PageCache.pastAnyFolio(1)).isEqualTo(folio);
        assertThat(PageCache.pastAnyFolio(folio))
                .as("the page right after a folio-sized file")
                .isEqualTo(folio);
        assertThat(PageCache.pastAnyFolio(folio + 1)).isEqualTo(2 * folio);
        assertThat(PageCache.pastAnyFolio(3 * folio - 7)).isEqualTo(3 * folio);
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
