package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.http.HttpDates;
import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.RawHttp;
import io.videoedge.server.testing.Tools;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** GET/HEAD of files under the content root: types, validators, ranges, conditionals, keep-alive. */
class StaticContentIT {
    static EdgeFixture edge;

    @BeforeAll
    static void start() throws Exception {
        edge = EdgeFixture.start();
    }

    @AfterAll
    static void stop() throws Exception {
        edge.close();
    }

    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({
        "/index.m3u8, application/vnd.apple.mpegurl",
        "/hls/playlist.m3u8, application/vnd.apple.mpegurl",
        "/hls/init.mp4, video/mp4",
        "/hls/seg-00001.m4s, video/iso.segment",
        "/ts/seg-00001.ts, video/mp2t",
        "/dash/manifest.mpd, application/dash+xml",
        "/subs/en.vtt, text/vtt",
        "/mp4/clip.mp4, video/mp4",
    })
    void servesTheFileWithItsTypeAndValidators(String path, String type) throws Exception {
        HttpResponse<byte[]> r = edge.get(edge.http(path));
        byte[] expected = edge.file(path.substring(1));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo(expected);
        assertThat(r.headers().firstValue("Content-Type")).hasValue(type);
        assertThat(r.headers().firstValueAsLong("Content-Length")).hasValue(expected.length);
        assertThat(r.headers().firstValue("Accept-Ranges")).hasValue("bytes");
        long mtime = Files.getLastModifiedTime(edge.content.resolve(path.substring(1)))
                .toMillis();
        assertThat(r.headers().firstValue("Last-Modified")).hasValue(HttpDates.format(mtime));
        assertThat(r.headers().firstValue("ETag"))
                .hasValue("\"" + Long.toHexString(mtime / 1000) + "-" + Long.toHexString(expected.length) + "\"");
        assertThat(r.headers().firstValue("Date")).isPresent();
    }

