package io.videoedge.server.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.videoedge.server.resources.BufferPool;
import io.videoedge.server.resources.FileSource;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
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
        DiskTier first = DiskTier.open(dir, 128 << 10, buffers);
        Path spare = evictIntoASpare(first); // and keeps /large.m4s
        Path unfinished = first.newTempFile("/unfinished.m4s");
        Files.writeString(unfinished, "half a header");
        Path legacy = Files.createDirectories(dir.resolve("tmp")).resolve("123-4.part"); // the layout before 2026-11-28
        Files.writeString(legacy, "half");

        DiskTier second = DiskTier.open(dir, 64 << 20, buffers);

        assertThat(unfinished).doesNotExist();
        assertThat(spare).doesNotExist();
        assertThat(dir.resolve("tmp")).doesNotExist();
        assertThat(second.entries()).isEqualTo(1);
        assertThat(second.get("/large.m4s")).isNotNull();
    }

    @Test
    void anEvictedFileIsWrittenOverByTheNextFillAndCutToItsObjectsLength() throws Exception {
        int budget = 128 << 10; // spares: up to a 32nd of it
        DiskTier tier = DiskTier.open(dir, budget, buffers);
        commit(tier, tier.newTempFile("/old.m4s"), "/old.m4s", "o".repeat(1_000));
        Object oldInode = Files.getAttribute(tier.pathFor("/old.m4s"), "unix:ino");
        commit(tier, tier.newTempFile("/new.m4s"), "/new.m4s", "n".repeat(130_000)); // evicts /old.m4s
        awaitSpares(tier, 1);
        assertThat(tier.pathFor("/old.m4s")).doesNotExist();

        Path temp = tier.newTempFile("/next.m4s");
        DiskTier.Entry next = commit(tier, temp, "/next.m4s", "short body");

        assertThat(tier.reusedFiles()).isEqualTo(1);
        assertThat(tier.spareFiles()).isZero();
        Path stored = tier.pathFor("/next.m4s");
        assertThat(Files.getAttribute(stored, "unix:ino"))
                .as("the evicted file's inode")
                .isEqualTo(oldInode);
        assertThat(Files.size(stored)).isEqualTo(next.headerLength() + "short body".length());
        DiskTier again = DiskTier.open(dir, budget, buffers); // a restart re-indexes it: size and header agree
        assertThat(again.get("/next.m4s")).isNotNull();
        assertThat(again.verify(again.get("/next.m4s"), buffers)).isTrue();
    }

    @Test
    void anEvictedFileIsNotWrittenOverWhileAResponseStillReadsIt() throws Exception {
        int budget = 128 << 10;
        DiskTier tier = DiskTier.open(dir, budget, buffers);
        DiskTier.Entry old = commit(tier, tier.newTempFile("/old.m4s"), "/old.m4s", "o".repeat(1_000));
        FileSource reading = old.open();
        FileSource done = old.open();
        assertThat(reading).isNotNull();
        commit(tier, tier.newTempFile("/new.m4s"), "/new.m4s", "n".repeat(130_000)); // evicts /old.m4s
        assertThat(tier.get("/old.m4s")).isNull();
        done.release();
        done.release(); // released twice by mistake: still one pin given back
        Thread.sleep(200); // the janitor's turn, had the entry been retired

        assertThat(tier.spareFiles()).isZero();
        Path temp = tier.newTempFile("/next.m4s");
        try (RandomAccessFile f = tier.createTempFile(temp)) {
            f.write(new byte[40_000]);
        }
        assertThat(tier.reusedFiles())
                .as("no file to reuse: the evicted one is still read")
                .isZero();
        byte[] read = new byte[10];
        reading.file().seek(old.headerLength());
        reading.file().readFully(read);
        assertThat(new String(read, StandardCharsets.UTF_8)).isEqualTo("oooooooooo");

        reading.release();
        awaitSpares(tier, 1);
        assertThat(old.open()).as("a retired entry opens no more").isNull();
    }

    @Test
    void anEntryReplacedByANewerVersionOpensNothingAndRefreshesNothingEvenWhileStillRead() throws Exception {
        DiskTier tier = DiskTier.open(dir, 64 << 20, buffers);
        DiskTier.Entry v1 = commit(tier, tier.newTempFile("/k.m4s"), "/k.m4s", "version 1");
        FileSource reading = v1.open(); // a response still sending version 1 keeps it pinned
        DiskTier.Entry v2 = commit(tier, tier.newTempFile("/k.m4s"), "/k.m4s", "version 2"); // same size, same path
        byte[] v2Before = Files.readAllBytes(tier.pathFor("/k.m4s"));

        assertThat(v1.open()).as("version 1's path holds version 2 now").isNull();
        tier.refresh(v1, v1.meta().withExpiry(12_345), buffers); // a late 304 for version 1
        assertThat(Files.readAllBytes(tier.pathFor("/k.m4s")))
                .as("version 2's header untouched")
                .isEqualTo(v2Before);
        assertThat(tier.verify(v1, buffers)).isFalse();
        byte[] read = new byte[9];
        reading.file().seek(v1.headerLength());
        reading.file().readFully(read);
        assertThat(new String(read, StandardCharsets.UTF_8)).isEqualTo("version 1");
        reading.release();
        reading.release(); // a second release gives nothing back twice
        FileSource current = v2.open();
        assertThat(current).isNotNull();
        current.release();
    }

    @Test
    void theWriterOfACommittedFileHoldsItUntilItUnpins() throws Exception {
        int budget = 128 << 10;
        DiskTier tier = DiskTier.open(dir, budget, buffers);
        Path temp = tier.newTempFile("/old.m4s");
        DiskTier.Entry old;
        byte[] body = "o".repeat(1_000).getBytes(StandardCharsets.UTF_8);
        ObjectMeta meta = meta("/old.m4s", body);
        byte[] header = DiskFormat.encode(meta, true);
        try (RandomAccessFile f = tier.createTempFile(temp)) {
            f.write(header);
            f.write(body);
            old = tier.commit(temp, f.getChannel(), meta, header.length); // pinned for this writer
        }
        commit(tier, tier.newTempFile("/new.m4s"), "/new.m4s", "n".repeat(130_000)); // evicts /old.m4s
        Thread.sleep(200);
        assertThat(tier.spareFiles()).isZero();
        assertThat(tier.pathFor("/old.m4s")).as("moved aside at once").doesNotExist();
        assertThat(DiskTier.open(dir, budget, buffers).get("/old.m4s"))
                .as("a restart does not bring an evicted object back")
                .isNull();

        old.unpin();
        awaitSpares(tier, 1);
    }

    /** Evicts a small object by committing a large one (a 128 KiB budget) and returns its file, now a spare. */
    private static Path evictIntoASpare(DiskTier tier) throws Exception {
        commit(tier, tier.newTempFile("/small.m4s"), "/small.m4s", "s".repeat(1_000));
        commit(tier, tier.newTempFile("/large.m4s"), "/large.m4s", "l".repeat(130_000));
        awaitSpares(tier, 1);
        try (Stream<Path> files =
                Files.walk(tier.pathFor("/small.m4s").getParent().getParent(), 2)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".spare"))
                    .findFirst()
                    .orElseThrow();
        }
    }

    private static void awaitSpares(DiskTier tier, int count) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (tier.spareFiles() != count && System.nanoTime() < deadline) Thread.sleep(10);
        assertThat(tier.spareFiles()).as("evicted files kept for reuse").isEqualTo(count);
    }

    /** What a fill does: header, body, the final header, then the commit. */
    private static DiskTier.Entry commit(DiskTier tier, Path temp, String key, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ObjectMeta meta = meta(key, bytes);
        byte[] header = DiskFormat.encode(meta, true);
        try (RandomAccessFile f = tier.createTempFile(temp)) {
            f.write(header);
            f.write(bytes);
            DiskTier.Entry e = tier.commit(temp, f.getChannel(), meta, header.length);
            if (e != null) e.unpin(); // the fill's descriptor, closed
            return e;
        }
    }

    private static ObjectMeta meta(String key, byte[] body) {
        CRC32C crc = new CRC32C();
        crc.update(body);
        return new ObjectMeta(
                key, "video/iso.segment", "\"e\"", null, body.length, 1, Long.MAX_VALUE, (int) crc.getValue());
    }
}
