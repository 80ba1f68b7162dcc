package io.videoedge.server.origin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.videoedge.server.config.OriginConfig;
import io.videoedge.server.resources.BufferPool;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ProtocolException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The origin client's response-head reading over one-nio's native sockets against a plain-socket
 * origin that writes its head however a test says: a byte at a time (the blank line straddles reads),
 * with the body in the same segment, or larger than the client takes.
 */
class OriginClientIT {
    private final BufferPool buffers = new BufferPool(1 << 20, 128 * 1024);
    private ServerSocket listener;
    private Thread origin;
    private OriginClient client;

    @AfterEach
    void stop() throws Exception {
        if (client != null) client.close();
        if (listener != null) listener.close();
        if (origin != null) origin.join(5_000);
    }

    @Test
    void aHeadThatArrivesAByteAtATimeIsParsedAndTheBodyFollowsIntact() throws Exception {
        byte[] body = bytes(100_000);
        start(
                (out, head) -> {
                    for (byte b : head) {
                        out.write(b);
                        out.flush();
                        Thread.sleep(1); // separate segments: the client reads the head in many pieces
                    }
                    out.write(body);
                },
                "HTTP/1.1 200 OK\r\nContent-Length: " + body.length + "\r\nETag: \"v1\"\r\n\r\n");
        try (OriginClient.Exchange x = client.get("/a.m4s", List.of())) {
            assertThat(x.head().status()).isEqualTo(200);
            assertThat(x.head().header("etag")).isEqualTo("\"v1\"");
            assertThat(readBody(x)).isEqualTo(body);
        }
    }

    @Test
    void bodyBytesThatCameWithTheHeadAreTheBodysFirst() throws Exception {
        byte[] body = bytes(3_000);
        start(
                (out, head) -> {
                    byte[] all = new byte[head.length + body.length];
                    System.arraycopy(head, 0, all, 0, head.length);
                    System.arraycopy(body, 0, all, head.length, body.length);
                    out.write(all); // one write: head and body in one read of the client
                },
                "HTTP/1.1 200 OK\r\nContent-Length: " + body.length + "\r\n\r\n");
        try (OriginClient.Exchange x = client.get("/b.m4s", List.of())) {
            assertThat(x.head().headLength()).isEqualTo(41);
            assertThat(readBody(x)).isEqualTo(body);
        }
    }

    @Test
    void aHeadLargerThanTheLimitIsAProtocolError() throws Exception {
        String huge = "HTTP/1.1 200 OK\r\nX-Pad: " + "p".repeat(OriginClient.MAX_HEAD) + "\r\n\r\n";
        start(OutputStream::write, huge); // the client stops reading at the limit and closes
        assertThatThrownBy(() -> client.get("/c.m4s", List.of()))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("larger than " + OriginClient.MAX_HEAD);
    }

    /** What the origin writes after the request head: the response head it is given, and more. */
    @FunctionalInterface
    private interface Response {
        void write(OutputStream out, byte[] head) throws IOException, InterruptedException;
    }

    private void start(Response respond, String head) throws IOException {
        listener = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        byte[] headBytes = head.getBytes(StandardCharsets.ISO_8859_1);
        origin = Thread.ofPlatform().name("test-origin").start(() -> {
            try (Socket s = listener.accept()) {
                s.setTcpNoDelay(true);
                readRequestHead(s.getInputStream());
                OutputStream out = s.getOutputStream();
                respond.write(out, headBytes);
                out.flush();
                s.shutdownOutput();
                s.getInputStream().transferTo(OutputStream.nullOutputStream()); // until the client closes
            } catch (IOException | InterruptedException | RuntimeException e) {
                // the client closed first (the over-long head), or the listener at the end of a test
            }
        });
        OriginConfig config = new OriginConfig();
        config.url = "http://127.0.0.1:" + listener.getLocalPort();
        client = new OriginClient(config, buffers);
    }

    private static void readRequestHead(InputStream in) throws IOException {
        int matched = 0;
        while (matched < 4) {
            int c = in.read();
            if (c < 0) throw new IOException("client closed before its request head ended");
            matched = c == "\r\n\r\n".charAt(matched) ? matched + 1 : c == '\r' ? 1 : 0;
        }
    }

    private static byte[] readBody(OriginClient.Exchange x) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        long n = x.readBody((buffer, position, length) -> {
            byte[] part = new byte[length];
            buffer.get(position, part);
            got.write(part, 0, length);
        });
        assertThat(n).isEqualTo(got.size());
        return got.toByteArray();
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }
}
