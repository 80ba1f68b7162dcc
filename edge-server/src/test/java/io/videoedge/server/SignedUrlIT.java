package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.videoedge.server.signing.UrlSignature;
import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.RawHttp;
import io.videoedge.server.testing.TempDirs;
import io.videoedge.server.testing.Tools;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Signed URLs on a real server on loopback: tokens minted by the server's own tool and by the
 * README's openssl one-liner, fetched with curl and Java's HTTP client; refusals are 403s counted by
 * reason, the connection keeps serving, and a key rotates by rewriting its file (no restart).
 */
class SignedUrlIT {
    static final byte[] KEY = "an-edge-signing-key-0123456789".getBytes(StandardCharsets.US_ASCII);
    static final byte[] PREVIOUS = "the-key-before-that-one-42".getBytes(StandardCharsets.US_ASCII);
    static final byte[] NEXT = "the-next-key-after-rotation".getBytes(StandardCharsets.US_ASCII);
    static Path keys;
    static EdgeFixture edge;

    @BeforeAll
    static void start() throws Exception {
        keys = TempDirs.create("edge-signing");
        Files.write(keys.resolve("current"), KEY);
        Files.write(keys.resolve("previous"), PREVIOUS);
        edge = EdgeFixture.start("""
                signedUrls:
                  keyDir: %s
                  keyPoll: 1s
                  rules:
                  - prefix: /hls/
                    mode: required
                  - prefix: /mp4/
                    mode: optional
                """.formatted(keys));
    }

    @AfterAll
    static void stop() throws Exception {
        if (edge != null) edge.close();
    }

    static long in(long seconds) {
        return System.currentTimeMillis() / 1000 + seconds;
    }

    static int status(String pathAndQuery) throws Exception {
        return edge.get(edge.http(pathAndQuery)).statusCode();
    }

    static int curl(String pathAndQuery) {
        Tools.Result r = Tools.run(List.of(
                "curl",
                "-sS",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                edge.http(pathAndQuery).toString()));
        return Integer.parseInt(r.stdout().trim());
    }

    /**
     * The token with its signature's first character changed: six bits of the MAC, always another MAC. (Its last two
     * set to "xx", as before, left the MAC as it was about once in 1,024 tokens: unpadded base64's last character
     * carries bits the decoder drops.)
     */
    static String tampered(String query) {
        int at = query.indexOf(UrlSignature.SIGNATURE + "=") + UrlSignature.SIGNATURE.length() + 1;
        char other = query.charAt(at) == 'A' ? 'B' : 'A';
        return query.substring(0, at) + other + query.substring(at + 1);
    }

    @Test
    void theTableOfTokens() throws Exception {
        String seg = "/hls/seg-00001.m4s";
        double refusedBefore = edge.metric("videoedge_signed_url_checks_total{result=\"expired\"}");
        assertThat(curl(seg + "?" + UrlSignature.query(KEY, in(60), seg, null, null)))
                .as("valid")
                .isEqualTo(200);
        assertThat(curl(seg + "?" + UrlSignature.query(PREVIOUS, in(60), seg, null, null)))
                .as("valid, previous key")
                .isEqualTo(200);
        assertThat(curl(seg)).as("missing").isEqualTo(403);
        assertThat(curl(seg + "?" + UrlSignature.query(KEY, in(-5), seg, null, null)))
                .as("expired")
                .isEqualTo(403);
        String good = UrlSignature.query(KEY, in(60), seg, null, null);
        assertThat(curl(seg + "?" + tampered(good))).as("tampered").isEqualTo(403);
        assertThat(curl("/hls/seg-00002.m4s?" + good))
                .as("another path's token")
                .isEqualTo(403);
        assertThat(curl("/hls/seg-00002.m4s?" + UrlSignature.query(KEY, in(60), "/hls/seg-00001.m4s", "/hls/", null)))
                .as("a prefix token covers the rendition")
                .isEqualTo(200);
        assertThat(curl("/mp4/clip.mp4?" + UrlSignature.query(KEY, in(60), "/hls/seg-00001.m4s", "/hls/", null)))
                .as("a prefix token outside its prefix (optional path: a token given is checked)")
                .isEqualTo(403);
        assertThat(curl(seg + "?" + UrlSignature.query(KEY, in(60), seg, null, "127.0.0.1")))
                .as("bound to this client")
                .isEqualTo(200);
        assertThat(curl(seg + "?" + UrlSignature.query(KEY, in(60), seg, null, "203.0.113.7")))
                .as("bound to another client")
                .isEqualTo(403);
        assertThat(curl("/mp4/clip.mp4")).as("optional path without a token").isEqualTo(200);
        assertThat(curl("/dash/manifest.mpd")).as("no rule: no token needed").isEqualTo(200);
        assertThat(edge.metric("videoedge_signed_url_checks_total{result=\"expired\"}") - refusedBefore)
                .isEqualTo(1);
        assertThat(edge.metric("videoedge_signed_url_checks_total{result=\"other_client\"}"))
                .isGreaterThanOrEqualTo(1);
        assertThat(edge.metric("videoedge_signed_url_checks_total{result=\"out_of_scope\"}"))
                .isGreaterThanOrEqualTo(1);
    }

