package io.videoedge.server.guard;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class RequestRatesTest {
    static final long SECOND = 1_000_000_000L;
    final InetAddress a = InetAddress.getLoopbackAddress();
    final InetAddress b;

    RequestRatesTest() throws Exception {
        b = InetAddress.getByName("127.0.0.2");
    }

    @Test
    void aBurstThenOneRequestPerTokenWithTheWaitUntilTheNext() {
        RequestRates r = new RequestRates(0);
        for (int i = 0; i < 5; i++) assertThat(r.take(a, 0, 2, 5)).isZero();
        assertThat(r.take(a, 0, 2, 5)).isEqualTo(SECOND / 2); // 2 a second: the next token in half a second
        assertThat(r.take(b, 0, 2, 5)).as("another address").isZero();
        assertThat(r.take(a, SECOND / 4, 2, 5)).isEqualTo(SECOND / 4);
        assertThat(r.take(a, SECOND / 2, 2, 5)).isZero();
        assertThat(r.take(a, SECOND / 2, 2, 5)).isEqualTo(SECOND / 2);
    }

    @Test
    void anAddressQuietLongEnoughToRefillIsForgotten() {
        RequestRates r = new RequestRates(0);
        r.take(a, 0, 10, 10);
        r.take(b, 0, 10, 10);
        for (int i = 0; i < 10; i++) r.take(b, 9 * SECOND + SECOND / 2, 10, 10);
        assertThat(r.addresses()).isEqualTo(2);
        // the sweep at 10 s: a has refilled and goes; b emptied its bucket at 9.5 s, has 5 again, stays
        assertThat(r.take(b, 10 * SECOND, 10, 10)).isZero();
        assertThat(r.addresses()).isEqualTo(1);
        for (int i = 0; i < 4; i++) assertThat(r.take(b, 10 * SECOND, 10, 10)).isZero();
        assertThat(r.take(b, 10 * SECOND, 10, 10))
                .as("b's bucket was kept, not renewed")
                .isPositive();
    }
}
