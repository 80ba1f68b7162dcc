package io.videoedge.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class TicketKeyRingTest {
    static final long T0 = 1_800_000_000L;
    final AtomicInteger made = new AtomicInteger();
    final Supplier<byte[]> random = () -> {
        byte[] b = new byte[48];
        Arrays.fill(b, (byte) made.incrementAndGet());
        return b;
    };

    /** The ring at {@code seconds}; the first key of an empty ring is dated a minute earlier (T0 when asked at T0 + 60). */
    TicketKeyRing.Next at(Map<String, String> data, long seconds) {
        return TicketKeyRing.next(data, Instant.ofEpochSecond(seconds), random);
    }

    @Test
    void theFirstKeyIsInEffectAtOnceAndItsSuccessorIsDueThreeMinutesBeforeTheHour() {
        TicketKeyRing.Next n = at(null, T0 + 60);
        assertThat(n.data())
                .as("dated a minute back: in effect on a node whose clock is behind")
                .containsOnlyKeys("t" + T0);
        assertThat(n.recheckAt()).isEqualTo(Instant.ofEpochSecond(T0 + 3600 - 180));
        assertThat(at(n.data(), T0 + 100).data()).as("nothing to do yet").isEqualTo(n.data());
    }

    @Test
    void theSuccessorArrivesAheadOfItsTimeAndTheKeyBeforeThePreviousOneLeavesWhenItStarts() {
        var first = at(null, T0 + 60).data();
        var withNext = at(first, T0 + 3420);
        assertThat(withNext.data()).containsOnlyKeys("t" + T0, "t" + (T0 + 3600));
        assertThat(withNext.recheckAt()).isEqualTo(Instant.ofEpochSecond(T0 + 3600));
        var withThird = at(withNext.data(), T0 + 7020);
        assertThat(withThird.data())
                .as("the one to come, the current one and the previous one")
                .containsOnlyKeys("t" + T0, "t" + (T0 + 3600), "t" + (T0 + 7200));
        assertThat(at(withThird.data(), T0 + 7200).data())
                .as("once the third starts: current and previous only")
                .containsOnlyKeys("t" + (T0 + 3600), "t" + (T0 + 7200));
        assertThat(made).hasValue(3);
    }

    @Test
    void anOperatorThatWasDownAddsTheSuccessorWithItsLeadNotInThePast() {
        var first = at(null, T0 + 60).data();
        var late = at(first, T0 + 5 * 3600);
        assertThat(late.data()).containsOnlyKeys("t" + T0, "t" + (T0 + 5 * 3600 + 180));
    }

    @Test
    void entriesThatAreNoKeysAreDropped() {
        var data = new java.util.HashMap<>(at(null, T0 + 60).data());
        data.put("t123", "c2hvcnQ="); // 5 bytes
        data.put("README", "eA==");
        assertThat(at(data, T0 + 1).data()).containsOnlyKeys("t" + T0);
    }
}
