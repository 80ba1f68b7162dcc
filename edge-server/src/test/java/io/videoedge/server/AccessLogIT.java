package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.RawHttp;
import io.videoedge.server.testing.Tools;
import io.videoedge.server.tls.KernelTls;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The access log of a real server on loopback: one line per response, with what left and how it ended,
 * read back from the file the server writes and checked with jq as JSON.
 */
class AccessLogIT {
    static EdgeFixture edge;

    @BeforeAll
    static void start() throws Exception {
        edge = EdgeFixture.start("", true); // with the bench files (16 MiB)
    }

    @AfterAll
    static void stop() throws Exception {
        edge.close();
    }

    /** The fields of the line for {@code path}, waiting until the writer has written it. */
    static Map<String, String> lineFor(String path, String status) {
        Pattern p = Pattern.compile("\"([a-z]+)\":(\"((?:[^\"\\\\]|\\\\.)*)\"|[^,}]*)");
        return await().atMost(Duration.ofSeconds(20))
                .until(
                        () -> Files.readAllLines(edge.accessLogFile()).stream()
                                .filter(l -> l.contains("\"path\":\"" + path + "\"")
                                        && l.contains("\"status\":" + status + ","))
                                .reduce((a, b) -> b)
                                .map(l -> {
                                    Matcher m = p.matcher(l);
                                    Map<String, String> f = new java.util.LinkedHashMap<>();
                                    while (m.find()) f.put(m.group(1), m.group(3) != null ? m.group(3) : m.group(2));
                                    return f;
                                })
                                .orElse(null),
                        f -> f != null);
    }

    @Test
    void aWholeGetSaysWhatLeftWithoutTheQueryString() throws Exception {
        byte[] seg = edge.file("hls/seg-00003.m4s");
        assertThat(edge.get(edge.http("/hls/seg-00003.m4s?token=s3cr3t&expires=1"))
                        .statusCode())
                .isEqualTo(200);
        Map<String, String> f = lineFor("/hls/seg-00003.m4s", "200");
        assertThat(f)
                .containsEntry("method", "GET")
                .containsEntry("client", "127.0.0.1")
                .containsEntry("bytes", Long.toString(seg.length))
                .containsEntry("complete", "true")
                .doesNotContainKey("tls");
        assertThat(Long.parseLong(f.get("ms"))).isNotNegative();
        assertThat(Files.readString(edge.accessLogFile())).doesNotContain("s3cr3t");
    }

    @Test
    void headRangeAndNotFound() throws Exception {
        try (RawHttp c = new RawHttp(edge.httpPort)) {
            assertThat(c.send("HEAD /hls/seg-00004.m4s HTTP/1.1\r\nHost: x\r\n\r\n")
                            .read(true)
                            .status())
                    .isEqualTo(200);
            assertThat(c.send("GET /hls/seg-00004.m4s HTTP/1.1\r\nHost: x\r\nRange: bytes=100-199\r\n\r\n")
                            .read()
                            .status())
                    .isEqualTo(206);
            assertThat(c.send("GET /no/such.m4s HTTP/1.1\r\nHost: x\r\n\r\n")
                            .read()
                            .status())
                    .isEqualTo(404);
        }
        assertThat(lineFor("/hls/seg-00004.m4s", "200"))
                .containsEntry("method", "HEAD")
                .containsEntry("bytes", "0")
                .containsEntry("complete", "true");
        assertThat(lineFor("/hls/seg-00004.m4s", "206")).containsEntry("bytes", "100");
        assertThat(lineFor("/no/such.m4s", "404")).containsEntry("method", "GET");
    }

