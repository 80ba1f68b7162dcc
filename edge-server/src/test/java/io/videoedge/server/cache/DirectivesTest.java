package io.videoedge.server.cache;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DirectivesTest {
    @Test
    void aCommonCacheControlIsOneInstanceAndNothingIsNone() {
        assertThat(Directives.of("max-age=2", null)).isSameAs(Directives.of("max-age=2", null));
        assertThat(Directives.of(null, null)).isSameAs(Directives.NONE);
        assertThat(Directives.NONE.none()).isTrue();
        assertThat(Directives.of(null, "0").none()).isFalse();
    }

    @Test
    void a304ReplacesWhatItCarriesAndKeepsTheRest() {
        Directives stored = Directives.of("max-age=1", "Thu, 01 Jan 2037 00:00:00 GMT");
        assertThat(stored.updatedBy(Directives.NONE)).isSameAs(stored);
        assertThat(stored.updatedBy(Directives.of("max-age=5", null)))
                .isEqualTo(new Directives("max-age=5", "Thu, 01 Jan 2037 00:00:00 GMT"));
        assertThat(stored.updatedBy(Directives.of(null, "0"))).isEqualTo(new Directives("max-age=1", "0"));
    }

    @Test
    void theAgeGoesOnFromWhenTheAnswerWasCurrent() {
        ObjectMeta m = new ObjectMeta("k", null, null, null, 1, 10_000, 20_000, 0);
        assertThat(m.ageSeconds(10_999)).isZero();
        assertThat(m.ageSeconds(12_000)).isEqualTo(2);
        assertThat(m.ageSeconds(5_000)).as("a clock that went back").isZero();
        assertThat(CacheHandler.ageHeader(3)).isEqualTo("Age: 3");
        assertThat(CacheHandler.ageHeader(100_000)).isEqualTo("Age: 100000");
    }
}
