package io.videoedge.agent.facts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CpuSetTest {
    @Test
    void listNotationRoundTrips() {
        assertThat(CpuSet.parseList("0-3,8,10-11").toList()).isEqualTo("0-3,8,10-11");
        assertThat(CpuSet.parseList("5,4,3").toList()).isEqualTo("3-5");
        assertThat(CpuSet.parseList("").isEmpty()).isTrue();
    }

    @Test
    void maskNotationIsTheKernelsBitmap() {
        assertThat(CpuSet.parseMask("ff,ffffffff")).isEqualTo(CpuSet.range(0, 40));
        assertThat(CpuSet.parseMask("00000000,0000000c")).isEqualTo(CpuSet.of(2, 3));
        assertThat(CpuSet.of(2, 3).toMask(8)).isEqualTo("0c");
        assertThat(CpuSet.of(0).toMask(2)).isEqualTo("1");
        assertThat(CpuSet.empty().toMask(64)).isEqualTo("00000000,00000000");
        assertThatThrownBy(() -> CpuSet.parseMask("xyz")).isInstanceOf(IllegalArgumentException.class);
    }
}
