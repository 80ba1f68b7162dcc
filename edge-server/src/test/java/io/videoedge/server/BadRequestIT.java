package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.RawHttp;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed, hostile and unsupported requests: each gets its status, the connection is kept when its
 * framing is intact and closed when it is not, and the server goes on serving, on that connection
 * when kept and on a new one in every case.
 */
class BadRequestIT {
    static EdgeFixture edge;

    @BeforeAll
    static void start() throws Exception {
        edge = EdgeFixture.start(); // limits: maxHeaderSize 8k, maxUriLength 2k
    }

    @AfterAll
    static void stop() throws Exception {
        edge.close();
    }

    private static final boolean KEEP = false;
    private static final boolean CLOSE = true;

    static Stream<Arguments> badRequests() {
        String h = "Host: x\r\n";
        return Stream.of(
                // paths
                bad("plain traversal", "GET /../etc/passwd HTTP/1.1\r\n" + h + "\r\n", 400, KEEP),
                bad("traversal inside", "GET /hls/../../etc/passwd HTTP/1.1\r\n" + h + "\r\n", 400, KEEP),
                bad("encoded traversal", "GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\n" + h + "\r\n", 400, KEEP),
                bad("encoded slashes", "GET /hls/..%2f..%2fetc%2fpasswd HTTP/1.1\r\n" + h + "\r\n", 400, KEEP),
                bad("overlong UTF-8 dots", "GET /%c0%ae%c0%ae/etc/passwd HTTP/1.1\r\n" + h + "\r\n", 400, KEEP),
                bad("backslash traversal", "GET /..\\..\\etc\\passwd HTTP/1.1\r\n" + h + "\r\n", 400, KEEP),
                bad("encoded NUL", "GET /index.m3u8%00.mp4 HTTP/1.1\r\n" + h + "\r\n", 400, KEEP),
                bad("broken escape", "GET /a%zz HTTP/1.1\r\n" + h + "\r\n", 400, KEEP),
                bad("missing file", "GET /hls/seg-99999.m4s HTTP/1.1\r\n" + h + "\r\n", 404, KEEP),
                bad("the root directory", "GET / HTTP/1.1\r\n" + h + "\r\n", 404, KEEP),
                bad("a directory", "GET /hls HTTP/1.1\r\n" + h + "\r\n", 404, KEEP),
                // methods
                bad(
                        "POST with a small body",
                        "POST /index.m3u8 HTTP/1.1\r\n" + h + "Content-Length: 5\r\n\r\nhello",
                        405,
                        KEEP),
                bad("PUT", "PUT /index.m3u8 HTTP/1.1\r\n" + h + "Content-Length: 0\r\n\r\n", 405, KEEP),
                bad("DELETE", "DELETE /index.m3u8 HTTP/1.1\r\n" + h + "\r\n", 405, KEEP),
                bad("unknown method", "BREW /pot HTTP/1.1\r\n" + h + "\r\n", 405, KEEP),
                bad("lower-case method", "get /index.m3u8 HTTP/1.1\r\n" + h + "\r\n", 405, KEEP),
                bad(
                        "POST with a huge body",
                        "POST /x HTTP/1.1\r\n" + h + "Content-Length: 104857600\r\n\r\n",
                        405,
                        CLOSE),
                // request line
                bad("target too long", "GET /" + "a".repeat(3000) + " HTTP/1.1\r\n" + h + "\r\n", 414, CLOSE),
                bad("request line without end", "GET /" + "a".repeat(5000), 414, CLOSE),
                bad("HTTP/2.0", "GET /index.m3u8 HTTP/2.0\r\n" + h + "\r\n", 505, CLOSE),
                bad("garbage version", "GET /index.m3u8 HTTP/1.1x\r\n" + h + "\r\n", 400, CLOSE),
                bad("not HTTP at all", "hello there\r\n\r\n", 400, CLOSE),
                bad("no target", "GET HTTP/1.1\r\n" + h + "\r\n", 400, CLOSE),
                bad("space in target", "GET /a b HTTP/1.1\r\n" + h + "\r\n", 400, CLOSE),
                bad("NUL in request line", "GET /a\0b HTTP/1.1\r\n" + h + "\r\n", 400, CLOSE),
                bad("asterisk form", "OPTIONS * HTTP/1.1\r\n" + h + "\r\n", 400, CLOSE),
                bad("ftp absolute form", "GET ftp://x/index.m3u8 HTTP/1.1\r\n" + h + "\r\n", 400, CLOSE),
                bad("binary junk", "\u0016\u0003\u0001\u0002\u0000\u0001\u00fc\u0003\u0003\r\n\r\n", 400, CLOSE),
                // headers
                bad(
                        "one huge header",
                        "GET /index.m3u8 HTTP/1.1\r\n" + h + "Cookie: " + "c".repeat(9000) + "\r\n\r\n",
                        431,
                        CLOSE),
                bad(
                        "many headers over the size",
                        "GET /index.m3u8 HTTP/1.1\r\n" + h
                                + "X-Pad: "
                                        .concat("p".repeat(90))
                                        .concat("\r\n")
                                        .repeat(100) + "\r\n",
                        431,
                        CLOSE),
                bad(
                        "too many headers",
                        "GET /index.m3u8 HTTP/1.1\r\n" + h + "X: y\r\n".repeat(200) + "\r\n",
                        431,
                        CLOSE),
                bad("no Host in HTTP/1.1", "GET /index.m3u8 HTTP/1.1\r\n\r\n", 400, CLOSE),
                bad("two Host headers", "GET /index.m3u8 HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, CLOSE),
                bad(
                        "obsolete line folding",
                        "GET /index.m3u8 HTTP/1.1\r\n" + h + "X-A: 1\r\n  continued\r\n\r\n",
                        400,
                        CLOSE),
                bad("header without colon", "GET /index.m3u8 HTTP/1.1\r\n" + h + "NoColonHere\r\n\r\n", 400, CLOSE),
                bad("space before colon", "GET /index.m3u8 HTTP/1.1\r\nHost : x\r\n\r\n", 400, CLOSE),
                bad(
                        "control character in value",
                        "GET /index.m3u8 HTTP/1.1\r\n" + h + "X-A: a\u0001b\r\n\r\n",
                        400,
                        CLOSE),
                bad(
                        "chunked request body",
                        "GET /index.m3u8 HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                        400,
                        CLOSE),
                bad(
                        "Content-Length not a number",
                        "GET /index.m3u8 HTTP/1.1\r\n" + h + "Content-Length: abc\r\n\r\n",
                        400,
                        CLOSE),
                bad(
                        "negative Content-Length",
                        "GET /index.m3u8 HTTP/1.1\r\n" + h + "Content-Length: -1\r\n\r\n",
                        400,
                        CLOSE),
                bad(
                        "conflicting Content-Length",
                        "GET /index.m3u8 HTTP/1.1\r\n" + h + "Content-Length: 1\r\nContent-Length: 2\r\n\r\nab",
                        400,
                        CLOSE),
                // ranges and conditionals that do not fit
                bad(
                        "range past the end",
                        "GET /index.m3u8 HTTP/1.1\r\n" + h + "Range: bytes=99999-\r\n\r\n",
                        416,
                        KEEP),
                bad("zero suffix range", "GET /index.m3u8 HTTP/1.1\r\n" + h + "Range: bytes=-0\r\n\r\n", 416, KEEP));
    }

    private static Arguments bad(String name, String request, int status, boolean closes) {
        return Arguments.of(name, request, status, closes);
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("badRequests")
    void isRefusedAndTheServerKeepsServing(String name, String request, int status, boolean closes) throws Exception {
        try (RawHttp c = new RawHttp(edge.httpPort)) {
            RawHttp.Response r = c.send(request).read();
            assertThat(r.status()).isEqualTo(status);
            if (closes) {
                assertThat(r.header("Connection")).isEqualTo("close");
                assertThat(c.closedByServer()).as("connection closed").isTrue();
            } else {
                assertThat(r.header("Connection")).isEqualTo("keep-alive");
                RawHttp.Response next =
                        c.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n").read();
                assertThat(next.status()).as("same connection still serves").isEqualTo(200);
                assertThat(next.body()).isEqualTo(edge.file("index.m3u8"));
            }
        }
        assertThat(edge.get(edge.http("/index.m3u8")).statusCode())
                .as("new connection serves")
                .isEqualTo(200);
    }

    @Test
    void aBadRequestBehindAGoodOneIsAnsweredAfterIt() throws Exception {
        try (RawHttp c = new RawHttp(edge.httpPort)) {
            c.send(
                    "GET /hls/init.mp4 HTTP/1.1\r\nHost: x\r\n\r\nGET /x HTTP/9.9\r\nHost: x\r\n\r\nGET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n");
            RawHttp.Response first = c.read();
            assertThat(first.status()).isEqualTo(200);
            assertThat(first.body()).isEqualTo(edge.file("hls/init.mp4"));
            assertThat(c.read().status()).isEqualTo(505);
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @Test
    void methodNotAllowedNamesTheAllowedMethods() throws Exception {
        RawHttp.Response r =
                RawHttp.exchange(edge.httpPort, "PUT /index.m3u8 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
        assertThat(r.header("Allow")).isEqualTo("GET, HEAD");
    }

    @Test
    void statusesAreCounted() throws Exception {
        RawHttp.exchange(edge.httpPort, "GET /" + "a".repeat(3000) + " HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(edge.metric("videoedge_http_requests_total{method=\"GET\",status=\"414\"}"))
                .isGreaterThanOrEqualTo(1);
    }
}
