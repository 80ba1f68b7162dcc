package io.videoedge.server.guard;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SendProgressTest {
    @Test
    void aReaderThatTakesLessThanTheMinimumInOnePeriodIsCut() {
        SendProgress p = new SendProgress(64 * 1024, 30_000);
        assertThat(p.observe(0, true, 1_000_000)).isNull(); // the period starts when first seen pending
        assertThat(p.observe(29_000, true, 1_050_000)).isNull(); // not a whole period yet
        assertThat(p.observe(30_000, true, 1_060_000)).isEqualTo(Refusal.SLOW_READER);
    }

    @Test
    void aReaderThatKeepsUpStartsANewPeriodEachTime() {
        SendProgress p = new SendProgress(64 * 1024, 30_000);
        p.observe(0, true, 0);
        assertThat(p.observe(30_000, true, 100_000)).isNull();
        assertThat(p.observe(60_000, true, 100_000 + 65_536)).isNull();
        assertThat(p.observe(90_000, true, 100_000 + 65_536 + 1000)).isEqualTo(Refusal.SLOW_READER);
    }

    @Test
    void timeWithNothingPendingNeverCounts() {
        SendProgress p = new SendProgress(64 * 1024, 30_000);
        p.observe(0, true, 0);
        assertThat(p.observe(20_000, false, 0)).isNull(); // response done (or waiting for the origin)
        assertThat(p.observe(40_000, true, 0)).isNull(); // a new period starts here
        assertThat(p.observe(69_999, true, 0)).isNull();
        assertThat(p.observe(70_000, true, 0)).isEqualTo(Refusal.SLOW_READER);
    }

    @Test
    void zeroBytesTurnsTheRuleOff() {
        SendProgress p = new SendProgress(0, 30_000);
        p.observe(0, true, 0);
        assertThat(p.observe(1_000_000, true, 0)).isNull();
    }
}
