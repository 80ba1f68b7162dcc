package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.videoedge.server.config.ConfigLoader;
import io.videoedge.server.cpu.SelectorPinning;
import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.FreePorts;
import io.videoedge.server.testing.OpenSsl;
import io.videoedge.server.testing.RawHttp;
import io.videoedge.server.testing.Tools;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Live reconfiguration against a real server on loopback that watches its config file laid out as a
 * ConfigMap volume, replaced the way the kubelet replaces it (atomic rename of the ..data symlink).
 * Socket options are checked three ways: admin /sockets (getsockopt through one-nio), the kernel's own
 * view ({@code ss -tm}: skmem tb is SO_SNDBUF as the kernel holds it, twice the value set), and
 * behaviour (an old download keeps going and completes intact).
 */
class LiveReconfigureIT {
    private static final String HTTP_SOCKET = "  recvBuf: 64k\n  sendBuf: 4m\n  backlog: 1024\n  notsentLowat: 512k\n";
    private static final Duration POLL = Duration.ofMillis(200);

    EdgeFixture edge;

    @AfterEach
    void stop() throws Exception {
        if (edge != null) edge.close();
    }

    /** The fixture's config with the HTTP acceptor at sendBuf 64k, recvBuf 64k, notsentLowat 128k. */
    private void start(boolean benchSizes) throws Exception {
        edge = EdgeFixture.startWatched(
                text -> replaceOnce(text, HTTP_SOCKET, socket("64k", "64k", "128k")), benchSizes, POLL);
    }

    private static String socket(String recvBuf, String sendBuf, String notsentLowat) {
        return "  recvBuf: " + recvBuf + "\n  sendBuf: " + sendBuf + "\n  backlog: 1024\n  notsentLowat: "
                + notsentLowat + "\n";
    }

    @Test
    void liveSocketOptionsReachNewConnectionsWhileAnOldDownloadContinues() throws Exception {
        start(true);
        String before = Files.readString(edge.configFile());
        EdgeServer server = edge.service.server();
        Set<Thread> selectorThreads = selectorThreads();
        List<SelectorPinning.Observed> pinning = SelectorPinning.observe();
        assertThat(selectorThreads).hasSize(2);
        assertThat(edge.metrics()).contains("videoedge_config_info{checksum=\"" + sha256(before) + "\"} 1");
        Path ticketSession = edge.dir.resolve("tls-session.pem");
        assertThat(sClient("-sess_out", ticketSession.toString()).all())
                .contains("New, ")
                .contains("HTTP/1.1 200 OK");

        byte[] expected = edge.file("bench/seg-16m.m4s");
        try (SlowDownload old = new SlowDownload(edge.httpPort, "/bench/seg-16m.m4s")) {
            await("the old download is under way")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> old.received.get() > 256 * 1024);
            Map<String, String> oldBefore = session(old.clientPort());
            assertThat(oldBefore)
                    .containsEntry("sendBuf", "65536")
                    .containsEntry("sendBufKernel", "131072")
                    .containsEntry("notsentLowat", "131072")
                    .containsEntry("recvBuf", "65536");
            assertThat(ssSendBuffer(edge.httpPort, old.clientPort())).isEqualTo(131072);

            String after = replaceOnce(before, socket("64k", "64k", "128k"), socket("96k", "96k", "256k"));
            edge.swapConfig(after);
            await("the watcher applied the change")
                    .atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(edge.metric("videoedge_config_reloads_total{result=\"applied\"}"))
                            .isEqualTo(1));

            // the listener has the new options
            assertThat(listener(edge.httpPort))
                    .containsEntry("sendBuf", "98304")
                    .containsEntry("recvBuf", "98304")
                    .containsEntry("notsentLowat", "262144");
            // a new connection inherits them: getsockopt through /sockets and the kernel's own view
            try (RawHttp fresh = new RawHttp(edge.httpPort)) {
                assertThat(fresh.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                                .read()
                                .status())
                        .isEqualTo(200);
                assertThat(session(fresh.localPort()))
                        .containsEntry("sendBuf", "98304")
                        .containsEntry("sendBufKernel", "196608")
                        .containsEntry("recvBuf", "98304")
                        .containsEntry("notsentLowat", "262144");
                assertThat(ssSendBuffer(edge.httpPort, fresh.localPort())).isEqualTo(196608);
            }
            // the old connection keeps its own, and is still sending
            assertThat(session(old.clientPort()))
                    .containsEntry("sendBuf", "65536")
                    .containsEntry("notsentLowat", "131072");
            assertThat(ssSendBuffer(edge.httpPort, old.clientPort())).isEqualTo(131072);
            assertThat(old.received.get())
                    .as("the old download is still in progress")
                    .isLessThan(expected.length);
            assertThat(old.done.isDone()).isFalse();

