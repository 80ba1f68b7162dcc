package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.LoopbackClients;
import io.videoedge.server.testing.MemoryCgroup;
import io.videoedge.server.testing.TempDirs;
import io.videoedge.server.testing.TestCerts;
import io.videoedge.server.testing.TestData;
import io.videoedge.server.testing.TestOrigin;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The pods the operator renders hold the connections they admit (the JVM flags, buffer pool and
 * limits.maxConnections the operator's ServerMemory gives them, from golden files of its tests), each run
 * in a memory cgroup of its size, as the kubelet would run its container:
 * <ul>
 * <li>testdata/edge-server/small-pod.properties: server.memory 320Mi, the least the CRD admits, with the
 *     largest cache it admits there, 16Mi, and HTTPS (its TLS connections get the native share);
 * <li>testdata/edge-server/plain-pod.properties: 384Mi, plain HTTP, no cache: its connections are bound by
 *     half the heap, which an idle connection takes 2.5 KiB of.
 * </ul>
 * The memory cache is filled from an origin, then all limits.maxConnections connections are opened, each
 * answered once and left idle (timeouts raised so that none is closed while the rest open). The kernel
 * must not kill the server, nor the JVM run out of heap (it exits on an OutOfMemoryError); the next
 * connection is answered 503.
 */
class PodMemoryIT {
    static final int OBJECT = 240 * 1024; // under 256 KiB: enters the memory tier as it is fetched

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"small-pod.properties", "plain-pod.properties"})
    void theRenderedPodHoldsTheConnectionsItAdmits(String file) throws Exception {
        Properties pod = new Properties();
        try (Reader r = Files.newBufferedReader(TestData.dir().resolve(file))) {
            pod.load(r);
        }
        boolean https = Boolean.parseBoolean(pod.getProperty("https"));
        long memory = Long.parseLong(pod.getProperty("memory"));
        long cache = Long.parseLong(pod.getProperty("cache.memory"));
        int maxConnections = Integer.parseInt(pod.getProperty("limits.maxConnections"));
        String[] jvm = pod.getProperty("jvm").split(" ");

        Path disk = TempDirs.create("pod-memory-cache");
        try (TestOrigin origin = new TestOrigin();
                MemoryCgroup cgroup = MemoryCgroup.create("videoedge-pod-memory-it", memory)) {
            int objects = (int) (cache * 5 / 4 / OBJECT);
            for (int i = 0; i < objects; i++) origin.object("/o/" + i + ".m4s", OBJECT);
            origin.object("/o/small.m3u8", 1024);
            EdgeFixture edge = EdgeFixture.startProcess(
                    cgroup.launcher(),
                    """
                    origin:
                      url: %s
                      connectTimeout: 1s
                      readTimeout: 5s
                    cache:
                      memory: %d
                      disk:
                        path: %s
                        size: 64m
                    bufferPool:
                      size: %s
                    limits:
                      maxConnections: %d
                      idleTimeout: 1h
                    keepAlive: 1h
                    """.formatted(origin.url(), cache, disk, pod.getProperty("bufferPool.size"), maxConnections),
                    false,
                    List.of(),
                    jvm);
            List<Socket> open = new ArrayList<>();
            try {
                for (int i = 0; i < objects; i++) {
                    assertThat(edge.get(edge.http("/o/" + i + ".m4s")).statusCode())
                            .isEqualTo(200);
                }
                long cached = cache == 0 ? 0 : gauge(edge.metrics(), "videoedge_cache_memory_used_bytes");
                assertThat(cached).as("bytes in the memory cache").isGreaterThanOrEqualTo(cache * 9 / 10);
                int descriptors = maxConnections + 1000; // the connections, the JVM's own files and the listeners
                assertThat(openFilesLimit(ProcessHandle.current().pid()))
                        .as("this test JVM's limit of open files (ulimit -n), for its client sockets")
                        .isGreaterThan(descriptors);
                assertThat(openFilesLimit(edge.process.pid()))
                        .as("the server's limit of open files (ulimit -n)")
                        .isGreaterThan(descriptors);

                SSLContext tls = TestCerts.trustingContext();
                for (int i = 0; i < maxConnections; i++) {
                    try {
                        Socket s = https
                                ? LoopbackClients.tls(tls, edge.httpsPort, i)
                                : LoopbackClients.plain(edge.httpPort, i);
                        open.add(s);
                        assertThat(status(s))
                                .as("connection %d of %d", i + 1, maxConnections)
                                .isEqualTo(200);
                    } catch (IOException e) {
                        throw new AssertionError(
                                "connection %d of %d: %s; the server process %s, OOM kills in the pod's cgroup: %d"
                                        .formatted(
                                                i + 1,
                                                maxConnections,
                                                e,
                                                edge.process.isAlive() ? "runs" : "is gone",
                                                cgroup.oomKills()),
                                e);
                    }
                }
                Socket over = https
                        ? LoopbackClients.tls(tls, edge.httpsPort, maxConnections)
                        : LoopbackClients.plain(edge.httpPort, maxConnections);
                assertThat(status(over))
                        .as("the connection past limits.maxConnections")
                        .isEqualTo(503);
                Thread.sleep(1000);

                System.out.printf(
                        "pod of %d MiB (%s, ready %.1f s after java started): %d %s connections and %d MiB in the"
                                + " memory cache; charged now %d MiB (anonymous and kernel %d MiB), at most %d MiB;"
                                + " OOM kills %d%n",
                        memory >> 20,
                        cgroup.hierarchy(),
                        edge.readyAfter.toMillis() / 1000.0,
                        maxConnections,
                        https ? "TLS" : "plain",
                        cached >> 20,
                        cgroup.usageBytes() >> 20,
                        cgroup.unreclaimableBytes() >> 20,
                        cgroup.peakBytes() >> 20,
                        cgroup.oomKills());
                assertThat(cgroup.oomKills())
                        .as("OOM kills in the pod's cgroup")
                        .isZero();
                assertThat(edge.process.isAlive()).as("the server process").isTrue();
                // and it goes on serving once connections leave
                over.close();
                open.removeLast().close();
                org.awaitility.Awaitility.await("a request answered after a connection closed")
                        .atMost(java.time.Duration.ofSeconds(10))
                        .until(() -> edge.get(edge.http("/o/small.m3u8")).statusCode() == 200);
            } finally {
                for (Socket s : open) s.close();
                edge.close();
            }
        }
    }

    private static final Pattern LENGTH = Pattern.compile("(?im)^content-length:\\s*(\\d+)");

    /** The soft limit of open files of a process ({@code Max open files} in /proc/PID/limits). */
    private static long openFilesLimit(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/limits"))) {
            if (line.startsWith("Max open files")) {
                String soft = line.substring("Max open files".length()).strip().split("\\s+")[0];
                return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
            }
        }
        throw new IllegalStateException("no open files limit in /proc/" + pid + "/limits");
    }

    /** One request on the connection; its status, the whole response read (the connection stays open). */
    private static int status(Socket s) throws IOException {
        s.getOutputStream()
                .write("GET /o/small.m3u8 HTTP/1.1\r\nHost: edge\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        // buffered: a plain socket's stream reads with a system call per byte otherwise; the response
        // is all the server sends, so nothing of a later one is read ahead
        InputStream in = new java.io.BufferedInputStream(s.getInputStream(), 1024);
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) throw new IOException("closed after " + head.toString(StandardCharsets.ISO_8859_1));
            head.write(b);
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        Matcher m = LENGTH.matcher(text);
        if (m.find()) in.readNBytes(Integer.parseInt(m.group(1)));
        return Integer.parseInt(text.substring(9, 12));
    }

    private static long gauge(String metrics, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + "(\\{[^}]*})? (\\S+)").matcher(metrics);
        if (!m.find()) throw new AssertionError(name + " not in the metrics");
        return (long) Double.parseDouble(m.group(2));
    }
}
