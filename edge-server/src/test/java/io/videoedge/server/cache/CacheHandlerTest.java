package io.videoedge.server.cache;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CacheHandlerTest {
    @Test
    void originPathsReEncodeTheNormalisedKey() {
        assertThat(CacheHandler.originPath("hls/seg-1.m4s")).isEqualTo("/hls/seg-1.m4s");
        assertThat(CacheHandler.originPath("v/a b/в.mp4")).isEqualTo("/v/a%20b/%D0%B2.mp4");
        assertThat(CacheHandler.originPath("q/a?b#c%")).isEqualTo("/q/a%3Fb%23c%25");
    }
}