    @Test
    void headSendsTheHeadOnlyAndKeepsTheConnection() throws Exception {
        byte[] seg = edge.file("hls/seg-00002.m4s");
        try (RawHttp c = new RawHttp(edge.httpPort)) {
            RawHttp.Response head = c.send("HEAD /hls/seg-00002.m4s HTTP/1.1\r\nHost: x\r\n\r\n")
                    .read(true);
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.header("Content-Length")).isEqualTo(Integer.toString(seg.length));
            // if HEAD had sent a body, it would be parsed as the next status line here
            RawHttp.Response get =
                    c.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(get.status()).isEqualTo(200);
            assertThat(get.body()).isEqualTo(edge.file("index.m3u8"));
        }
    }

    /**
     * A head whose lines are cut across reads (inside the request line, inside a long header line
     * that spans two pieces) is put together and answered, and so is the next request on the
     * connection: the session keeps the cut-off start of a line between reads (a buffer it makes the
     * first time it needs one). The pauses let each piece arrive as a read of its own.
     */
    @Test
    void aHeadCutInsideItsLinesAcrossReadsIsAnswered() throws Exception {
        try (RawHttp c = new RawHttp(edge.httpPort)) {
            for (String piece : List.of(
                    "GET /index.m3u8 HT",
                    "TP/1.1\r\nHost: x\r\nX-Padding: " + "a".repeat(3000),
                    "a".repeat(3000),
                    "\r\n\r\n")) {
                c.send(piece);
                Thread.sleep(100);
            }
            RawHttp.Response first = c.read();
            assertThat(first.status()).isEqualTo(200);
            assertThat(first.body()).isEqualTo(edge.file("index.m3u8"));
            RawHttp.Response second =
                    c.send("GET /subs/en.vtt HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(second.status()).isEqualTo(200);
            assertThat(second.body()).isEqualTo(edge.file("subs/en.vtt"));
        }
    }

    @ParameterizedTest(name = "Range {0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "bytes=0-0        | 0     | 1",
                "bytes=100-1123   | 100   | 1024",
                "bytes=1000-      | 1000  | -1",
                "bytes=-500       | -500  | 500",
                "bytes=50-99999999 | 50   | -1",
            })
    void singleRangesGivePartialContent(String range, long start, long length) throws Exception {
        byte[] file = edge.file("mp4/clip.mp4");
        long from = start < 0 ? file.length + start : start;
        long to = length < 0 ? file.length - 1 : from + length - 1;
        HttpResponse<byte[]> r = edge.get(edge.http("/mp4/clip.mp4"), "Range", range);
        assertThat(r.statusCode()).isEqualTo(206);
        assertThat(r.headers().firstValue("Content-Range")).hasValue("bytes " + from + "-" + to + "/" + file.length);
        assertThat(r.body()).isEqualTo(Arrays.copyOfRange(file, (int) from, (int) to + 1));
    }

    @Test
    void unsatisfiableRangeIs416WithTheLength() throws Exception {
        byte[] file = edge.file("mp4/clip.mp4");
        for (String range : List.of("bytes=" + file.length + "-", "bytes=-0")) {
            HttpResponse<byte[]> r = edge.get(edge.http("/mp4/clip.mp4"), "Range", range);
            assertThat(r.statusCode()).as(range).isEqualTo(416);
            assertThat(r.headers().firstValue("Content-Range")).hasValue("bytes */" + file.length);
        }
        // an empty file has no byte to give: every range is unsatisfiable, and the 416 says its length
        Files.write(edge.content.resolve("mp4/empty.mp4"), new byte[0]);
        for (String range : List.of("bytes=0-", "bytes=-10")) {
            HttpResponse<byte[]> r = edge.get(edge.http("/mp4/empty.mp4"), "Range", range);
            assertThat(r.statusCode()).as(range).isEqualTo(416);
            assertThat(r.headers().firstValue("Content-Range")).as(range).hasValue("bytes */0");
        }
    }

    @Test
    void rangesWeDoNotServeAsOneGiveTheWholeObject() throws Exception {
        byte[] file = edge.file("mp4/clip.mp4");
        for (String range : List.of("bytes=0-1,5-6", "items=0-1", "bytes=9-2")) {
            HttpResponse<byte[]> r = edge.get(edge.http("/mp4/clip.mp4"), "Range", range);
            assertThat(r.statusCode()).as(range).isEqualTo(200);
            assertThat(r.body()).isEqualTo(file);
        }
    }

    @Test
    void ifRangeWithAStaleValidatorGivesTheWholeObject() throws Exception {
        HttpResponse<byte[]> current = edge.get(edge.http("/mp4/clip.mp4"));
        String etag = current.headers().firstValue("ETag").orElseThrow();
        assertThat(edge.get(edge.http("/mp4/clip.mp4"), "Range", "bytes=0-9", "If-Range", etag)
                        .statusCode())
                .isEqualTo(206);
        assertThat(edge.get(edge.http("/mp4/clip.mp4"), "Range", "bytes=0-9", "If-Range", "\"old\"")
                        .statusCode())
                .isEqualTo(200);
    }

    @Test
    void conditionalRequestsGiveNotModified() throws Exception {
        HttpResponse<byte[]> first = edge.get(edge.http("/hls/playlist.m3u8"));
        String etag = first.headers().firstValue("ETag").orElseThrow();
        String lastModified = first.headers().firstValue("Last-Modified").orElseThrow();

        HttpResponse<byte[]> byEtag = edge.get(edge.http("/hls/playlist.m3u8"), "If-None-Match", etag);
        assertThat(byEtag.statusCode()).isEqualTo(304);
        assertThat(byEtag.body()).isEmpty();
        assertThat(byEtag.headers().firstValue("ETag")).hasValue(etag);

        assertThat(edge.get(edge.http("/hls/playlist.m3u8"), "If-Modified-Since", lastModified)
                        .statusCode())
                .isEqualTo(304);
        assertThat(edge.get(edge.http("/hls/playlist.m3u8"), "If-None-Match", "\"other\"")
                        .statusCode())
                .isEqualTo(200);
        assertThat(edge.get(edge.http("/hls/playlist.m3u8"), "If-Modified-Since", "Thu, 01 Jan 1970 00:00:00 GMT")
                        .statusCode())
                .isEqualTo(200);
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrderOnOneConnection() throws Exception {
        try (RawHttp c = new RawHttp(edge.httpPort)) {
            c.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "HEAD /hls/init.mp4 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /missing.m4s HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /hls/seg-00003.m4s HTTP/1.1\r\nHost: x\r\nRange: bytes=0-3\r\n\r\n"
                    + "GET /subs/en.vtt HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(c.read().body()).isEqualTo(edge.file("index.m3u8"));
            assertThat(c.read(true).status()).isEqualTo(200);
            assertThat(c.read().status()).isEqualTo(404);
            RawHttp.Response range = c.read();
            assertThat(range.status()).isEqualTo(206);
            assertThat(range.body()).isEqualTo(Arrays.copyOf(edge.file("hls/seg-00003.m4s"), 4));
            assertThat(c.read().body()).isEqualTo(edge.file("subs/en.vtt"));
            // and still open for more
            assertThat(c.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                            .read()
                            .status())
                    .isEqualTo(200);
        }
    }

    @Test
    void http10WithoutKeepAliveIsAnsweredAndClosed() throws Exception {
        try (RawHttp c = new RawHttp(edge.httpPort)) {
            RawHttp.Response r = c.send("GET /index.m3u8 HTTP/1.0\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("Connection")).isEqualTo("close");
            assertThat(c.closedByServer()).isTrue();
        }
    }

    /**
     * A request pipelined behind one that closes the connection (Connection: close, in the same write)
     * is neither parsed nor answered (RFC 9112 9.6), and the closing response arrives whole: the second
     * answer, written on the closing socket, used to fail and take the first body's unsent bytes with it.
     */
    @Test
    void aRequestPipelinedAfterAClosingOneIsNotAnsweredAndTheClosingResponseArrivesWhole() throws Exception {
        byte[] big = new byte[16 << 20];
        new java.util.SplittableRandom(7).nextBytes(big);
        Files.write(edge.content.resolve("close-big.bin"), big);
        try (RawHttp c = new RawHttp(edge.httpPort)) {
            c.send("GET /close-big.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    + "GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n");
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body().length).isEqualTo(big.length);
            assertThat(java.util.Arrays.equals(r.body(), big))
                    .as("the body's bytes")
                    .isTrue();
            assertThat(c.closedByServer()).as("closed, with no second response").isTrue();
        }
    }

    @Test
    void absoluteFormTargetsServeThePath() throws Exception {
        RawHttp.Response r = RawHttp.exchange(
                edge.httpPort, "GET http://edge.example/index.m3u8?x=1 HTTP/1.1\r\nHost: edge.example\r\n\r\n");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).isEqualTo(edge.file("index.m3u8"));
    }

    @Test
    void queryStringsAndRedundantSlashesAreIgnoredForTheLookup() throws Exception {
        assertThat(edge.get(edge.http("//hls/./playlist.m3u8?token=abc")).body())
                .isEqualTo(edge.file("hls/playlist.m3u8"));
    }

    @Test
    void symlinksInsideTheRootServeAndOnesLeadingOutDoNot() throws Exception {
        Path outside = edge.dir.resolve("secret.txt");
        Files.writeString(outside, "secret");
        Files.createSymbolicLink(edge.content.resolve("escape.txt"), outside);
        Files.createSymbolicLink(edge.content.resolve("alias.m3u8"), edge.content.resolve("index.m3u8"));
        Files.createSymbolicLink(edge.content.resolve("outdir"), edge.dir);
        assertThat(edge.get(edge.http("/escape.txt")).statusCode()).isEqualTo(404);
        assertThat(edge.get(edge.http("/outdir/secret.txt")).statusCode()).isEqualTo(404);
        assertThat(edge.get(edge.http("/alias.m3u8")).body()).isEqualTo(edge.file("index.m3u8"));
    }

    @Test
    void curlDownloadsBytesIdenticalToTheFileWithSendfile() throws Exception {
        double sendfileBefore = edge.metric("videoedge_http_response_body_bytes_total{via=\"sendfile\"}");
        Path out = edge.dir.resolve("curl.out");
        Tools.Result r = Tools.run(List.of(
                "curl",
                "-sS",
                "-o",
                out.toString(),
                "-w",
                "%{http_code}",
                edge.http("/mp4/clip.mp4").toString()));
        assertThat(r.stdout()).isEqualTo("200");
        byte[] expected = edge.file("mp4/clip.mp4");
        assertThat(Files.readAllBytes(out)).isEqualTo(expected);
        // the counter moves right after the write call: the client may have the last byte first
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(30))
                .untilAsserted(
                        () -> assertThat(edge.metric("videoedge_http_response_body_bytes_total{via=\"sendfile\"}")
                                        - sendfileBefore)
                                .isGreaterThanOrEqualTo(expected.length));

        Tools.Result range = Tools.run(List.of(
                "curl",
                "-sS",
                "-r",
                "10-19",
                "-o",
                out.toString(),
                "-w",
                "%{http_code}",
                edge.http("/mp4/clip.mp4").toString()));
        assertThat(range.stdout()).isEqualTo("206");
        assertThat(Files.readAllBytes(out)).isEqualTo(Arrays.copyOfRange(expected, 10, 20));
    }
}
