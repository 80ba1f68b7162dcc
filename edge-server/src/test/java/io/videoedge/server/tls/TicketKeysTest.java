package io.videoedge.server.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TicketKeysTest {
    static final long HOUR = 3_600_000;
    /** A clock ahead of the file system's, so the keys' times follow it (they are set after "now"). */
    final long t0 = System.currentTimeMillis() + 86_400_000;

    private static List<Path> files(Path dir) throws Exception {
        return TicketKeys.keys(dir).stream().map(TicketKeys.Key::file).toList();
    }

    @Test
    void keepsTheCurrentAndThePreviousKeyAndRotatesOnSchedule(@TempDir Path dir) throws Exception {
        TicketKeys.Step first = TicketKeys.rotateIfDue(dir, HOUR, t0);
        assertThat(first.rotated()).isTrue();
        assertThat(files(dir)).containsExactly(first.current().file());
        assertThat(Files.size(first.current().file())).isEqualTo(48);
        assertThat(first.nextDueMillis()).isEqualTo(first.current().modifiedMillis() + HOUR);

        TicketKeys.Step early = TicketKeys.rotateIfDue(dir, HOUR, t0 + HOUR / 2);
        assertThat(early.rotated()).isFalse();
        assertThat(early.nextDueMillis()).isEqualTo(first.nextDueMillis());

        TicketKeys.Step second = TicketKeys.rotateIfDue(dir, HOUR, first.nextDueMillis());
        assertThat(second.rotated()).isTrue();
        assertThat(files(dir))
                .as("newest first: the new key encrypts, the first still decrypts")
                .containsExactly(second.current().file(), first.current().file());
        assertThat(Files.readAllBytes(second.current().file()))
                .isNotEqualTo(Files.readAllBytes(first.current().file()));

        TicketKeys.Step third = TicketKeys.rotateIfDue(dir, HOUR, second.nextDueMillis());
        assertThat(third.deleted()).isEqualTo(1);
        assertThat(files(dir))
                .containsExactly(third.current().file(), second.current().file());
    }

    @Test
    void aNewKeyIsNewerThanEveryKeyEvenWhenTheClockIsBehindTheirTimes(@TempDir Path dir) throws Exception {
        Path ahead = Files.write(dir.resolve("ahead.key"), new byte[48]);
        Files.setLastModifiedTime(ahead, FileTime.fromMillis(t0 + 10 * HOUR));
        TicketKeys.Step s = TicketKeys.rotateIfDue(dir, HOUR, t0 + 12 * HOUR);
        assertThat(s.rotated()).isTrue();
        assertThat(files(dir).get(0)).isEqualTo(s.current().file());
    }

    @Test
    void keysFoundAtStartAreCutToTheNewestTwoAndTheirScheduleContinues(@TempDir Path dir) throws Exception {
        for (int i = 0; i < 4; i++) {
            Path k = Files.write(dir.resolve("old-" + i + ".key"), new byte[48]);
            Files.setLastModifiedTime(k, FileTime.fromMillis(t0 - (4 - i) * 10_000L));
        }
        TicketKeys.Step s = TicketKeys.rotateIfDue(dir, HOUR, t0);
        assertThat(s.rotated()).isFalse();
        assertThat(s.deleted()).isEqualTo(2);
        assertThat(files(dir)).containsExactly(dir.resolve("old-3.key"), dir.resolve("old-2.key"));
        assertThat(s.nextDueMillis()).isEqualTo(t0 - 10_000 + HOUR);
    }

    @Test
    void anEmptyFileLeftByAnInterruptedWriteIsRemoved(@TempDir Path dir) throws Exception {
        TicketKeys.Step first = TicketKeys.rotateIfDue(dir, HOUR, t0);
        Path empty = Files.write(dir.resolve("ticket-cut.key"), new byte[0]);
        Files.setLastModifiedTime(empty, FileTime.fromMillis(t0 + 1000));
        TicketKeys.Step s = TicketKeys.rotateIfDue(dir, HOUR, t0 + 2000);
        assertThat(s.rotated()).isFalse();
        assertThat(files(dir)).containsExactly(first.current().file());
    }

    @Test
    void ensureWritesOneKeyOnlyIntoAnEmptyDirectory(@TempDir Path dir) throws Exception {
        Path keys = dir.resolve("tickets");
        assertThat(TicketKeys.ensure(keys)).isTrue();
        assertThat(TicketKeys.ensure(keys)).isFalse();
        assertThat(files(keys)).hasSize(1);
    }

    @Test
    void onlyRegularFilesOf48BytesAreKeys(@TempDir Path dir) throws Exception {
        Files.write(dir.resolve("good.key"), new byte[48]);
        Files.write(dir.resolve("short.key"), new byte[47]);
        Files.write(dir.resolve("being-written.key"), new byte[0]);
        Files.createDirectory(dir.resolve("..data"));
        assertThat(TicketKeys.problems(dir))
                .hasSize(2)
                .anySatisfy(p -> assertThat(p).contains("short.key has 47 bytes"))
                .anySatisfy(p -> assertThat(p).contains("..data is not a regular file"));
        assertThat(TicketKeys.problems(dir.resolve("absent"))).isEmpty();
    }
}
