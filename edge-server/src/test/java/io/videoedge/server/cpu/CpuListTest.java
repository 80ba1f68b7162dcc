package io.videoedge.server.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.videoedge.server.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CpuListTest {
    @Test
    void parsesKernelCpuLists() {
        assertThat(CpuList.parse("0-1")).containsExactly(0, 1);
        assertThat(CpuList.parse("8-11,16,18-19\n")).containsExactly(8, 9, 10, 11, 16, 18, 19);
        assertThat(CpuList.parse("3")).containsExactly(3);
        assertThatThrownBy(() -> CpuList.parse("5-2")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void formatsBackToTheKernelForm() {
        assertThat(CpuList.format(new int[] {8, 9, 10, 11, 16, 18, 19})).isEqualTo("8-11,16,18-19");
        assertThat(CpuList.format(new int[] {2})).isEqualTo("2");
    }

    @Test
    void aPodOnCpus8To15GetsSelectorsOnThoseCpusNotOn0To7() {
        int[] allowed = CpuList.parse("8-15");
        assertThat(CpuList.plan(8, allowed)).containsExactly(8, 9, 10, 11, 12, 13, 14, 15);
        assertThat(CpuList.plan(3, allowed)).containsExactly(8, 9, 10);
        assertThat(CpuList.plan(10, CpuList.parse("8-9,12"))).containsExactly(8, 9, 12, 8, 9, 12, 8, 9, 12, 8);
    }

    @Test
    void readsCpusAllowedListFromAProcStatusFile(@TempDir Path dir) throws Exception {
        Path status = dir.resolve("status");
        Files.writeString(status, "Name:\tjava\nCpus_allowed:\tff00\nCpus_allowed_list:\t8-15\nMems_allowed:\t1\n");
        assertThat(CpuList.allowed(status)).containsExactly(8, 9, 10, 11, 12, 13, 14, 15);
    }

    /** This JVM's CPUs as another reader of the kernel sees them: taskset -p (sched_getaffinity(2)). */
    @Test
    void thisProcessReadsTheCpusTasksetReports() throws Exception {
        Tools.Result r = Tools.run(
                List.of("taskset", "-pc", Long.toString(ProcessHandle.current().pid())));
        assertThat(r.exitCode()).as(r.all()).isZero();
        String list =
                r.stdout().substring(r.stdout().lastIndexOf(':') + 1).trim(); // "pid 42's current affinity list: 0,1"
        assertThat(CpuList.allowedForThisProcess()).containsExactly(CpuList.parse(list));
    }

    /**
     * A JVM confined to one CPU by {@code taskset -c} reports exactly that CPU: the highest this JVM may
     * use, so on a machine with 2 CPUs or more it is not what "CPUs 0..n-1" or availableProcessors() give.
     */
    @Test
    void aProcessConfinedByTasksetReportsExactlyItsCpu() throws Exception {
        int[] mine = CpuList.allowedForThisProcess();
        String cpu = Integer.toString(mine[mine.length - 1]);
        Tools.Result r = Tools.run(List.of(
                "taskset",
                "-c",
                cpu,
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                CpuListTest.class.getName()));
        assertThat(r.exitCode()).as(r.all()).isZero();
        assertThat(r.stdout().trim()).isEqualTo(cpu);
    }

    /** Run by {@link #aProcessConfinedByTasksetReportsExactlyItsCpu} in the confined JVM. */
    public static void main(String[] args) throws Exception {
        System.out.println(CpuList.format(CpuList.allowedForThisProcess()));
    }
}
