package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.RawHttp;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * limits.maxConnections with one-nio's multiAcceptor: a connection over the limit is answered 503 and
 * closed, and the server keeps accepting (one-nio 2.3.0's MultiAcceptorThread dies on a
 * RejectedSessionException, which is why the server does not throw one).
 */
class ConnectionLimitIT {
    static EdgeFixture edge;

    @BeforeAll
    static void start() throws Exception {
        edge = EdgeFixture.start("limits:\n  maxConnections: 2\n"); // replaces the fixture's limits section
    }

    @AfterAll
    static void stop() throws Exception {
        edge.close();
    }

    @Test
    void connectionsOverTheLimitGet503AndTheServerKeepsAccepting() throws Exception {
        try (RawHttp a = new RawHttp(edge.httpPort);
                RawHttp b = new RawHttp(edge.httpPort)) {
            assertThat(a.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                            .read()
                            .status())
                    .isEqualTo(200);
            assertThat(b.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                            .read()
                            .status())
                    .isEqualTo(200);
            for (int i = 0; i < 3; i++) {
                try (RawHttp over = new RawHttp(edge.httpPort)) {
                    RawHttp.Response r = over.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                            .read();
                    assertThat(r.status()).isEqualTo(503);
                    assertThat(over.closedByServer()).isTrue();
                }
            }
            assertThat(edge.metric("videoedge_connections_rejected_total")).isEqualTo(3);
        }
        await("the two connections are gone")
                .atMost(Duration.ofSeconds(30))
                .until(() -> edge.gauge("videoedge_connections") == 0);
        try (RawHttp again = new RawHttp(edge.httpPort)) {
            assertThat(again.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                            .read()
                            .status())
                    .isEqualTo(200);
        }
    }
}
