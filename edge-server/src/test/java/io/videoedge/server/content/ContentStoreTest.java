package io.videoedge.server.content;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContentStoreTest {
    @Test
    void reusesTheOpenFileWithinItsValidity(@TempDir Path root) throws Exception {
        Files.writeString(root.resolve("a.m3u8"), "one");
        ContentStore store = new ContentStore(root, 60_000);
        OpenFile first = store.open("a.m3u8");
        OpenFile second = store.open("a.m3u8");
        assertThat(second).isSameAs(first);
        first.release();
        second.release();
        assertThat(first.file().getFD().valid()).as("the cache still holds it").isTrue();
        store.close();
        assertThat(first.file().getFD().valid()).isFalse();
    }

    @Test
    void revalidatesAfterItsValidityAndClosesTheOldDescriptorWhenTheLastResponseIsDone(@TempDir Path root)
            throws Exception {
        Path file = root.resolve("a.m3u8");
        Files.writeString(file, "one");
        ContentStore store = new ContentStore(root, 0); // every lookup revalidates
        OpenFile old = store.open("a.m3u8");
        Files.writeString(file, "longer content");
        Files.setLastModifiedTime(file, FileTime.fromMillis(old.validators().lastModifiedMillis() + 5_000));
        OpenFile fresh = store.open("a.m3u8");
        assertThat(fresh).isNotSameAs(old);
        assertThat(fresh.validators().length()).isEqualTo(14);
        assertThat(fresh.validators().etag()).isNotEqualTo(old.validators().etag());
        assertThat(old.file().getFD().valid())
                .as("a response still sends the old version")
                .isTrue();
        old.release();
        assertThat(old.file().getFD().valid()).isFalse();
        fresh.release();
        store.close();
    }

    @Test
    void aDeletedFileIsGoneAfterRevalidation(@TempDir Path root) throws Exception {
        Path file = root.resolve("a.m3u8");
        Files.writeString(file, "one");
        ContentStore store = new ContentStore(root, 0);
        OpenFile f = store.open("a.m3u8");
        f.release();
        Files.delete(file);
        assertThat(store.open("a.m3u8")).isNull();
        assertThat(f.file().getFD().valid()).isFalse();
        assertThat(store.openFiles()).isZero();
    }

    @Test
    void anAbsentPathIsRememberedForTheValidityPeriodThenLookedUpAgain(@TempDir Path root) throws Exception {
        ContentStore cached = new ContentStore(root, 60_000);
        assertThat(cached.open("new.m3u8")).isNull();
        Files.writeString(root.resolve("new.m3u8"), "x");
        assertThat(cached.open("new.m3u8")).as("still remembered as absent").isNull();

        ContentStore revalidating = new ContentStore(root, 0);
        Files.delete(root.resolve("new.m3u8"));
        assertThat(revalidating.open("new.m3u8")).isNull();
        Files.writeString(root.resolve("new.m3u8"), "x");
        OpenFile f = revalidating.open("new.m3u8");
        assertThat(f).isNotNull();
        f.release();
        revalidating.close();
    }

    @Test
    void directoriesAndEscapingSymlinksAreNotFiles(@TempDir Path dir) throws Exception {
        Path root = Files.createDirectory(dir.resolve("root"));
        Files.createDirectory(root.resolve("d"));
        Files.writeString(dir.resolve("secret"), "s");
        Files.createSymbolicLink(root.resolve("link"), dir.resolve("secret"));
        ContentStore store = new ContentStore(root, 60_000);
        assertThat(store.open("d")).isNull();
        assertThat(store.open("link")).isNull();
        assertThat(store.open("")).isNull();
        assertThat(store.open("missing")).isNull();
    }

    @Test
    void symlinksInsideTheRootResolveAndDanglingOnesAreAbsent(@TempDir Path dir) throws Exception {
        Path root = Files.createDirectory(dir.resolve("root"));
        Files.createDirectories(root.resolve("v1/hls"));
        Files.writeString(root.resolve("v1/hls/a.m3u8"), "one");
        Files.createSymbolicLink(root.resolve("live"), root.resolve("v1"));
        Files.createSymbolicLink(root.resolve("gone.m3u8"), root.resolve("v1/hls/missing.m3u8"));
        Files.createSymbolicLink(root.resolve("out"), dir);
        Files.writeString(dir.resolve("secret.m3u8"), "s");
        ContentStore store = new ContentStore(root, 60_000);
        OpenFile viaLink = store.open("live/hls/a.m3u8");
        assertThat(viaLink).as("a directory symlink inside the root").isNotNull();
        viaLink.release();
        assertThat(store.open("gone.m3u8")).as("a dangling symlink").isNull();
        assertThat(store.open("live/hls/missing.m3u8"))
                .as("missing behind a symlink")
                .isNull();
        assertThat(store.open("out/secret.m3u8"))
                .as("an existing file outside the root")
                .isNull();
        store.close();
    }

    @Test
    void whatTheFileSystemCannotLookUpIsAbsent(@TempDir Path root) throws Exception {
        Files.writeString(root.resolve("a.m3u8"), "one");
        ContentStore store = new ContentStore(root, 60_000);
        assertThat(store.open("a".repeat(255)))
                .as("the longest name: looked up, absent")
                .isNull();
        assertThat(store.open("a".repeat(256))).as("ENAMETOOLONG").isNull();
        assertThat(store.open("d".repeat(300) + "/x.m4s")).isNull();
        assertThat(store.open("\u00e9".repeat(128))).as("128 chars, 256 bytes").isNull();
        assertThat(store.open("\ud83c\udfac".repeat(64)))
                .as("64 code points, 256 bytes")
                .isNull();
        assertThat(store.open("a.m3u8/x.m4s")).as("ENOTDIR").isNull();
        assertThat(ContentStore.namesFit("x/" + "\u00e9".repeat(127) + "/y")).isTrue();
        assertThat(ContentStore.namesFit("x/" + "\u00e9".repeat(128) + "/y")).isFalse();
        assertThat(ContentStore.namesFit("\ud83c\udfac".repeat(63) + "abc")).isTrue();
        assertThat(ContentStore.namesFit("\ud83c\udfac".repeat(63) + "abcd")).isFalse();
    }

    @Test
    void aSmallFileIsHeldAsItWasWhenOpenedUntilItIsRevalidated(@TempDir Path root) throws Exception {
        Path file = root.resolve("live.m3u8");
        Files.writeString(file, "#EXTM3U v1");
        ContentStore store = new ContentStore(root, 60_000);
        OpenFile opened = store.open("live.m3u8");
        assertThat(opened.heldBytes()).asString().isEqualTo("#EXTM3U v1");
        assertThat(store.heldBytes()).isEqualTo(10);

        Files.writeString(file, "#EXTM3U v2"); // rewritten in place, same length
        OpenFile again = store.open("live.m3u8");
        assertThat(again.heldBytes())
                .as("within the validity: the bytes the cached metadata describe")
                .asString()
                .isEqualTo("#EXTM3U v1");

        ContentStore revalidating = new ContentStore(root, 0);
        OpenFile fresh = revalidating.open("live.m3u8");
        assertThat(fresh.heldBytes()).asString().isEqualTo("#EXTM3U v2");
        fresh.release();
        revalidating.close();
        assertThat(revalidating.heldBytes()).isZero();

        opened.release();
        again.release();
        store.close();
        assertThat(store.heldBytes()).as("closing gives the bytes back").isZero();
    }

    @Test
    void largerFilesAndFilesBeyondTheBudgetAreReadPerRequest(@TempDir Path root) throws Exception {
        Files.write(root.resolve("seg.m4s"), new byte[ContentStore.HELD_MAX_FILE + 1]);
        Files.write(root.resolve("small.vtt"), new byte[ContentStore.HELD_MAX_FILE]);
        ContentStore store = new ContentStore(root, 60_000);
        OpenFile seg = store.open("seg.m4s");
        assertThat(seg.heldBytes()).isNull();
        OpenFile small = store.open("small.vtt");
        assertThat(small.heldBytes()).hasSize(ContentStore.HELD_MAX_FILE);
        seg.release();
        small.release();

        int fit = (int) (ContentStore.HELD_BUDGET / ContentStore.HELD_MAX_FILE);
        for (int i = 0; i < fit + 3; i++) {
            Files.write(root.resolve("m" + i + ".m3u8"), new byte[ContentStore.HELD_MAX_FILE]);
            store.open("m" + i + ".m3u8").release();
        }
        assertThat(store.heldBytes()).isLessThanOrEqualTo(ContentStore.HELD_BUDGET);
        OpenFile over = store.open("m" + (fit + 2) + ".m3u8");
        assertThat(over.heldBytes()).as("the budget is spent").isNull();
        over.release();
        store.close();
        assertThat(store.heldBytes()).isZero();
    }

    @Test
    void theReplacedEntryGivesItsBytesBack(@TempDir Path root) throws Exception {
        Path file = root.resolve("a.m3u8");
        Files.writeString(file, "one");
        ContentStore store = new ContentStore(root, 0);
        store.open("a.m3u8").release();
        Files.writeString(file, "three");
        store.open("a.m3u8").release();
        assertThat(store.heldBytes()).isEqualTo(5);
        Files.delete(file);
        assertThat(store.open("a.m3u8")).isNull();
        assertThat(store.heldBytes()).isZero();
    }
}
