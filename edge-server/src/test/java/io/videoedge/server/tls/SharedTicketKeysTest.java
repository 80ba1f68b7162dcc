package io.videoedge.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.videoedge.server.config.TicketKeyFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedTicketKeysTest {
    @TempDir
    Path tmp;

    static byte[] key(int fill) {
        byte[] b = new byte[TicketKeyFiles.KEY_LENGTH];
        Arrays.fill(b, (byte) fill);
        return b;
    }

    /** A Secret volume as the kubelet writes it: the data in a timestamped directory, ..data and links. */
    Path secretVolume(String... names) throws Exception {
        Path vol = Files.createDirectories(tmp.resolve("secret"));
        Path data = Files.createDirectories(vol.resolve("..2026_11_24_12_00_00.1"));
        Files.createSymbolicLink(vol.resolve("..data"), data.getFileName());
        for (int i = 0; i < names.length; i++) {
            Files.write(data.resolve(names[i]), key(i + 1));
            Files.createSymbolicLink(vol.resolve(names[i]), Path.of("..data", names[i]));
        }
        return vol;
    }

    @Test
    void readsTheKeysOfASecretVolumeOldestFirstAndSkipsItsOwnEntries() throws Exception {
        Path vol = secretVolume("t1700000600", "t1700000000", "README");
        List<SharedTicketKeys.SourceKey> keys = SharedTicketKeys.read(vol);
        assertThat(keys).extracting(SharedTicketKeys.SourceKey::name).containsExactly("t1700000000", "t1700000600");
        assertThat(keys.getFirst().activeFromMillis()).isEqualTo(1_700_000_000_000L);
        assertThat(keys.getFirst().bytes()).isEqualTo(key(2));
    }

    @Test
    void aKeyOfAnotherLengthIsRefused() throws Exception {
        Path vol = Files.createDirectories(tmp.resolve("v"));
        Files.write(vol.resolve("t1700000000"), new byte[47]);
        assertThatThrownBy(() -> SharedTicketKeys.read(vol)).hasMessageContaining("47 bytes, a key has 48");
    }

    @Test
    void onlyKeysWhoseTimeHasComeAreInEffect() {
        var old = new SharedTicketKeys.SourceKey("t1", 1_000, key(1));
        var next = new SharedTicketKeys.SourceKey("t5", 5_000, key(5));
        assertThat(SharedTicketKeys.active(List.of(old, next), 4_999)).containsExactly(old);
        assertThat(SharedTicketKeys.active(List.of(old, next), 5_000)).containsExactly(old, next);
    }

    @Test
    void theTicketDirGetsTheKeysInOrderTheNewestLastAndLosesTheOnesTheSourceDropped() throws Exception {
        Path dir = tmp.resolve("tickets");
        var a = new SharedTicketKeys.SourceKey("t1000", 1_000_000, key(1));
        var b = new SharedTicketKeys.SourceKey("t2000", 2_000_000, key(2));
        var c = new SharedTicketKeys.SourceKey("t3000", 3_000_000, key(3));

        assertThat(SharedTicketKeys.mirror(List.of(a, b), dir, 5_000_000)).isTrue();
        assertThat(TicketKeys.keys(dir))
                .extracting(k -> k.file().getFileName().toString())
                .as("newest first, as one-nio orders them: b encrypts")
                .containsExactly("t2000", "t1000");
        assertThat(TicketKeyFiles.problems(dir)).isEmpty();
        assertThat(SharedTicketKeys.mirror(List.of(a, b), dir, 5_000_000))
                .as("nothing to do")
                .isFalse();

        assertThat(SharedTicketKeys.mirror(List.of(b, c), dir, 6_000_000)).isTrue();
        assertThat(TicketKeys.keys(dir))
                .extracting(k -> k.file().getFileName().toString())
                .containsExactly("t3000", "t2000");
        assertThat(Files.readAllBytes(dir.resolve("t3000"))).isEqualTo(key(3));
    }

    @Test
    void anOlderKeyThatIsMissingIsNotPlacedAsTheNewest() throws Exception {
        Path dir = tmp.resolve("tickets");
        var a = new SharedTicketKeys.SourceKey("t1000", 1_000_000, key(1));
        var b = new SharedTicketKeys.SourceKey("t2000", 2_000_000, key(2));
        SharedTicketKeys.mirror(List.of(b), dir, 5_000_000);
        SharedTicketKeys.mirror(List.of(a, b), dir, 5_000_000);
        assertThat(TicketKeys.keys(dir))
                .extracting(k -> k.file().getFileName().toString())
                .as("b still encrypts")
                .containsExactly("t2000", "t1000");
    }

    @Test
    void aKeyWhoseBytesChangedIsReplaced() throws Exception {
        Path dir = tmp.resolve("tickets");
        SharedTicketKeys.mirror(List.of(new SharedTicketKeys.SourceKey("t1000", 1_000_000, key(1))), dir, 5_000_000);
        SharedTicketKeys.mirror(List.of(new SharedTicketKeys.SourceKey("t1000", 1_000_000, key(9))), dir, 5_000_000);
        assertThat(Files.readAllBytes(dir.resolve("t1000"))).isEqualTo(key(9));
    }
}
