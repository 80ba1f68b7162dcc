package io.videoedge.server.origin;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OriginHealthTest {
    @Test
    void aFailureTakesItDownForDownForDoubledInARowUpToEightTimes() {
        OriginHealth h = new OriginHealth(1000);
        assertThat(h.up(0)).isTrue();
        h.failure(0);
        assertThat(h.up(999)).isFalse();
        assertThat(h.up(1000)).isTrue();
        h.failure(1000); // second in a row: 2 s
        assertThat(h.up(2999)).isFalse();
        assertThat(h.up(3000)).isTrue();
        h.failure(3000); // 4 s
        h.failure(7000); // 8 s
        h.failure(15000); // still 8 s: the cap
        assertThat(h.up(22999)).isFalse();
        assertThat(h.up(23000)).isTrue();
    }

    @Test
    void aSuccessBringsItBackAndResetsTheDoubling() {
        OriginHealth h = new OriginHealth(1000);
        h.failure(0);
        h.failure(1000);
        h.success();
        assertThat(h.up(1001)).isTrue();
        h.failure(2000);
        assertThat(h.up(3000)).as("one failure after a success: downFor again").isTrue();
    }

    @Test
    void theLabelIsHostAndPort() {
        assertThat(Origins.name("http://origin.example/base")).isEqualTo("origin.example:80");
        assertThat(Origins.name("https://10.0.0.1")).isEqualTo("10.0.0.1:443");
        assertThat(Origins.name("https://o:8443/x")).isEqualTo("o:8443");
    }
}
