package io.videoedge.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

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
                .endsWith("-XX:+PerfDisableSharedMem -Xmx512m -XX:+UseZGC");
    }

    @Test
    void aCacheLargerThanTheOffHeapBudgetIsAProblemWithTheMemoryThatWouldFit() {
        JvmOptions jvm = JvmOptions.forMemory(1024 * MI);
        assertThat(jvm.cacheProblem(128 * MI)).isEmpty();
        assertThat(jvm.cacheProblem(544 * MI)).isEmpty();
        assertThat(jvm.cacheProblem(545 * MI))
                .hasValueSatisfying(m -> assertThat(m)
                        .contains("server.cache.memory (545m) does not fit in server.memory")
                        .contains("at least 1025Mi"));
    }
}
