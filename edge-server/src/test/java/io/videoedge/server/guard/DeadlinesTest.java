package io.videoedge.server.guard;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DeadlinesTest {
    final Deadlines d = new Deadlines(30_000, 10_000);

    @Test
    void aHeadThatTakesLongerThanTheHeaderTimeoutIsOverrunWhateverArrivedMeanwhile() {
        assertThat(d.overrun(29_999, 0, true, 1)).isNull();
        assertThat(d.overrun(30_001, 0, true, 1)).isEqualTo(Refusal.HEADER_TIMEOUT);
    }

    @Test
    void noHeadBeingReceivedIsNeverAHeaderTimeout() {
        assertThat(d.overrun(10_000_000, 0, true, 0)).isNull();
    }

    @Test
    void aLaterHeadCountsFromItsOwnStart() {
        assertThat(d.overrun(100_000, 0, true, 80_000)).isNull();
        assertThat(d.overrun(110_000, 0, true, 80_000)).isEqualTo(Refusal.HEADER_TIMEOUT);
    }

    @Test
    void theHandshakeHasItsOwnShorterDeadlineFromTheAccept() {
        assertThat(d.overrun(9_999, 0, false, 1)).isNull();
        assertThat(d.overrun(10_000, 0, false, 1)).isEqualTo(Refusal.HANDSHAKE_TIMEOUT);
        assertThat(d.overrun(10_000, 0, true, 1))
                .as("done: no handshake deadline")
                .isNull();
    }

    @Test
    void theGuardLooksFourTimesPerShortestDeadlineWithinBounds() {
        assertThat(Deadlines.tick(30_000, 10_000, 30_000)).isEqualTo(1000);
        assertThat(Deadlines.tick(2_000, 1_000, 2_000)).isEqualTo(250);
        assertThat(Deadlines.tick(100, 100, 100)).isEqualTo(50);
    }
}
