package io.videoedge.server.guard;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class AddressCountsTest {
    @Test
    void eachAddressHasItsOwnCapAndGivesPlacesBack() throws Exception {
        AddressCounts c = new AddressCounts();
        InetAddress a = InetAddress.getByName("10.0.0.1");
        InetAddress b = InetAddress.getByName("10.0.0.2");
        assertThat(c.tryAcquire(a, 2)).isTrue();
        assertThat(c.tryAcquire(a, 2)).isTrue();
        assertThat(c.tryAcquire(a, 2)).isFalse();
        assertThat(c.tryAcquire(b, 2)).isTrue();
        assertThat(c.connections(a)).isEqualTo(2);
        assertThat(c.addresses()).isEqualTo(2);
        c.release(a);
        assertThat(c.tryAcquire(a, 2)).isTrue();
        c.release(a);
        c.release(a);
        c.release(b);
        assertThat(c.addresses())
                .as("an address without connections is forgotten")
                .isZero();
        c.release(b); // more releases than acquires never go negative
        assertThat(c.connections(b)).isZero();
    }
}
