package io.videoedge.server.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.videoedge.server.resources.BufferPool;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The disk tier on the real file system under target/ (ext4 on the project's machines; /tmp may be
 * tmpfs elsewhere): its directory layout, where temporary files go and what a restart cleans up.
 */
class DiskTierIT {
    private final BufferPool buffers = new BufferPool(1 << 20, 64 * 1024);
    private Path dir;

    @BeforeEach
    void makeDirectory() throws IOException {
        Files.createDirectories(Path.of("target"));
        dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "disk-tier-it-");
    }

    @AfterEach
    void removeDirectory() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted((a, b) -> b.getNameCount() - a.getNameCount())
                    .forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void everyObjectDirectoryExistsFromTheStartAndOnExt4TheyAreSpreadOverBlockGroups() throws Exception {
        DiskTier tier = DiskTier.open(dir, 64 << 20, buffers);
        Path data = dir.resolve("data");
        Set<Long> groups = new HashSet<>();
        for (int i = 0; i < 256; i++) {
            Path sub = data.resolve(String.format("%02x", i));
            assertThat(sub).isDirectory();
            groups.add((Long) Files.getAttribute(sub, "unix:ino")
                    / 8192); // 8,192 inodes per group: mke2fs's default for 4 KiB blocks
        }
        assertThat(tier.entries()).isZero();
        assumeTrue("ext4".equals(Files.getFileStore(data).type()), "the top-directory flag is ext4's");
        assertThat(TopDirectory.isMarked(data)).as("data/ carries FS_TOPDIR_FL").isTrue();
        // without the flag all 256 land in their parent's group (measured: one group; with it: 256 here,
        // and on a file system with flex groups at most one per flex group)
        assertThat(groups).as("inode groups of the 256 directories").hasSizeGreaterThan(1);
    }

    @Test
    void aCacheMadeBeforeTheFlagHasItsDirectoriesMadeAgainAndKeepsItsObjects() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        assumeTrue("ext4".equals(Files.getFileStore(data).type()), "the top-directory flag is ext4's");
        for (int i = 0; i < 256; i++) {
            Files.createDirectories(data.resolve(String.format("%02x", i))); // the old layout: all in data/'s group
        }
        Path donor = Files.createDirectories(dir.resolve("donor"));
        DiskTier maker = DiskTier.open(donor, 64 << 20, buffers);
        commit(maker, maker.newTempFile("/old/seg.m4s"), "/old/seg.m4s", "stored by the last release");
        Path stored = maker.pathFor("/old/seg.m4s");
        Path old = data.resolve(stored.getParent().getFileName().toString())
                .resolve(stored.getFileName().toString());
        Files.move(stored, old);
        assertThat(TopDirectory.isMarked(data)).isFalse();

        DiskTier tier = DiskTier.open(dir, 64 << 20, buffers);

        assertThat(TopDirectory.isMarked(data)).isTrue();
        assertThat(tier.entries()).isEqualTo(1);
        assertThat(tier.get("/old/seg.m4s")).isNotNull();
        Set<Long> groups = new HashSet<>();
        for (int i = 0; i < 256; i++) {
            groups.add((Long) Files.getAttribute(data.resolve(String.format("%02x", i)), "unix:ino") / 8192);
        }
        assertThat(groups).as("inode groups of the 256 directories made again").hasSizeGreaterThan(1);
        try (Stream<Path> left = Files.list(data)) {
            assertThat(left.filter(p -> p.getFileName().toString().endsWith(".new")))
                    .isEmpty();
        }
    }

    @Test
    void evictingAnOldVersionNeverDeletesTheNewOneRenamedOverIt() throws Exception {
        int budget = 1 << 16;
        DiskTier tier = DiskTier.open(dir, budget, buffers);
        for (int i = 0; i < 200; i++) { // deletions queued ahead of the old version's
            commit(tier, tier.newTempFile("/x/" + i), "/x/" + i, "x".repeat(100));
        }
        commit(tier, tier.newTempFile("/k.m4s"), "/k.m4s", "version 1");
        // version 2 takes the whole budget: everything older is evicted, version 1 last, after the rename
        int header = DiskFormat.encode(meta("/k.m4s", new byte[budget]), true).length;
        commit(tier, tier.newTempFile("/k.m4s"), "/k.m4s", "2".repeat(budget - header));
        Path lastOther = tier.pathFor("/x/199");
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (Files.exists(lastOther) && System.nanoTime() < deadline) Thread.sleep(10);
        assertThat(lastOther).as("the janitor reached the old version's turn").doesNotExist();
        Thread.sleep(300);
        assertThat(tier.pathFor("/k.m4s")).exists().hasSize(budget);
        assertThat(tier.get("/k.m4s").meta().length()).isEqualTo(budget - header);
    }

    @Test
    void anEntryOpensOnlyWhileIndexedSoANewerVersionRenamedOverItsPathIsNeverReadForIt() throws Exception {
        DiskTier tier = DiskTier.open(dir, 64 << 20, buffers);
        DiskTier.Entry v1 = commit(tier, tier.newTempFile("/v.m4s"), "/v.m4s", "version 1");
        try (RandomAccessFile f = tier.open(v1)) {
            assertThat(f).isNotNull();
        }
        long size = Files.size(tier.pathFor("/v.m4s"));
        DiskTier.Entry v2 = commit(tier, tier.newTempFile("/v.m4s"), "/v.m4s", "version 2");
        assertThat(Files.size(tier.pathFor("/v.m4s")))
                .as("a size check alone would pass")
                .isEqualTo(size);

        assertThat(tier.open(v1)).as("the replaced version").isNull();
        try (RandomAccessFile f = tier.open(v2)) {
            byte[] body = new byte[9];
            f.seek(f.length() - body.length);
            f.readFully(body);
            assertThat(new String(body, StandardCharsets.UTF_8)).isEqualTo("version 2");
        }
        if (PageCache.unavailable() == null) {
            assertThat(tier.cachedCopyOf(v1.meta()).openIfCached(0, 9))
                    .as("bytes the disk tier no longer has")
                    .isNull();
            var copy = tier.cachedCopyOf(v2.meta()).openIfCached(0, 9);
            assertThat(copy).as("the bytes it has").isNotNull();
            copy.discard();
        }
    }

    /** A 304 for a replaced version (late, after a purge and a new fill) writes nothing into the newer one's file. */
    @Test
    void aRefreshOfAReplacedVersionLeavesTheNewOnesFileAlone() throws Exception {
        DiskTier tier = DiskTier.open(dir, 64 << 20, buffers);
        DiskTier.Entry v1 = commit(tier, tier.newTempFile("/r.m4s"), "/r.m4s", "version 1");
        commit(tier, tier.newTempFile("/r.m4s"), "/r.m4s", "version 2");
        byte[] before = Files.readAllBytes(tier.pathFor("/r.m4s"));
        ObjectMeta late = v1.meta()
                .revalidated(v1.meta().fetchedAt() + 60_000, v1.meta().fetchedAt() + 120_000, true, Directives.NONE);
        tier.refresh(v1, late, buffers);
        assertThat(Files.readAllBytes(tier.pathFor("/r.m4s"))).isEqualTo(before);
    }

    /** A 304 while every pooled buffer is in use waits for one and still reaches the file: a restart finds it fresh. */
    @Test
    void aRefreshWithTheBufferPoolSpentWaitsForABufferAndReachesTheFile() throws Exception {
        DiskTier tier = DiskTier.open(dir, 64 << 20, buffers);
        DiskTier.Entry e = commit(tier, tier.newTempFile("/p.m4s"), "/p.m4s", "confirmed");
        ObjectMeta confirmed = e.meta()
                .revalidated(e.meta().fetchedAt() + 60_000, e.meta().fetchedAt() + 120_000, true, Directives.NONE);
        List<BufferPool.Chunk> taken = new ArrayList<>();
        for (BufferPool.Chunk c; (c = buffers.tryAcquire()) != null; ) taken.add(c);
        Thread releaser = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(200); // a fill gives its chunk back while the refresh waits
            } catch (InterruptedException ignored) {
                // released at once
            }
            taken.forEach(buffers::release);
        });
        tier.refresh(e, confirmed, buffers);
        releaser.join();
        ObjectMeta afterRestart =
                DiskTier.open(dir, 64 << 20, buffers).get("/p.m4s").meta();
        assertThat(afterRestart.expiresAt()).isEqualTo(confirmed.expiresAt());
        assertThat(afterRestart.fetchedAt()).isEqualTo(confirmed.fetchedAt());
        assertThat(afterRestart.mustRevalidate()).isTrue();
    }

    /**
     * A file that is there but cannot be opened (out of descriptors, EACCES, EIO; here a directory in its place, which
     * the JDK refuses to open as a file, as it does a file when the process is out of descriptors: the same
     * FileNotFoundException) is a failed read, not a gone object: the entry stays indexed, to be read again.
     */
    @Test
    void aFileThatCannotBeOpenedIsAFailedReadNotAGoneObject() throws Exception {
        DiskTier tier = DiskTier.open(dir, 64 << 20, buffers);
        DiskTier.Entry e = commit(tier, tier.newTempFile("/n.m4s"), "/n.m4s", "kept");
        Path file = tier.pathFor("/n.m4s");
        Files.delete(file);
        Files.createDirectory(file);
        assertThatThrownBy(() -> tier.open(e)).isInstanceOf(IOException.class);
        assertThat(tier.get("/n.m4s")).isSameAs(e);
        Files.delete(file);
        assertThat(tier.open(e)).as("a file that is not there: gone").isNull();
    }

    @Test
    void anObjectsFileIsNamedBySha256OfItsKeyOnEveryThread() throws Exception {
        // a restart finds the files of earlier releases under these names: they must not change
        DiskTier tier = DiskTier.open(dir, 64 << 20, buffers);
        Path data = dir.resolve("data");
        assertThat(tier.pathFor("/a/seg.m4s"))
                .isEqualTo(data.resolve("4d/8ed93e1d0b7924cca41623f9f40b7af956afcb439b1b8b79e6bdb478103a16.obj"));
        assertThat(tier.pathFor("/v/в.mp4"))
                .isEqualTo(data.resolve("89/927090d4145c728a8a6c62927548108421029f260a25cc5d33e1c6c37ded45.obj"));
        ExecutorService pool = Executors.newFixedThreadPool(4); // one digest shared wrongly would mix keys
        try {
            List<Future<Path>> paths = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                String key = "/k/" + (i % 7);
                paths.add(pool.submit(() -> tier.pathFor(key)));
            }
            for (int i = 0; i < paths.size(); i++) {
                assertThat(paths.get(i).get()).isEqualTo(tier.pathFor("/k/" + (i % 7)));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aFillWritesNextToItsObjectAndCommitsByARenameWithinThatDirectory() throws Exception {
        DiskTier tier = DiskTier.open(dir, 64 << 20, buffers);
        Path temp = tier.newTempFile("/a/seg.m4s");
        DiskTier.Entry e = commit(tier, temp, "/a/seg.m4s", "body of seg");
        assertThat(temp.getParent()).isEqualTo(tier.pathFor("/a/seg.m4s").getParent());
        assertThat(temp.getFileName().toString()).endsWith(".part");
        assertThat(temp).doesNotExist();
        assertThat(tier.pathFor("/a/seg.m4s")).exists();
        assertThat(tier.get("/a/seg.m4s")).isSameAs(e);
    }

    @Test
    void aRemovedObjectDirectoryIsMadeAgainByTheNextFill() throws Exception {
        DiskTier tier = DiskTier.open(dir, 64 << 20, buffers);
        Path temp = tier.newTempFile("/gone/seg.m4s");
        Files.delete(temp.getParent()); // empty: an operator cleaning up by hand
        commit(tier, temp, "/gone/seg.m4s", "still stored");
        assertThat(tier.get("/gone/seg.m4s")).isNotNull();
    }

    @Test
    void aRestartDeletesUnfinishedFillsAndTheOldTemporaryDirectoryAndKeepsObjects() throws Exception {
        DiskTier first = DiskTier.open(dir, 64 << 20, buffers);
        commit(first, first.newTempFile("/kept.m4s"), "/kept.m4s", "kept");
        Path unfinished = first.newTempFile("/unfinished.m4s");
        Files.writeString(unfinished, "half a header");
        Path legacy = Files.createDirectories(dir.resolve("tmp")).resolve("123-4.part"); // the layout before 2026-11-28
        Files.writeString(legacy, "half");

        DiskTier second = DiskTier.open(dir, 64 << 20, buffers);

        assertThat(unfinished).doesNotExist();
        assertThat(dir.resolve("tmp")).doesNotExist();
        assertThat(second.entries()).isEqualTo(1);
        assertThat(second.get("/kept.m4s")).isNotNull();
    }

    /**
     * A restart orders the FIFO by when each object was written, as it ran before: an object that came with a large
     * Age (current at its source long ago, so its fetchedAt lies far back) is not the first to go for it.
     */
    @Test
    void aRestartEvictsInTheOrderObjectsWereStoredNotByTheirAge() throws Exception {
        String body = "b".repeat(10_000);
        long now = System.currentTimeMillis();
        long size = DiskFormat.encode(meta("/a.m4s", body.getBytes(StandardCharsets.UTF_8), now), true).length
                + body.length();
        long budget = 3 * size + size / 2; // three objects
        DiskTier first = DiskTier.open(dir, budget, buffers);
        commit(first, first.newTempFile("/a.m4s"), "/a.m4s", body, now);
        Thread.sleep(20); // apart by more than a coarse file timestamp's tick
        commit(first, first.newTempFile("/b.m4s"), "/b.m4s", body, now - 3_600_000_000L); // Age of 41 days
        Thread.sleep(20);
        commit(first, first.newTempFile("/c.m4s"), "/c.m4s", body, now);

        DiskTier second = DiskTier.open(dir, budget, buffers);
        assertThat(second.entries()).isEqualTo(3);
        commit(second, second.newTempFile("/d.m4s"), "/d.m4s", body, now);

        assertThat(second.get("/a.m4s")).as("the first stored went").isNull();
        assertThat(second.get("/b.m4s"))
                .as("the aged one, stored second, stays")
                .isNotNull();
        assertThat(second.get("/c.m4s")).isNotNull();
        assertThat(second.get("/d.m4s")).isNotNull();
    }

    private static DiskTier.Entry commit(DiskTier tier, Path temp, String key, String body) throws IOException {
        return commit(tier, temp, key, body, 1);
    }

    /** What a fill does: header, body, the final header, then the commit. */
    private static DiskTier.Entry commit(DiskTier tier, Path temp, String key, String body, long fetchedAt)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ObjectMeta meta = meta(key, bytes, fetchedAt);
        byte[] header = DiskFormat.encode(meta, true);
        try (RandomAccessFile f = tier.createTempFile(temp)) {
            f.write(header);
            f.write(bytes);
        }
        return tier.commit(temp, meta, header.length);
    }

    private static ObjectMeta meta(String key, byte[] body) {
        return meta(key, body, 1);
    }

    private static ObjectMeta meta(String key, byte[] body, long fetchedAt) {
        CRC32C crc = new CRC32C();
        crc.update(body);
        return new ObjectMeta(
                key, "video/iso.segment", "\"e\"", null, body.length, fetchedAt, Long.MAX_VALUE, (int) crc.getValue());
    }
}
