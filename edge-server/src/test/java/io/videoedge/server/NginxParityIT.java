package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.http.HttpDates;
import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.Nginx;
import io.videoedge.server.testing.RawHttp;
import io.videoedge.server.testing.TempDirs;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The edge and a real nginx (the Debian package) answer the same request for the same file with the
 * same status. nginx serves a directory whose {@code content} is the edge's content root, on two
 * ports: its defaults ({@code if_modified_since exact}) and {@code if_modified_since before}; it is
 * also the edge's origin, so every case is asked of the edge twice: from its content root
 * ({@code /hls/...}) and through its cache ({@code /content/hls/...}, not under the root).
 */
class NginxParityIT {
    static final String FILE = "hls/playlist.m3u8";
    static Path nginxRoot;
    static Nginx nginx;
    static EdgeFixture edge;

    @BeforeAll
    static void start() throws Exception {
        nginxRoot = TempDirs.create("nginx-root");
        nginx = Nginx.start(2, """
                  server { listen 127.0.0.1:%1$d; root %3$s; }
                  server { listen 127.0.0.1:%2$d; root %3$s; if_modified_since before; }
                """.replace("%3$s", nginxRoot.toString()));
        Path disk = TempDirs.create("edge-cache");
        edge = EdgeFixture.start("""
                origin:
                  url: http://127.0.0.1:%d
                cache:
                  memory: 4m
                  disk:
                    path: %s
                    size: 64m
                bufferPool:
                  size: 8m
                  chunkSize: 64k
                """.formatted(nginx.port(0), disk));
        Files.createSymbolicLink(nginxRoot.resolve("content"), edge.content);
        // modified an hour ago, before anything asked for it (both servers then read the same mtime)
        Files.setLastModifiedTime(
                edge.content.resolve(FILE), FileTime.fromMillis((System.currentTimeMillis() / 1000 - 3600) * 1000));
    }

    @AfterAll
    static void stop() throws Exception {
        if (edge != null) edge.close();
        if (nginx != null) nginx.close();
        if (nginxRoot != null) {
            Files.deleteIfExists(nginxRoot.resolve("content"));
            Files.deleteIfExists(nginxRoot);
        }
    }

    private static URI nginx(int port, String path) {
        return URI.create("http://127.0.0.1:" + nginx.port(port) + path);
    }

    /** Status of the same request to nginx (defaults), the edge's content root and the edge's cache. */
    private static Map<String, Integer> statuses(String... headers) throws Exception {
        Map<String, Integer> s = new LinkedHashMap<>();
        s.put("nginx", edge.get(nginx(0, "/content/" + FILE), headers).statusCode());
        s.put("edge content", edge.get(edge.http("/" + FILE), headers).statusCode());
        s.put("edge cache", edge.get(edge.http("/content/" + FILE), headers).statusCode());
        return s;
    }

    private static Map<String, Integer> all(int status) {
        return Map.of("nginx", status, "edge content", status, "edge cache", status);
    }

    @Test
    void conditionalRequestsGetTheStatusNginxGives() throws Exception {
        HttpResponse<byte[]> plain = edge.get(nginx(0, "/content/" + FILE));
        String lastModified = plain.headers().firstValue("Last-Modified").orElseThrow();
        String etag = plain.headers().firstValue("ETag").orElseThrow();
        for (URI uri : new URI[] {edge.http("/" + FILE), edge.http("/content/" + FILE)}) {
            HttpResponse<byte[]> r = edge.get(uri);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(plain.body());
            assertThat(r.headers().firstValue("Last-Modified")).as("%s", uri).hasValue(lastModified);
            assertThat(r.headers().firstValue("ETag")).as("%s", uri).hasValue(etag);
        }
        long modified = HttpDates.parseSeconds(lastModified) * 1000;
        long now = System.currentTimeMillis();

        assertThat(statuses("If-Modified-Since", lastModified))
                .as("exactly Last-Modified")
                .isEqualTo(all(304));
        assertThat(statuses("If-Modified-Since", HttpDates.format(now + 86_400_000)))
                .as("a day ahead of the clock")
                .isEqualTo(all(200));
        assertThat(statuses("If-Modified-Since", "Fri, 01 Jan 2100 00:00:00 GMT"))
                .as("in 2100")
                .isEqualTo(all(200));
        assertThat(statuses("If-Modified-Since", HttpDates.format(modified - 1000)))
                .as("before Last-Modified")
                .isEqualTo(all(200));
        assertThat(statuses("If-Modified-Since", "yesterday")).as("not a date").isEqualTo(all(200));
        assertThat(statuses("If-None-Match", etag)).as("the ETag").isEqualTo(all(304));
        assertThat(statuses("If-None-Match", "\"other\"", "If-Modified-Since", lastModified))
                .as("another ETag wins")
                .isEqualTo(all(200));

        // Between Last-Modified and now: RFC 9110 13.1.3 says 304, as nginx's `if_modified_since before`
        // and Apache do; nginx's default (`exact`) sends the object. We follow the RFC here (and
        // `before` would answer 304 for a date in the future too, which we do not: see above).
        String between = HttpDates.format(modified + 1_800_000);
        assertThat(edge.get(nginx(1, "/content/" + FILE), "If-Modified-Since", between)
                        .statusCode())
                .isEqualTo(304);
        assertThat(edge.get(nginx(1, "/content/" + FILE), "If-Modified-Since", HttpDates.format(now + 86_400_000))
                        .statusCode())
                .as("nginx `before`: a future date is 304")
                .isEqualTo(304);
        assertThat(edge.get(edge.http("/" + FILE), "If-Modified-Since", between).statusCode())
                .isEqualTo(304);
        assertThat(edge.get(edge.http("/content/" + FILE), "If-Modified-Since", between)
                        .statusCode())
                .isEqualTo(304);
        assertThat(edge.get(nginx(0, "/content/" + FILE), "If-Modified-Since", between)
                        .statusCode())
                .isEqualTo(200);
    }

