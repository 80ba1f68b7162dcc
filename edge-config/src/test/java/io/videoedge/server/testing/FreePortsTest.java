package io.videoedge.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FreePortsTest {
    @Test
    void manyPortsAtOnceAreAllDifferent() throws Exception {
        // 500 probes opened and closed one after another repeat a port almost surely (birthday bound over
        // the kernel's ephemeral range); held together they cannot
        int[] ports = FreePorts.distinct(500);
        assertThat(Arrays.stream(ports).distinct().count()).isEqualTo(500);
    }
}
