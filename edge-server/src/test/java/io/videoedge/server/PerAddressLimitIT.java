package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.RawHttp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * limits.maxConnectionsPerAddress on a real server on loopback (every client is 127.0.0.1): the N+1st
 * connection of an address is closed at accept and counted, the N keep being served, a place freed is
 * taken again, and the acceptor keeps accepting, with either one-nio acceptor kind (each catches a
 * different exception).
 */
class PerAddressLimitIT {
    static final int CAP = 8;

    @ParameterizedTest(name = "multiAcceptor {0}")
    @ValueSource(booleans = {true, false})
    void theConnectionOverTheCapIsClosedAtAcceptAndCounted(boolean multiAcceptor) throws Exception {
        try (EdgeFixture edge =
                EdgeFixture.startEdited(text -> text.replace("multiAcceptor: true", "multiAcceptor: " + multiAcceptor)
                        + "limits:\n  maxUriLength: 2k\n  maxConnections: 1000\n  maxConnectionsPerAddress: " + CAP
                        + "\n")) {
            List<RawHttp> held = new ArrayList<>();
            try {
                for (int i = 0; i < CAP; i++) {
                    RawHttp c = new RawHttp(edge.httpPort);
                    held.add(c);
                    assertThat(c.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                                    .read()
                                    .status())
                            .isEqualTo(200);
                }
                for (int i = 0; i < 3; i++) {
                    try (RawHttp over = new RawHttp(edge.httpPort)) {
                        assertThat(over.closedByServer()).as("closed at accept").isTrue();
                    }
                }
                assertThat(edge.metric("videoedge_connections_refused_total{reason=\"per_address\"}"))
                        .isEqualTo(3);
                assertThat(edge.gauge("videoedge_connections")).isEqualTo(CAP);
                assertThat(edge.gauge("videoedge_connection_addresses")).isEqualTo(1);
                for (RawHttp c : held) { // the N are still served
                    assertThat(c.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                                    .read()
                                    .status())
                            .isEqualTo(200);
                }
                held.remove(0).close();
                await("the closed connection gives its place back")
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> edge.gauge("videoedge_connections") == CAP - 1);
                try (RawHttp again = new RawHttp(edge.httpPort)) {
                    assertThat(again.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                                    .read()
                                    .status())
                            .isEqualTo(200);
                }
            } finally {
                for (RawHttp c : held) c.close();
            }
            await("every place is given back")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> edge.gauge("videoedge_connection_addresses") == 0);
        }
    }
}
