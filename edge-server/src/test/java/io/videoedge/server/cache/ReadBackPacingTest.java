package io.videoedge.server.cache;

import static io.videoedge.server.cache.ReadBackPacing.FIRST_WAIT_NANOS;
import static io.videoedge.server.cache.ReadBackPacing.LONGEST_WAIT_NANOS;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReadBackPacingTest {
    private static final long S = 1_000_000_000L;

    @Test
    void theFirstReadBackIsDueAtOnceWhateverTheClockSays() {
        assertThat(ReadBackPacing.NEVER_ASKED.due(Long.MIN_VALUE)).isTrue();
        assertThat(ReadBackPacing.NEVER_ASKED.due(-5 * S)).isTrue();
        assertThat(ReadBackPacing.NEVER_ASKED.due(0)).isTrue();
    }

    @Test
    void eachLaterOneWaitsTwiceAsLongUpToTheLongestWait() {
        long now = -3 * S; // nanoTime may be negative
        ReadBackPacing p = ReadBackPacing.NEVER_ASKED.asked(now);
        assertThat(p.waitNanos()).isEqualTo(FIRST_WAIT_NANOS);
        assertThat(p.due(now + FIRST_WAIT_NANOS - 1)).isFalse();
        assertThat(p.due(now + FIRST_WAIT_NANOS)).isTrue();

        long[] waits = new long[9];
        for (int i = 0; i < waits.length; i++) {
            now = p.notBefore() + 7; // asked again a little after it was due
            p = p.asked(now);
            waits[i] = p.waitNanos() / S;
            assertThat(p.due(now + p.waitNanos() - 1)).isFalse();
            assertThat(p.due(now + p.waitNanos())).isTrue();
        }
        assertThat(waits).containsExactly(2, 4, 8, 16, 32, 64, 64, 64, 64);
        assertThat(LONGEST_WAIT_NANOS).isEqualTo(64 * S);
    }

    @Test
    void theWaitHoldsAcrossTheClocksWrapAround() {
        long now = Long.MAX_VALUE - S / 2;
        ReadBackPacing p = ReadBackPacing.NEVER_ASKED.asked(now);
        assertThat(p.due(now + S / 4)).isFalse();
        assertThat(p.due(now + FIRST_WAIT_NANOS)).isTrue(); // overflowed past Long.MAX_VALUE
    }
}
