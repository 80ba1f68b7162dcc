package io.videoedge.server.chaos;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.TempDirs;
import io.videoedge.server.testing.TestCerts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The real thing on loopback: the edge server as its own JVM (EdgeServerMain, the production JVM flags
 * of scripts/jvm-flags.sh), its generated sample content, a disk cache, and a {@link FaultyOrigin}
 * in front of which it caches. The config is the golden rendering made local ({@link EdgeFixture}).
 */
final class Rig implements AutoCloseable {
    static final String PROBE_OBJECT = "/o/probe-200k.m4s";

    final FaultyOrigin origin;
    final Path cacheDir;
    final EdgeFixture edge;
    final HttpClient client;
    final HttpClient tlsClient;

    Rig(String extraYaml, List<String> programArgs) throws Exception {
        origin = new FaultyOrigin();
        cacheDir = TempDirs.create("edge-chaos-cache");
        String heap = env("EDGE_HEAP", "256m");
        String direct = env("EDGE_MAX_DIRECT", "256m");
        edge = EdgeFixture.startProcess(
                """
                origin:
                  url: %s
                  connectTimeout: 1s
                  readTimeout: 3s
                  maxConnections: 32
                cache:
                  memory: 32m
                  memoryMaxObject: 1m
                  disk:
                    path: %s
                    size: 512m
                bufferPool:
                  size: 64m
                limits:
                  maxConnections: 30000
                drainTimeout: 5s
                %s""".formatted(origin.url(), cacheDir, extraYaml),
                true,
                programArgs,
                "-Xms" + heap,
                "-Xmx" + heap,
                "-XX:+UseParallelGC",
                // the heap's pages touched at start: RSS that grows later is not the heap filling for
                // the first time (a leak shows; with the production flags the first minutes would hide it)
                "-XX:+AlwaysPreTouch",
                "-XX:MaxDirectMemorySize=" + direct,
                "-Djdk.nio.maxCachedBufferSize=65536");
        client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        tlsClient = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .sslContext(TestCerts.trustingContext())
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }

    static int envInt(String name, int fallback) {
        return Integer.parseInt(env(name, Integer.toString(fallback)));
    }

    /** What the probe asks for: a manifest and a segment from the content root, and an object the cache holds. */
    Map<String, byte[]> probeTargets() throws IOException {
        Map<String, byte[]> m = new LinkedHashMap<>();
        m.put("/hls/playlist.m3u8", edge.file("hls/playlist.m3u8"));
        m.put("/hls/seg-00001.m4s", edge.file("hls/seg-00001.m4s"));
        m.put(PROBE_OBJECT, FaultyOrigin.body(PROBE_OBJECT, 0));
        return m;
    }

    URI http(String path) {
        return edge.http(path);
    }

    HttpResponse<byte[]> get(URI uri) throws IOException, InterruptedException {
        return (uri.getScheme().equals("https") ? tlsClient : client)
                .send(
                        HttpRequest.newBuilder(uri)
                                .timeout(Duration.ofSeconds(30))
                                .build(),
                        HttpResponse.BodyHandlers.ofByteArray());
    }

    @Override
    public void close() throws IOException {
        try {
            edge.close();
        } finally {
            origin.close();
            TempDirs.remove(cacheDir);
        }
    }
}
