package io.videoedge.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.videoedge.agent.testing.FakeNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line: help, and plan/apply/revert against a fake root (a NIC no host has, so ethtool finds nothing). */
class NodeTuningMainTest {
    @TempDir
    Path tmp;

    private String run(int expectedExit, String... args) {
        StringWriter out = new StringWriter();
        assertThat(NodeTuningMain.run(new PrintWriter(out, true), args))
                .as(out.toString())
                .isEqualTo(expectedExit);
        return out.toString();
    }

    @Test
    void helpListsTheCommands() {
        assertThat(run(0, "--help")).contains("agent", "plan", "apply", "revert");
        assertThat(run(0, "apply", "--help")).contains("--spec", "--root", "--journal");
    }

    /** The forms the chart's schema admits for nodeAgent.driftInterval run; the others are refused by both. */
    @Test
    void driftIntervalsAreSecondsMinutesOrHoursAboveZero() {
        assertThat(NodeTuningMain.duration("90s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(NodeTuningMain.duration("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(NodeTuningMain.duration("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(NodeTuningMain.duration(" 45 ")).isEqualTo(Duration.ofSeconds(45));
        for (String bad : new String[] {"500ms", "0s", "0", "soon", "", "-5s", "1.5m", "99999999999s"}) {
            assertThatThrownBy(() -> NodeTuningMain.duration(bad))
                    .as(bad)
                    .hasMessageContaining("not a duration of 1 second or more");
        }
        StringWriter err = new StringWriter();
        int exit = NodeTuningMain.run(
                new PrintWriter(new StringWriter(), true),
                new PrintWriter(err, true),
                "agent",
                "--drift-interval",
                "500ms",
                "--node",
                "n1");
        assertThat(exit).as(err.toString()).isEqualTo(2); // a usage error: the agent does not start
        assertThat(err.toString()).contains("--drift-interval", "'500ms'");
    }

    /** A node of 4 CPUs with one 2-queue ixgbe NIC, vefake9. */
    private FakeNode node() throws IOException {
        return new FakeNode(Files.createDirectories(tmp.resolve("root")))
                .cpus(4)
                .nic("vefake9", "ixgbe", 2, 60, 0);
    }

    /** The spec file (written again on each call) tuning vefake9 with these sysctls (a YAML flow map). */
    private Path spec(String sysctls) throws IOException {
        Path spec = tmp.resolve("spec.yaml");
        Files.writeString(spec, """
        nic: {interfaces: [vefake9]}
        tuning:
          sysctls: %s
        """.formatted(sysctls));
        return spec;
    }

    @Test
    void planApplyRevertOnAFakeRoot() throws IOException {
        FakeNode node = node();
        Path spec = spec("{vm.swappiness: \"0\"}");
        String journal = tmp.resolve("journal.json").toString();
        String root = node.root().toString();

        assertThat(run(0, "plan", "--spec", spec.toString(), "--root", root, "--journal", journal))
                .contains("planned     sysctl/vm.swappiness", "60 -> 0", "result: PLANNED");
        assertThat(node.value("proc/sys/vm/swappiness")).isEqualTo("60");

        assertThat(run(0, "apply", "--spec", spec.toString(), "--root", root, "--journal", journal))
                .contains("result: APPLIED");
        assertThat(node.value("proc/sys/vm/swappiness")).isEqualTo("0");
        assertThat(node.value("proc/irq/61/smp_affinity_list")).isEqualTo("0");

        assertThat(run(0, "revert", "--root", root, "--journal", journal)).contains("restored sysctl/vm.swappiness");
        assertThat(node.value("proc/sys/vm/swappiness")).isEqualTo("60");
        assertThat(node.value("proc/irq/61/smp_affinity_list")).isEqualTo("0-3");
    }

    /** apply prints a release as a note, and one whose original cannot be written back as a problem. */
    @Test
    void applyPrintsAFailedReleaseAsAProblem() throws IOException {
        FakeNode node = node();
        Path spec = spec("{vm.swappiness: \"0\", vm.min_free_kbytes: \"1048576\"}");
        String journal = tmp.resolve("journal.json").toString();
        String root = node.root().toString();
        assertThat(run(0, "apply", "--spec", spec.toString(), "--root", root, "--journal", journal))
                .contains("result: APPLIED");

        spec("{}");
        node.refuseWrites("proc/sys/vm/swappiness");
        assertThat(run(0, "apply", "--spec", spec.toString(), "--root", root, "--journal", journal))
                .contains("problem: sysctl/vm.swappiness: no longer asked for, restoring 60 failed")
                .contains("note: sysctl/vm.min_free_kbytes: no longer asked for, original ")
                .doesNotContain("note: sysctl/vm.swappiness");
    }

    /** revert says on stderr why it cannot use the journal (and fails), and which originals an earlier boot left. */
    @Test
    void revertReportsAJournalItCannotUseAndTheOriginalsOfAnEarlierBoot() throws IOException {
        FakeNode node = node();
        Path spec = spec("{vm.swappiness: \"0\"}");
        Path journal = tmp.resolve("journal.json");
        String root = node.root().toString();
        run(0, "apply", "--spec", spec.toString(), "--root", root, "--journal", journal.toString());
        String tuned = Files.readString(journal);

        Files.writeString(journal, "{\"version\":1,\"entries\":[{");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = NodeTuningMain.run(
                new PrintWriter(out, true),
                new PrintWriter(err, true),
                "revert",
                "--root",
                root,
                "--journal",
                journal.toString());
        assertThat(exit)
                .as("not 1 (a revert a retry may finish) nor 2 (a usage error): " + out + err)
                .isEqualTo(3);
        assertThat(err.toString()).contains("cannot revert", journal.toString(), "unreadable", "move it aside");
        assertThat(journal).content().isEqualTo("{\"version\":1,\"entries\":[{");
        assertThat(node.value("proc/sys/vm/swappiness")).isEqualTo("0");

        Files.writeString(journal, tuned);
        node.file("proc/sys/kernel/random/boot_id", "0b6b1f4e-boot-2"); // a reboot: the journal is of boot 1
        node.file("proc/sys/vm/swappiness", "10");
        out = new StringWriter();
        err = new StringWriter();
        exit = NodeTuningMain.run(
                new PrintWriter(out, true),
                new PrintWriter(err, true),
                "revert",
                "--root",
                root,
                "--journal",
                journal.toString());
        assertThat(exit).as(out + "" + err).isZero();
        assertThat(err.toString()).contains("rebooted", "original(s) of the earlier boot were dropped");
        assertThat(out.toString()).contains("result: 0 restored");
        assertThat(node.value("proc/sys/vm/swappiness")).isEqualTo("10");
    }
}