    @Test
    void theReadmesOpensslOneLinerMintsATokenTheServerTakes() throws Exception {
        String path = "/hls/seg-00003.m4s";
        long exp = in(120);
        Tools.Result r = Tools.run(List.of(
                "bash",
                "-c",
                "printf 'videoedge-url-v1\\n%s\\n%s\\n%s' \"$0\" \"$1\" \"\" | openssl dgst -sha256 -hmac \"$(cat \"$2\")\""
                        + " -binary | basenc --base64url | tr -d '='",
                Long.toString(exp),
                path,
                keys.resolve("current").toString()));
        String sig = r.stdout().trim();
        assertThat(sig).matches("[A-Za-z0-9_-]{43}");
        assertThat(status(path + "?exp=" + exp + "&sig=" + sig)).isEqualTo(200);
    }

    @Test
    void theSignUrlToolPrintsAUrlTheServerTakes() throws Exception {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.PrintStream stdout = System.out;
        try {
            System.setOut(new java.io.PrintStream(out, true, StandardCharsets.UTF_8));
            int rc = new picocli.CommandLine(new io.videoedge.server.signing.SignUrl())
                    .execute("--key-file", keys.resolve("current").toString(), "--ttl", "60", "/hls/seg-00004.m4s");
            assertThat(rc).isZero();
        } finally {
            System.setOut(stdout);
        }
        String url = out.toString(StandardCharsets.UTF_8).trim();
        assertThat(url).startsWith("/hls/seg-00004.m4s?exp=");
        assertThat(status(url)).isEqualTo(200);
    }

    @Test
    void aRefusalIsA403AndTheConnectionKeepsServing() throws Exception {
        String seg = "/hls/seg-00001.m4s";
        try (RawHttp c = new RawHttp(edge.httpPort)) {
            c.send("GET " + seg + " HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(403);
            c.send("GET " + seg + "?" + UrlSignature.query(KEY, in(60), seg, null, null)
                    + " HTTP/1.1\r\nHost: x\r\n\r\n");
            RawHttp.Response ok = c.read();
            assertThat(ok.status()).isEqualTo(200);
            assertThat(ok.body()).isEqualTo(edge.file("hls/seg-00001.m4s"));
        }
    }

    /**
     * A token's values are decoded once: a prefix with a '+' (sent as %2B) is the prefix that was
     * signed. A query with a bad percent escape is an answer, never a connection closed without one:
     * served where no rule applies, refused (malformed) where a token is required, and the connection
     * serves on.
     */
    @Test
    void tokenValuesAreDecodedOnceAndABadEscapeIsAnAnswer() throws Exception {
        Path dir = Files.createDirectories(edge.content.resolve("hls/a+b"));
        Files.write(dir.resolve("seg.m4s"), edge.file("hls/seg-00001.m4s"));
        String seg = "/hls/a+b/seg.m4s";
        assertThat(curl(seg + "?" + UrlSignature.query(KEY, in(60), seg, "/hls/a+b/", null)))
                .as("a prefix token whose prefix has a '+'")
                .isEqualTo(200);

        byte[] badEscape = {'%', (byte) 0xC4, (byte) 0x80, 'x'};
        try (RawHttp c = new RawHttp(edge.httpPort)) {
            c.send(request("/dash/manifest.mpd?", badEscape));
            assertThat(c.read().status()).as("no rule for the path").isEqualTo(200);
            c.send(request("/hls/seg-00001.m4s?", badEscape));
            assertThat(c.read().status()).as("a token required").isEqualTo(403);
            c.send("GET /dash/manifest.mpd HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(c.read().status()).as("the connection serves on").isEqualTo(200);
        }
    }

    private static byte[] request(String target, byte[] query) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(("GET " + target).getBytes(StandardCharsets.ISO_8859_1));
        b.writeBytes(query);
        b.writeBytes(" HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        return b.toByteArray();
    }

    @Test
    void aKeyRotatesByRewritingItsFileWithoutARestart() throws Exception {
        String seg = "/hls/seg-00002.m4s";
        String withNext = seg + "?" + UrlSignature.query(NEXT, in(300), seg, null, null);
        assertThat(status(withNext)).isEqualTo(403);
        double loaded = edge.metric("videoedge_signed_url_key_reloads_total{result=\"loaded\"}");
        Path tmp = keys.resolve("current.tmp");
        try {
            Files.write(tmp, NEXT);
            Files.move(tmp, keys.resolve("current"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            await().atMost(Duration.ofSeconds(20)).until(() -> status(withNext) == 200);
            assertThat(edge.metric("videoedge_signed_url_key_reloads_total{result=\"loaded\"}"))
                    .isEqualTo(loaded + 1);
            assertThat(status(seg + "?" + UrlSignature.query(KEY, in(300), seg, null, null)))
                    .as("the old current key, neither current nor previous now")
                    .isEqualTo(403);
            Files.write(tmp, "short".getBytes(StandardCharsets.US_ASCII));
            Files.move(tmp, keys.resolve("current"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> edge.metric("videoedge_signed_url_key_reloads_total{result=\"failed\"}") >= 1);
            assertThat(status(withNext))
                    .as("an unusable key file changes nothing")
                    .isEqualTo(200);
        } finally {
            Files.write(tmp, KEY);
            Files.move(tmp, keys.resolve("current"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> status(seg + "?" + UrlSignature.query(KEY, in(300), seg, null, null)) == 200);
        }
    }

    @Test
    void aServerWithoutItsKeyDoesNotStartAndSaysWhy() throws Exception {
        Path empty = TempDirs.create("edge-signing-empty");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> EdgeFixture.start("""
                        signedUrls:
                          keyDir: %s
                          rules:
                          - prefix: /
                        """.formatted(empty)))
                .hasMessageContaining("signedUrls.keyDir")
                .hasMessageContaining("current");
    }
}