            // the same server: same instance, same pinned selector threads, nothing pending
            assertThat(edge.service.server()).isSameAs(server);
            assertThat(selectorThreads()).isEqualTo(selectorThreads);
            assertThat(SelectorPinning.observe()).isEqualTo(pinning);
            assertThat(edge.gauge("videoedge_selectors")).isEqualTo(2);
            assertThat(edge.gauge("videoedge_config_restart_required")).isZero();
            assertThat(edge.metrics())
                    .contains("videoedge_config_info{checksum=\"" + sha256(after) + "\"} 1")
                    .doesNotContain("videoedge_config_info{checksum=\"" + sha256(before) + "\"}");

            // TLS still works after its listener was reconfigured, and the ticket keys are the same
            Tools.Result resumed = sClient("-sess_in", ticketSession.toString());
            assertThat(resumed.all()).contains("Reused, ").contains("HTTP/1.1 200 OK");

            old.finish();
            byte[] body = old.done.get(120, TimeUnit.SECONDS);
            assertThat(body.length).isEqualTo(expected.length);
            assertThat(sha256(body)).as("the old download is intact").isEqualTo(sha256(expected));
        }
        assertThat(edge.metric("videoedge_config_reloads_total{result=\"restart_required\"}"))
                .isZero();
        assertThat(edge.metric("videoedge_config_reloads_total{result=\"invalid\"}"))
                .isZero();
    }

    @Test
    void aChangeOutsideTheLiveSetAppliesNothingAndSaysARestartIsNeeded() throws Exception {
        start(false);
        String running = Files.readString(edge.configFile());
        int otherPort = FreePorts.distinct(1)[0];
        // a live field and a port together: not even the live part may be applied
        String pending = replaceOnce(
                replaceOnce(running, socket("64k", "64k", "128k"), socket("64k", "96k", "128k")),
                "port: " + edge.httpsPort + "\n",
                "port: " + otherPort + "\n");
        edge.swapConfig(pending);
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> assertThat(edge.metric("videoedge_config_reloads_total{result=\"restart_required\"}"))
                                .isEqualTo(1));

        assertThat(edge.gauge("videoedge_config_restart_required")).isEqualTo(1);
        assertThat(edge.metric("videoedge_config_reloads_total{result=\"applied\"}"))
                .isZero();
        assertThat(edge.metrics()).contains("videoedge_config_info{checksum=\"" + sha256(running) + "\"} 1");
        assertThat(listener(edge.httpPort)).containsEntry("sendBuf", "65536");
        assertThatThrownBy(() -> new Socket("127.0.0.1", otherPort).close()).isInstanceOf(ConnectException.class);
        assertThat(edge.get(edge.https("/index.m3u8")).statusCode()).isEqualTo(200);
        assertThat(edge.service.reloader().check().result())
                .as("the same file is not looked at twice")
                .isNull();

        // the next file that only changes live fields is applied, and nothing is pending any more
        String liveOnly = replaceOnce(running, socket("64k", "64k", "128k"), socket("64k", "96k", "128k"));
        edge.swapConfig(liveOnly);
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(edge.metric("videoedge_config_reloads_total{result=\"applied\"}"))
                        .isEqualTo(1));
        assertThat(edge.gauge("videoedge_config_restart_required")).isZero();
        assertThat(listener(edge.httpPort)).containsEntry("sendBuf", "98304");
        assertThat(edge.metrics()).contains("videoedge_config_info{checksum=\"" + sha256(liveOnly) + "\"} 1");
    }

    @Test
    void anInvalidFileIsIgnoredAndTheServerKeepsServing() throws Exception {
        start(false);
        String running = Files.readString(edge.configFile());

        edge.swapConfig(replaceOnce(running, socket("64k", "64k", "128k"), socket("64k", "lots", "128k")));
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(edge.metric("videoedge_config_reloads_total{result=\"invalid\"}"))
                        .isEqualTo(1));
        assertThat(edge.gauge("videoedge_config_invalid")).isEqualTo(1);
        assertThat(edge.gauge("videoedge_config_restart_required")).isZero();
        assertThat(edge.metrics()).contains("videoedge_config_info{checksum=\"" + sha256(running) + "\"} 1");
        assertThat(edge.get(edge.http("/index.m3u8")).statusCode()).isEqualTo(200);
        assertThat(listener(edge.httpPort)).containsEntry("sendBuf", "65536");

        // the same validation as at start, files included: a content root that does not exist
        edge.swapConfig(replaceOnce(running, "root: " + edge.content, "root: " + edge.dir.resolve("missing")));
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(edge.metric("videoedge_config_reloads_total{result=\"invalid\"}"))
                        .isEqualTo(2));
        assertThat(edge.get(edge.http("/index.m3u8")).statusCode()).isEqualTo(200);

        // back to the running settings with a comment: the text changed, the settings did not
        String commented = "# rendered again\n" + running;
        edge.swapConfig(commented);
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(edge.metric("videoedge_config_reloads_total{result=\"unchanged\"}"))
                        .isEqualTo(1));
        assertThat(edge.gauge("videoedge_config_invalid")).isZero();
        assertThat(edge.metrics()).contains("videoedge_config_info{checksum=\"" + sha256(commented) + "\"} 1");

        // the same content again (a new file, a new mtime): not a change
        edge.swapConfig(commented);
        assertThat(edge.service.reloader().check().result()).isNull();
        assertThat(edge.metric("videoedge_config_reloads_total{result=\"unchanged\"}"))
                .isEqualTo(1);
        assertThat(edge.metric("videoedge_config_reloads_total{result=\"applied\"}"))
                .isZero();
    }

    @Test
    void keepAliveAndLimitsApplyLive() throws Exception {
        start(true);
        String running = Files.readString(edge.configFile());
        String longTarget = "/missing?" + "q".repeat(1500); // within maxUriLength 2k, over 1k
        String bigHeader = "X-Pad: " + "p".repeat(5000) + "\r\n"; // within maxHeaderSize 8k, over 4k
        try (RawHttp old = new RawHttp(edge.httpPort)) {
            assertThat(old.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                            .read()
                            .status())
                    .isEqualTo(200);

            String limits =
                    "limits:\n  maxUriLength: 2k\n  maxConnections: 1000\n"; // maxHeaderSize 8k, idleTimeout 60s:
            // defaults
            edge.swapConfig(replaceOnce(
                    replaceOnce(running, "keepAlive: 2m", "keepAlive: 2s"),
                    limits,
                    "limits:\n  maxHeaderSize: 4k\n  maxUriLength: 1k\n  maxConnections: 1000\n  idleTimeout: 1s\n"));
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(edge.metric("videoedge_config_reloads_total{result=\"applied\"}"))
                            .isEqualTo(1));

            // limits are read at accept: the open connection keeps its own, a new one gets the new ones
            assertThat(old.send("GET " + longTarget + " HTTP/1.1\r\nHost: x\r\n" + bigHeader + "\r\n")
                            .read()
                            .status())
                    .isEqualTo(404);
            assertThat(RawHttp.exchange(edge.httpPort, "GET " + longTarget + " HTTP/1.1\r\nHost: x\r\n\r\n")
                            .status())
                    .isEqualTo(414);
            assertThat(RawHttp.exchange(edge.httpPort, "GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n" + bigHeader + "\r\n")
                            .status())
                    .isEqualTo(431);

            // idleTimeout 1s: a new connection whose response makes no progress (the client does not read) is dropped
            try (Socket stalled = stalledDownload()) {
                int port = stalled.getLocalPort();
                await("the stalled connection is listed")
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> hasSession(port));
                await("the stalled connection is dropped after the new idleTimeout")
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> !hasSession(port));
            }

            // keepAlive 2s, for every connection: the old idle one is closed by the server (it had 120s)
            assertThat(old.closedByServer()).isTrue();
        }

        // maxConnections is read on every accept
        String now = Files.readString(edge.configFile());
        edge.swapConfig(replaceOnce(now, "maxConnections: 1000", "maxConnections: 1"));
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(edge.metric("videoedge_config_reloads_total{result=\"applied\"}"))
                        .isEqualTo(2));
        await("the connections of the first part are gone")
                .atMost(Duration.ofSeconds(30))
                .until(() -> edge.gauge("videoedge_connections") == 0);
        double rejected = edge.gauge("videoedge_connections_rejected_total");
        try (RawHttp first = new RawHttp(edge.httpPort)) {
            assertThat(first.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                            .read()
                            .status())
                    .isEqualTo(200);
            assertThat(RawHttp.exchange(edge.httpPort, "GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                            .status())
                    .isEqualTo(503);
            assertThat(edge.gauge("videoedge_connections_rejected_total")).isEqualTo(rejected + 1);
        }
        assertThat(edge.gauge("videoedge_config_restart_required")).isZero();
    }

    /**
     * The defences of issue 19 are read when a connection is accepted (the guard thread reads the
     * running limits on every sweep), so a new file reaches new connections without a restart. Each one
     * is shown by the refusal it makes, counted by reason, on a connection opened after the change; a
     * connection opened before keeps the limits it started with (no request rate cap).
     */
    @Test
    void theDefencesApplyLive() throws Exception {
        start(true);
        String running = Files.readString(edge.configFile());
        try (RawHttp old = new RawHttp(edge.httpPort)) {
            assertThat(old.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                            .read()
                            .status())
                    .isEqualTo(200);
            edge.swapConfig(replaceOnce(running, "limits:\n  maxUriLength: 2k\n  maxConnections: 1000\n", """
                    limits:
                      maxUriLength: 2k
                      maxConnections: 1000
                      headerTimeout: 1s
                      handshakeTimeout: 1s
                      maxConnectionsPerAddress: 8
                      minSendBytes: 1m
                      minSendPeriod: 1s
                      maxPipelined: 1
                      maxRequestRate: 1
                      requestBurst: 3
                    """));
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(edge.metric("videoedge_config_reloads_total{result=\"applied\"}"))
                            .isEqualTo(1));
            assertThat(edge.gauge("videoedge_config_restart_required")).isZero();

            // maxPipelined 1: three 16 MiB requests sent at once on a new connection that does not read:
            // the first is being answered, one may wait behind it, the third is refused
            double pipeline = refused("pipeline");
            try (RawHttp piped = new RawHttp(edge.httpPort)) {
                piped.send("GET /bench/seg-16m.m4s HTTP/1.1\r\nHost: x\r\n\r\n".repeat(3));
                await().atMost(Duration.ofSeconds(10)).until(() -> refused("pipeline") == pipeline + 1);
            }

            // maxRequestRate 1 with bursts of 3, per address: requests at once are refused (429, Retry-After)
            // after at most 3 (fewer if the bucket is not full yet); the connection opened before has no
            // rate cap and keeps being answered
            try (RawHttp fresh = new RawHttp(edge.httpPort)) {
                int answered = 0;
                RawHttp.Response r;
                while ((r = fresh.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                                                .read())
                                        .status()
                                == 200
                        && answered < 10) {
                    answered++;
                }
                assertThat(r.status()).isEqualTo(429);
                assertThat(r.header("Retry-After")).isNotNull();
                assertThat(answered).isLessThanOrEqualTo(3);
            }
            for (int i = 0; i < 5; i++) {
                assertThat(old.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                                .read()
                                .status())
                        .as("old connection, request %d", i)
                        .isEqualTo(200);
            }

            // headerTimeout 1s: a head trickling a line every 300 ms (each byte would reset an idle timeout)
            double header = refused("header_timeout");
            try (RawHttp trickle = new RawHttp(edge.httpPort)) {
                trickle.send("GET /index.m3u8 HTTP/1.1\r\n");
                for (int i = 0; i < 20 && refused("header_timeout") == header; i++) {
                    Thread.sleep(300);
                    try {
                        trickle.send("X-Line-" + i + ": 1\r\n");
                    } catch (IOException closed) {
                        break;
                    }
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> refused("header_timeout") == header + 1);
                assertThat(trickle.closedByServer()).isTrue();
            }

            // handshakeTimeout 1s: a TCP connection to the TLS port that never says hello is closed well
            // before the 10 s it had before the reload (the guard sweeps every 250 ms now)
            double handshake = refused("handshake_timeout");
            try (Socket silent = new Socket("127.0.0.1", edge.httpsPort)) {
                silent.setSoTimeout(6_000);
                assertThat(silent.getInputStream().read())
                        .as("closed by the server")
                        .isEqualTo(-1);
            }
            assertThat(refused("handshake_timeout")).isEqualTo(handshake + 1);

            // minSendBytes 1m per minSendPeriod 1s: a client that stops reading a 16 MiB body is dropped
            double slow = refused("slow_reader");
            try (Socket stalled = stalledDownload()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> refused("slow_reader") == slow + 1);
            }

            // maxConnectionsPerAddress 8: with the old one open, more than 7 new ones from 127.0.0.1 are refused
            await("the connections above are gone")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> edge.gauge("videoedge_connections") == 1);
            double perAddress = refused("per_address");
            List<RawHttp> many = new ArrayList<>();
            try {
                for (int i = 0; i < 9; i++) many.add(new RawHttp(edge.httpPort));
                await().atMost(Duration.ofSeconds(10)).until(() -> refused("per_address") == perAddress + 2);
            } finally {
                for (RawHttp c : many) c.close();
            }
        }
    }

    /** A new connection with a small receive buffer that asks for a 16 MiB segment and never reads. */
    private Socket stalledDownload() throws IOException {
        Socket stalled = new Socket();
        stalled.setReceiveBufferSize(16 * 1024);
        stalled.connect(new InetSocketAddress("127.0.0.1", edge.httpPort));
        stalled.getOutputStream()
                .write("GET /bench/seg-16m.m4s HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return stalled;
    }

    private double refused(String reason) throws IOException, InterruptedException {
        return edge.metric("videoedge_connections_refused_total{reason=\"" + reason + "\"}");
    }

    /** multiAcceptor: false (one-nio's DefaultAcceptor, a thread per listener) is read back and reconfigured the same way. */
    @Test
    void withoutMultiAcceptorToo() throws Exception {
        edge = EdgeFixture.startWatched(
                text -> replaceOnce(
                        replaceOnce(text, HTTP_SOCKET, socket("64k", "64k", "128k")),
                        "multiAcceptor: true",
                        "multiAcceptor: false"),
                false,
                POLL);
        assertThat(listener(edge.httpPort)).containsEntry("sendBuf", "65536").containsEntry("notsentLowat", "131072");
        assertThat(listener(edge.httpsPort)).containsEntry("tls", "true");
        edge.swapConfig(replaceOnce(
                Files.readString(edge.configFile()), socket("64k", "64k", "128k"), socket("64k", "96k", "256k")));
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(edge.metric("videoedge_config_reloads_total{result=\"applied\"}"))
                        .isEqualTo(1));
        assertThat(listener(edge.httpPort)).containsEntry("sendBuf", "98304").containsEntry("notsentLowat", "262144");
        try (RawHttp fresh = new RawHttp(edge.httpPort)) {
            assertThat(fresh.send("GET /index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n")
                            .read()
                            .status())
                    .isEqualTo(200);
            assertThat(session(fresh.localPort()))
                    .containsEntry("sendBuf", "98304")
                    .containsEntry("notsentLowat", "262144");
            assertThat(ssSendBuffer(edge.httpPort, fresh.localPort())).isEqualTo(196608);
        }
        assertThat(edge.get(edge.https("/index.m3u8")).statusCode()).isEqualTo(200);
    }

    // ---- helpers ----

    /** A client that reads a large response slowly (16 KiB every 10 ms) until told to finish, then reads the rest. */
    private static final class SlowDownload implements AutoCloseable {
        final Socket socket = new Socket();
        final AtomicLong received = new AtomicLong();
        final AtomicBoolean fast = new AtomicBoolean();
        final CompletableFuture<byte[]> done = new CompletableFuture<>();

        SlowDownload(int port, String path) throws IOException {
            socket.setReceiveBufferSize(16 * 1024); // the response cannot be buffered away on the client side
            socket.connect(new InetSocketAddress("127.0.0.1", port));
            socket.setSoTimeout(60_000);
            socket.getOutputStream()
                    .write(("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            Thread.ofPlatform().daemon().name("slow-download").start(this::run);
        }

        int clientPort() {
            return socket.getLocalPort();
        }

        void finish() {
            fast.set(true);
        }

        private void run() {
            try {
                InputStream in = socket.getInputStream();
                String head = readHead(in);
                if (!head.startsWith("HTTP/1.1 200")) throw new IOException("unexpected response: " + head);
                java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream(16 << 20);
                byte[] buf = new byte[16 * 1024];
                for (int n; (n = in.read(buf)) >= 0; ) {
                    body.write(buf, 0, n);
                    received.addAndGet(n);
                    if (!fast.get()) Thread.sleep(10);
                }
                done.complete(body.toByteArray());
            } catch (Exception e) {
                done.completeExceptionally(e);
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        while (!sb.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) break;
            sb.append((char) c);
        }
        return sb.toString();
    }

    private Tools.Result sClient(String... extra) throws IOException {
        Path request = edge.dir.resolve("request.txt");
        Files.writeString(request, "GET /index.m3u8 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        List<String> args = new ArrayList<>(List.of("-tls1_3"));
        args.addAll(List.of(extra));
        return OpenSsl.sClient(edge.httpsPort, request, args.toArray(String[]::new));
    }

    private static Set<Thread> selectorThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("edge-sel-"))
                .collect(Collectors.toSet());
    }

    // /sockets: one JSON object per line for each socket
    private static final Pattern ITEM = Pattern.compile("^\\{\"local\"[^}]*}", Pattern.MULTILINE);
    private static final Pattern FIELD = Pattern.compile("\"(\\w+)\":(\"[^\"]*\"|null|true|false|-?\\d+)");

    private List<Map<String, String>> sockets(String section) throws Exception {
        String json = new String(edge.get(edge.admin("/sockets")).body(), StandardCharsets.UTF_8);
        int sessions = json.indexOf("\"sessions\"");
        assertThat(sessions).as(json).isPositive();
        String part = section.equals("listening") ? json.substring(0, sessions) : json.substring(sessions);
        List<Map<String, String>> items = new ArrayList<>();
        Matcher m = ITEM.matcher(part);
        while (m.find()) {
            Map<String, String> item = new LinkedHashMap<>();
            Matcher f = FIELD.matcher(m.group());
            while (f.find()) item.put(f.group(1), f.group(2).replace("\"", ""));
            items.add(item);
        }
        return items;
    }

    private Map<String, String> listener(int port) throws Exception {
        List<Map<String, String>> found = sockets("listening").stream()
                .filter(s -> s.get("localPort").equals(Integer.toString(port)))
                .toList();
        assertThat(found).as("one listening socket on %d", port).hasSize(1);
        return found.get(0);
    }

    private Map<String, String> session(int clientPort) throws Exception {
        List<Map<String, String>> found = sockets("sessions").stream()
                .filter(s -> s.get("remote").endsWith(":" + clientPort))
                .toList();
        assertThat(found).as("the connection from client port %d", clientPort).hasSize(1);
        return found.get(0);
    }

    private boolean hasSession(int clientPort) throws Exception {
        return sockets("sessions").stream().anyMatch(s -> s.get("remote").endsWith(":" + clientPort));
    }

    /** SO_SNDBUF of the server side of a loopback connection as the kernel reports it (ss skmem tb). */
    private static int ssSendBuffer(int serverPort, int clientPort) {
        Tools.Result r = Tools.run(List.of(
                "ss",
                "-tmnH",
                "state",
                "established",
                "( sport = :" + serverPort + " and dport = :" + clientPort + " )"));
        assertThat(r.exitCode()).as(r.all()).isZero();
        Matcher m = Pattern.compile("tb(\\d+)").matcher(r.stdout());
        assertThat(m.find()).as("skmem in: %s", r.stdout()).isTrue();
        int tb = Integer.parseInt(m.group(1));
        assertThat(m.find()).as("one connection in: %s", r.stdout()).isFalse();
        return tb;
    }

    private static String replaceOnce(String text, String from, String to) {
        int at = text.indexOf(from);
        assertThat(at).as("'%s' in the config", from).isNotNegative();
        assertThat(text.indexOf(from, at + 1)).as("'%s' only once", from).isNegative();
        return text.substring(0, at) + to + text.substring(at + from.length());
    }

    private static String sha256(String text) {
        return ConfigLoader.sha256(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}