    @Test
    void httpsSaysTheProtocolAndWhetherTheKernelEncrypted() throws Exception {
        Tools.Result r = Tools.run(List.of(
                "curl",
                "-sS",
                "--tlsv1.3",
                "--cacert",
                io.videoedge.server.testing.TestCerts.cert().toString(),
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                "https://localhost:" + edge.httpsPort + "/hls/seg-00005.m4s"));
        assertThat(r.stdout()).as(r.all()).isEqualTo("200");
        Map<String, String> f = lineFor("/hls/seg-00005.m4s", "200");
        assertThat(f)
                .containsEntry("tls", "TLSv1.3")
                .containsEntry("complete", "true")
                .containsEntry("bytes", Long.toString(edge.file("hls/seg-00005.m4s").length));
        // kernel TLS when the server asks for it and this kernel has the tls module (the VM tier), else OpenSSL
        String metrics = edge.metrics();
        boolean kernelEncrypts = metrics.contains("videoedge_ktls_info{kernel=\"available\",requested=\"true\"} 1");
        assertThat(metrics).contains("videoedge_ktls_info{kernel=\"" + KernelTls.kernelSupport() + "\"");
        assertThat(f).containsEntry("ktls", Boolean.toString(kernelEncrypts));
    }

    @Test
    void aClientThatGoesAwayMidBodyIsLoggedAsCutShortWithTheBytesThatLeft() throws Exception {
        long size = edge.file("bench/seg-16m.m4s").length;
        try (Socket s = new Socket()) {
            s.setReceiveBufferSize(64 * 1024); // before connect: the window stays small
            s.connect(new InetSocketAddress("127.0.0.1", edge.httpPort));
            OutputStream out = s.getOutputStream();
            out.write("GET /bench/seg-16m.m4s HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[64 * 1024];
            long got = 0;
            while (got < 256 * 1024) {
                int n = in.read(buf);
                if (n < 0) break;
                got += n;
            }
            s.setSoLinger(true, 0); // reset: the server's next write fails
        }
        Map<String, String> f = lineFor("/bench/seg-16m.m4s", "200");
        assertThat(f).containsEntry("complete", "false");
        assertThat(Long.parseLong(f.get("bytes"))).isGreaterThan(0).isLessThan(size);
    }

    /**
     * A request refused after its head was parsed is logged with its method and path: here the one past
     * limits.maxPipelined (32) queued behind a 16 MiB answer; one refused before (a malformed line) with "-".
     */
    @Test
    void aRequestRefusedAfterItsHeadWasParsedIsLoggedWithItsMethodAndPath() throws Exception {
        StringBuilder requests = new StringBuilder("GET /bench/seg-16m.m4s HTTP/1.1\r\nHost: x\r\n\r\n");
        for (int i = 0; i < 40; i++) {
            requests.append("HEAD /piped/").append(i).append(".m4s HTTP/1.1\r\nHost: x\r\n\r\n");
        }
        try (Socket s = new Socket("127.0.0.1", edge.httpPort)) {
            s.getOutputStream().write(requests.toString().getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            s.getInputStream().transferTo(OutputStream.nullOutputStream()); // to the close after the 429
        }
        // the 16 MiB answer, then 32 queued behind it (inFlight 33), then the 34th request refused
        assertThat(lineFor("/piped/32.m4s", "429")).containsEntry("method", "HEAD");
        assertThat(RawHttp.exchange(edge.httpPort, "GET /refused.m4s HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n")
                        .status())
                .isEqualTo(400);
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(Files.readAllLines(edge.accessLogFile()))
                        .anyMatch(l -> l.contains("\"status\":400,") && l.contains("\"method\":\"-\",\"path\":\"-\"")));
    }

    @Test
    void everyLineIsJsonAndTheMetricCountsThem() throws Exception {
        assertThat(edge.get(edge.http("/index.m3u8")).statusCode()).isEqualTo(200);
        lineFor("/index.m3u8", "200");
        Tools.Result jq = Tools.run(List.of(
                "jq",
                "-e",
                "-s",
                "length > 0 and all(.time and .status and (.bytes | type == \"number\"))",
                edge.accessLogFile().toString()));
        assertThat(jq.exitCode()).as(jq.all()).isZero();
        // every line in the file counted once (lines of the other tests included: one writer, one file)
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(edge.metric("videoedge_access_log_lines_total{result=\"written\"}"))
                        .isEqualTo((double)
                                Files.readAllLines(edge.accessLogFile()).size()));
        assertThat(edge.metric("videoedge_access_log_lines_total{result=\"dropped\"}"))
                .isZero();
        String lines =
                Files.readAllLines(edge.accessLogFile()).stream().limit(3).collect(Collectors.joining("\n"));
        System.out.println("access log, first lines:\n" + lines);
    }
}
