package io.videoedge.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JvmOptionsTest {
    private static final long MI = 1024L * 1024;

    @Test
    void aQuarterOfThePodIsHeapAndTheRestOffHeapAfterNativeAllowance() {
        JvmOptions jvm = JvmOptions.forMemory(1024 * MI);
        assertThat(jvm.heapBytes()).isEqualTo(256 * MI);
        assertThat(jvm.directBytes()).isEqualTo((1024 - 256 - 192) * MI);
        assertThat(jvm.flags(""))
                .isEqualTo(
                        "-Xms256m -Xmx256m -XX:MaxDirectMemorySize=576m -XX:+UseG1GC -Djdk.nio.maxCachedBufferSize=65536 "
                                + "-XX:+AlwaysPreTouch -XX:+ExitOnOutOfMemoryError -XX:+PerfDisableSharedMem");
    }

    @Test
    void heapIsBoundedOnBothSides() {
        assertThat(JvmOptions.forMemory(128 * MI).heapBytes()).isEqualTo(64 * MI);
        assertThat(JvmOptions.forMemory(64 * 1024 * MI).heapBytes()).isEqualTo(4096 * MI);
    }

    @Test
    void extraOptionsGoLastSoTheyWin() {
        assertThat(JvmOptions.forMemory(1024 * MI).flags(" -Xmx512m -XX:+UseZGC "))
                .endsWith("-XX:+PerfDisableSharedMem -Xmx512m -XX:+UseZGC")
                .doesNotContain("UseG1GC");
        assertThat(JvmOptions.forMemory(1024 * MI).flags("-XX:+UseParallelGC")).doesNotContain("UseG1GC");
        assertThat(JvmOptions.forMemory(1024 * MI).flags("-Xmx512m -XX:+UseStringDeduplication"))
                .contains("-XX:+UseG1GC");
    }

    /** make bench, make run and the VM tier start the edge server with the flags a pod gets (but sizes). */
    @Test
    void theEdgeServerScriptsUseTheFlagsAPodGets() throws Exception {
        List<String> words = List.of(Files.readString(Path.of("..", "edge-server", "scripts", "jvm-flags.sh"))
                .split("[\\s\"]+"));
        for (String flag : JvmOptions.forMemory(1024 * MI).flags("").split(" ")) {
            if (!flag.startsWith("-Xms") && !flag.startsWith("-Xmx") && !flag.startsWith("-XX:MaxDirectMemorySize")) {
                assertThat(words).as("jvm-flags.sh has " + flag).contains(flag);
            }
        }
    }

    /**
     * The rendered JDK_JAVA_OPTIONS start a real JVM (this test's own, Java 25), with the collector the
     * appended flags ask for: two selected collectors would stop it before main ("Multiple garbage
     * collectors selected"), which an appended -XX:+UseZGC did until the G1 default gave way.
     */
    @ParameterizedTest
    @CsvSource({"'',G1", "-XX:+UseZGC,Z", "-XX:+UseParallelGC,Parallel", "-Xmx128m,G1"})
    void theRenderedFlagsStartAJvmWithTheCollectorAsked(String extra, String collector) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(JvmOptions.forMemory(512 * MI).flags(extra).split(" ")));
        command.addAll(List.of("-XX:+PrintFlagsFinal", "-version"));
        Process java = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(java.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(java.exitValue()).as(out).isZero();
        assertThat(out).containsPattern("bool Use" + collector + "GC\\s+= true");
    }
}