    static Stream<Arguments> pathsTheFileSystemRefuses() {
        return Stream.of(
                Arguments.of("a 255-byte name (the limit: absent)", "/" + "a".repeat(255)),
                Arguments.of("a 256-byte name", "/" + "a".repeat(256)),
                Arguments.of("a 300-byte name in a directory", "/hls/" + "b".repeat(296) + ".m4s"),
                Arguments.of("130 two-byte characters (260 bytes)", "/hls/" + "%C3%A9".repeat(130) + ".m4s"),
                Arguments.of("a 300-byte directory name", "/" + "d".repeat(300) + "/seg.m4s"),
                Arguments.of("a file used as a directory", "/" + FILE + "/seg.m4s"));
    }

    /**
     * Names the file system cannot hold (over NAME_MAX, 255 bytes) or paths through a file: nginx
     * answers 404 (ENAMETOOLONG, ENOTDIR) and keeps the connection; so does the edge, from its content
     * root and through its cache, and the connection goes on serving.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("pathsTheFileSystemRefuses")
    void aPathTheFileSystemRefusesIsNotFoundAsInNginx(String name, String path) throws Exception {
        Map<String, Integer> s = new LinkedHashMap<>();
        s.put("nginx", notFoundAndServing(nginx.port(0), "/content" + path));
        s.put("edge content", notFoundAndServing(edge.httpPort, path));
        s.put("edge cache", notFoundAndServing(edge.httpPort, "/content" + path));
        assertThat(s).isEqualTo(all(404));
        assertThat(edge.get(edge.http("/" + FILE)).statusCode())
                .as("a new connection serves")
                .isEqualTo(200);
    }

    /** The status for {@code path}; then the same connection must still serve the file. */
    private static int notFoundAndServing(int port, String path) throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            RawHttp.Response r =
                    c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(r.header("Connection")).as("port %d %s", port, path).isEqualTo("keep-alive");
            RawHttp.Response next = c.send("GET /content/" + FILE + " HTTP/1.1\r\nHost: x\r\n\r\n")
                    .read();
            assertThat(next.status()).as("the same connection serves on").isEqualTo(200);
            return r.status();
        }
    }

    /**
     * Any other failure to open a local file (here a symlink loop, ELOOP) is answered, not a closed
     * connection: 500 where nginx says 403 (it counts ELOOP as forbidden), and the connection serves on.
     */
    @Test
    void anotherFileSystemErrorIsAnsweredAndTheConnectionServesOn() throws Exception {
        Files.createSymbolicLink(edge.content.resolve("hls/loop.m4s"), Path.of("loop.m4s"));
        try (RawHttp c = new RawHttp(edge.httpPort)) {
            RawHttp.Response r =
                    c.send("GET /hls/loop.m4s HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(500);
            assertThat(r.header("Connection")).isEqualTo("keep-alive");
            assertThat(c.send("GET /" + FILE + " HTTP/1.1\r\nHost: x\r\n\r\n")
                            .read()
                            .status())
                    .isEqualTo(200);
        }
        assertThat(RawHttp.exchange(nginx.port(0), "GET /content/hls/loop.m4s HTTP/1.1\r\nHost: x\r\n\r\n")
                        .status())
                .isEqualTo(403);
    }
}
