package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.RawHttp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * OpenSSL read-ahead (nativelib/TlsReadAhead): one read system call per request over TLS instead of
 * two (the record header, then the record), counted by the kernel for the server process
 * ({@code syscr} in /proc/PID/io) against the same server with read-ahead off as the control; and
 * no request lost inside OpenSSL's buffer: records that arrive together (pipelined requests, one TLS
 * record each, in one TCP write) are all answered, though epoll reports the socket readable once.
 */
class TlsReadAheadIT {
    static final String MANIFEST = "/bench/manifest-1k.m3u8";
    static final int REQUESTS = 200;

    static EdgeFixture readAhead;
    static EdgeFixture control;

    @BeforeAll
    static void start() throws Exception {
        readAhead = EdgeFixture.startProcess("", true);
        control = EdgeFixture.startProcess("", true, "-Dvideoedge.tlsReadAhead=false");
    }

    @AfterAll
    static void stop() throws Exception {
        for (EdgeFixture f : new EdgeFixture[] {readAhead, control}) {
            if (f != null) f.close();
        }
    }

    @Test
    void aRequestCostsOneReadInsteadOfTwo() throws Exception {
        double withReadAhead = readsPerRequest(readAhead);
        double without = readsPerRequest(control);
        System.out.printf(
                "read system calls per HTTPS request (%d on one connection): %.2f with read-ahead, %.2f without%n",
                REQUESTS, withReadAhead, without);

        assertThat(without).as("reads per request, read-ahead off").isGreaterThanOrEqualTo(1.9);
        assertThat(withReadAhead).as("reads per request, read-ahead on").isLessThanOrEqualTo(1.2);
    }

    @Test
    void recordsThatArriveTogetherAreAllAnswered() throws Exception {
        for (EdgeFixture edge : new EdgeFixture[] {readAhead, control}) {
            try (RawHttp c = RawHttp.tls(edge.httpsPort)) {
                c.cork();
                c.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n"); // one record each
                c.send("HEAD /hls/init.mp4 HTTP/1.1\r\nHost: x\r\n\r\n");
                c.send("GET /bench/seg-2m.m4s HTTP/1.1\r\nHost: x\r\n\r\n"); // a body that fills the socket
                c.send("GET /subs/en.vtt HTTP/1.1\r\nHost: x\r\n\r\n");
                c.uncork(); // four records, one TCP write

                assertThat(c.read().body()).isEqualTo(edge.file("index.m3u8"));
                assertThat(c.read(true).status()).isEqualTo(200);
                assertThat(c.read().body()).isEqualTo(edge.file("bench/seg-2m.m4s"));
                assertThat(c.read().body()).isEqualTo(edge.file("subs/en.vtt"));
                // and the connection serves on
                assertThat(c.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                                .read()
                                .status())
                        .isEqualTo(200);
            }
        }
    }

    /** The server process's read system calls per request, for REQUESTS requests on one TLS connection. */
    private static double readsPerRequest(EdgeFixture edge) throws Exception {
        byte[] manifest = edge.file(MANIFEST.substring(1));
        try (RawHttp c = RawHttp.tls(edge.httpsPort)) {
            c.send("GET " + MANIFEST + " HTTP/1.1\r\nHost: x\r\n\r\n").read(); // handshake and first reads
            long before = syscr(edge);
            for (int i = 0; i < REQUESTS; i++) {
                assertThat(c.send("GET " + MANIFEST + " HTTP/1.1\r\nHost: x\r\n\r\n")
                                .read()
                                .body())
                        .isEqualTo(manifest);
            }
            return (double) (syscr(edge) - before) / REQUESTS;
        }
    }

    private static long syscr(EdgeFixture edge) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(edge.process.pid()), "io"))) {
            if (line.startsWith("syscr:")) {
                return Long.parseLong(line.substring("syscr:".length()).trim());
            }
        }
        throw new IllegalStateException("no syscr in /proc/PID/io");
    }
}
