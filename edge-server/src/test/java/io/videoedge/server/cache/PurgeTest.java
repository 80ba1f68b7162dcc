package io.videoedge.server.cache;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PurgeTest {
    @ParameterizedTest(name = "{0} {1} matches {2}: {3}")
    @CsvSource({
        "path, /v/a.mp4, v/a.mp4, true",
        "path, /v/a.mp4, v/a.mp4x, false",
        "path, /v//./a.mp4, v/a.mp4, true",
        "path, /v/a%20b.mp4, v/a b.mp4, true",
        "prefix, /live/, live/s1/001.ts, true",
        "prefix, /live/, lively.ts, false",
        "prefix, /live/, live, false",
        "prefix, /live/s1_, live/s1_001.ts, true",
        "prefix, /live/s1_, live/s2_001.ts, false",
        "prefix, /, anything/at/all, true",
    })
    void matchesCacheKeysAsRequestPathsAreNormalised(String kind, String given, String key, boolean expected) {
        Purge p = kind.equals("path") ? Purge.exact(given) : Purge.prefix(given);
        assertThat(p.matches(key)).isEqualTo(expected);
    }

    @org.junit.jupiter.api.Test
    void anExactPathTakesItsSlicesAndNoOtherObjects() {
        Purge p = Purge.exact("/v/a.mp4");
        assertThat(p.matches(SliceRanges.key("v/a.mp4", 0, 4 << 20))).isTrue();
        assertThat(p.matches(SliceRanges.key("v/a.mp4", 8 << 20, 4 << 20))).isTrue();
        assertThat(p.matches(SliceRanges.key("v/a.mp4x", 0, 4 << 20))).isFalse();
    }

    @ParameterizedTest
    @CsvSource({"path, /v/../x", "path, v/a", "path, /", "prefix, /a/%2e%2e/b", "prefix, ''"})
    void refusesWhatIsNotARequestPath(String kind, String given) {
        assertThat(kind.equals("path") ? Purge.exact(given) : Purge.prefix(given))
                .isNull();
    }
}
