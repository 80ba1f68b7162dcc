package io.videoedge.agent.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.videoedge.agent.facts.Boot;
import io.videoedge.agent.plan.Setting;
import io.videoedge.agent.plan.SettingKind;
import io.videoedge.api.SettingState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalTest {
    @TempDir
    Path dir;

    static final Setting SWAPPINESS = new Setting(
            "sysctl/vm.swappiness",
            SettingKind.SYSCTL,
            "proc/sys/vm/swappiness",
            null,
            "0",
            "60",
            SettingState.PLANNED,
            null,
            false);

    @Test
    void anUnreadableFileIsReportedNeverOverwrittenAndReadAgainOnceFixed() throws IOException {
        Path file = dir.resolve("journal.json");
        Files.writeString(file, "{\"version\":1,\"entries\":[{");
        Journal j = Journal.open(file, Clock.systemUTC());

        assertThat(j.unreadable())
                .get(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                .contains(file.toString(), "move it aside");
        assertThatThrownBy(() -> j.recordIfAbsent(SWAPPINESS, "60")).isInstanceOf(IOException.class);
        assertThat(file).content().isEqualTo("{\"version\":1,\"entries\":[{");

        Files.delete(file); // moved aside
        assertThat(j.unreadable()).isEmpty();
        assertThat(j.recordIfAbsent(SWAPPINESS, "60")).isTrue();
        assertThat(Journal.open(file, Clock.systemUTC()).entries())
                .singleElement()
                .satisfies(e -> assertThat(e.original()).isEqualTo("60"));
    }

    @Test
    void aDeletedFileIsWrittenAgainFromMemoryOnlyWhenItHeldOriginals() throws IOException {
        Path file = dir.resolve("journal.json");
        Journal j = Journal.open(file, Clock.systemUTC());
        assertThat(j.absentAtOpen()).isTrue();
        assertThat(j.rewriteIfDeleted()).as("nothing to keep").isFalse();
        assertThat(file).doesNotExist();

        j.recordIfAbsent(SWAPPINESS, "60");
        String written = Files.readString(file);
        assertThat(j.rewriteIfDeleted()).as("the file is there").isFalse();
        Files.delete(file);
        assertThat(j.rewriteIfDeleted()).isTrue();
        assertThat(file).content().isEqualTo(written);
        assertThat(Journal.open(file, Clock.systemUTC()).absentAtOpen()).isFalse();
    }

    @Test
    void aFileOfAnEarlierBootIsDroppedOneOfThisBootOrWithoutABootIsKept() throws IOException {
        Path file = dir.resolve("journal.json");
        Journal.open(file, Clock.systemUTC(), new Boot("boot-1", null)).recordIfAbsent(SWAPPINESS, "60");
        assertThat(file).content().contains("\"bootId\" : \"boot-1\"");

        assertThat(Journal.open(file, Clock.systemUTC(), new Boot("boot-1", null))
                        .entries())
                .hasSize(1);
        assertThat(Journal.open(file, Clock.systemUTC(), new Boot(null, null)).entries())
                .as("boot unknown")
                .hasSize(1);
        Journal rebooted = Journal.open(file, Clock.systemUTC(), new Boot("boot-2", null));
        assertThat(rebooted.entries()).isEmpty();
        assertThat(rebooted.fingerprint()).isNull();
        assertThat(rebooted.droppedFromEarlierBoot()).isEqualTo(1);

        // this boot's first change rewrites the file as this boot's
        rebooted.recordIfAbsent(SWAPPINESS, "10");
        assertThat(Journal.open(file, Clock.systemUTC(), new Boot("boot-2", null))
                        .entries())
                .singleElement()
                .satisfies(e -> assertThat(e.original()).isEqualTo("10"));

        Files.writeString(
                file,
                "{\"version\":1,\"entries\":[{\"name\":\"sysctl/vm.swappiness\",\"kind\":\"SYSCTL\","
                        + "\"target\":\"proc/sys/vm/swappiness\",\"original\":\"60\"}]}");
        assertThat(Journal.open(
                                file,
                                Clock.systemUTC(),
                                new Boot("boot-3", Instant.now().minusSeconds(60)))
                        .entries())
                .as("an older agent's file, written in this boot")
                .hasSize(1);
        assertThat(file).content().as("stamped with this boot at once").contains("\"bootId\" : \"boot-3\"");

        Files.writeString(
                file,
                "{\"version\":1,\"entries\":[{\"name\":\"sysctl/vm.swappiness\",\"kind\":\"SYSCTL\","
                        + "\"target\":\"proc/sys/vm/swappiness\",\"original\":\"60\"}]}");
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(3600)));
        Journal afterReboot = Journal.open(
                file, Clock.systemUTC(), new Boot("boot-4", Instant.now().minusSeconds(60)));
        assertThat(afterReboot.entries())
                .as("an older agent's file, written before this boot")
                .isEmpty();
        assertThat(afterReboot.droppedFromEarlierBoot()).isEqualTo(1);
    }

    /**
     * A change the file did not take is not kept in memory either: an entry whose recording failed is recorded (and
     * written) by the next try, before its setting is changed; one whose removal failed is still there.
     */
    @Test
    void aChangeThatCouldNotBeWrittenIsNotKeptInMemory() throws IOException {
        Path file = dir.resolve("journal.json");
        Journal j = Journal.open(file, Clock.systemUTC());
        Path blocked = Files.createDirectories(dir.resolve("journal.json.tmp")); // the temp file's name taken

        assertThatThrownBy(() -> j.recordIfAbsent(SWAPPINESS, "60")).isInstanceOf(IOException.class);
        assertThat(j.has(SWAPPINESS.name())).isFalse();
        Files.delete(blocked);
        assertThat(j.recordIfAbsent(SWAPPINESS, "60")).as("recorded now").isTrue();
        assertThat(Journal.open(file, Clock.systemUTC()).entries()).hasSize(1);

        Files.createDirectories(blocked);
        assertThatThrownBy(() -> j.remove(SWAPPINESS.name())).isInstanceOf(IOException.class);
        assertThat(j.entries()).as("as in the file").hasSize(1);
        assertThatThrownBy(() -> j.setFingerprint("fp-1")).isInstanceOf(IOException.class);
        assertThat(j.fingerprint()).isNull();
    }
}
