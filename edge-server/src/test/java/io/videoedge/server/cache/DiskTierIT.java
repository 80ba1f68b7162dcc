package io.videoedge.server.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.videoedge.server.resources.BufferPool;
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
        // without the flag all 256 land in their parent's group (measured: one group; with it: 256)
        assertThat(groups).as("inode groups of the 256 directories").hasSizeGreaterThan(32);
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

    /** What a fill does: header, body, the final header, then the commit. */
    private static DiskTier.Entry commit(DiskTier tier, Path temp, String key, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        ObjectMeta meta = new ObjectMeta(
                key, "video/iso.segment", "\"e\"", null, bytes.length, 1, Long.MAX_VALUE, (int) crc.getValue());
        byte[] header = DiskFormat.encode(meta, true);
        try (RandomAccessFile f = tier.createTempFile(temp)) {
            f.write(header);
            f.write(bytes);
        }
        return tier.commit(temp, meta, header.length);
    }
}
