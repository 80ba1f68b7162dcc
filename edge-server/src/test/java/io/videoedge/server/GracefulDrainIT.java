package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.RawHttp;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Shutdown drains: readiness goes to 503, the ports stop accepting, idle keep-alive connections are
 * closed, and a response in flight (a slow reader of a 16 MiB segment) completes before the server stops.
 */
class GracefulDrainIT {
    EdgeFixture edge;

    @BeforeEach
    void start() throws Exception {
        edge = EdgeFixture.start("drainTimeout: 60s\n", true);
    }

    @AfterEach
    void stop() throws Exception {
        edge.close();
    }

    @Test
    void inFlightResponsesFinishWhileNewConnectionsAreRefused() throws Exception {
        byte[] expected = edge.file("bench/seg-16m.m4s");
        try (Socket slow = new Socket();
                RawHttp idle = new RawHttp(edge.httpPort)) {
            slow.setReceiveBufferSize(16 * 1024); // a slow client: the response cannot be buffered away
            slow.connect(new java.net.InetSocketAddress("127.0.0.1", edge.httpPort));
            slow.setSoTimeout(60_000);
            slow.getOutputStream()
                    .write("GET /bench/seg-16m.m4s HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = slow.getInputStream();
            String head = readHead(in);
            assertThat(head).startsWith("HTTP/1.1 200 OK");
            byte[] first = in.readNBytes(1024);

            assertThat(idle.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                            .read()
                            .status())
                    .isEqualTo(200);

            Thread shutdown = Thread.ofPlatform().start(edge.service::shutdown);
            await("readiness reports draining")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> edge.get(edge.admin("/readyz")).statusCode() == 503);
            await("the port stops accepting")
                    .atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThatThrownBy(() -> new Socket("127.0.0.1", edge.httpPort).close())
                            .isInstanceOf(ConnectException.class));
            assertThat(idle.closedByServer())
                    .as("idle keep-alive connection closed by the drain")
                    .isTrue();
            assertThat(shutdown.isAlive())
                    .as("still draining the slow response")
                    .isTrue();

            byte[] rest = in.readAllBytes(); // the server closes after the last byte
            byte[] body = new byte[first.length + rest.length];
            System.arraycopy(first, 0, body, 0, first.length);
            System.arraycopy(rest, 0, body, first.length, rest.length);
            assertThat(body.length).isEqualTo(expected.length);
            assertThat(Arrays.equals(body, expected)).as("complete and intact").isTrue();

            shutdown.join(Duration.ofSeconds(60));
            assertThat(shutdown.isAlive())
                    .as("shutdown finished after the drain")
                    .isFalse();
        }
    }

    @Test
    void theDeadlineCutsResponsesThatDoNotFinish() throws Exception {
        edge.close();
        edge = EdgeFixture.start("drainTimeout: 200ms\n", true);
        try (Socket stuck = new Socket()) {
            stuck.setReceiveBufferSize(16 * 1024);
            stuck.connect(new java.net.InetSocketAddress("127.0.0.1", edge.httpPort));
            stuck.getOutputStream()
                    .write("GET /bench/seg-16m.m4s HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(readHead(stuck.getInputStream())).startsWith("HTTP/1.1 200 OK");
            edge.service.shutdown(); // returns once the deadline has cut the reader off
            stuck.setSoTimeout(60_000);
            long received = 0;
            try {
                received = stuck.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
            } catch (java.net.SocketException reset) {
                // cut off
            }
            assertThat(received).isLessThan(16L << 20);
        }
    }

    private static String readHead(InputStream in) throws Exception {
        StringBuilder sb = new StringBuilder();
        while (!sb.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) break;
            sb.append((char) c);
        }
        return sb.toString();
    }
}
