package io.videoedge.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeSpec;
import io.videoedge.operator.testing.TestFiles;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ServerMemoryTest {
    private static final long MI = 1024L * 1024;

    /** examples/videoedge.yaml (HTTPS on) with this memory and cache, and an origin of this many connections (0: none). */
    static VideoEdgeSpec spec(String memory, String cache, boolean https, int originConnections) {
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
        @SuppressWarnings("unchecked")
        Map<String, Object> tree = Serialization.unmarshal(Serialization.asJson(ve), Map.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> server = (Map<String, Object>) ((Map<String, Object>) tree.get("spec")).get("server");
        server.put("memory", memory);
        @SuppressWarnings("unchecked")
        Map<String, Object> cacheSpec = (Map<String, Object>) server.get("cache");
        cacheSpec.put("memory", cache);
        if (originConnections > 0) {
            server.put(
                    "origin",
                    Map.of(
                            "url",
                            "http://origin:8080",
                            "connectTimeout",
                            "1s",
                            "readTimeout",
                            "10s",
                            "maxConnections",
                            originConnections));
        }
        if (!https) {
            @SuppressWarnings("unchecked")
            Map<String, Object> tls = (Map<String, Object>) ((Map<String, Object>) tree.get("spec")).get("tls");
            tls.put("mode", "none");
        }
        return Serialization.unmarshal(Serialization.asJson(tree), VideoEdge.class)
                .getSpec();
    }

    @ParameterizedTest(name = "{0} with a {1} cache, https {2}: {3} connections")
    @CsvSource({
        // the example: 576Mi of direct memory, 32Mi pool, 128Mi cache, 32Mi native share: 448Mi / 20 KiB
        "1Gi, 128Mi, true, 22900",
        // plain: 448Mi / 4 KiB is more than half the 256Mi heap holds at 3 KiB each
        "1Gi, 128Mi, false, 43600",
        // 192Mi direct - 32Mi pool - 128Mi cache + 32Mi: 64Mi / 20 KiB
        "512Mi, 128Mi, true, 3200",
        // the smallest pod the CRD admits, its cache as large as it may be: the native share alone
        "320Mi, 16Mi, true, 1600",
        // the server's own cap
        "64Gi, 0, false, 100000",
    })
    void connectionsGetWhatTheHeapTheBufferPoolAndTheCacheLeave(String memory, String cache, boolean https, int max) {
        ServerMemory m = ServerMemory.of(spec(memory, cache, https, 0));
        assertThat(m.problem()).isEmpty();
        assertThat(m.maxConnections()).isEqualTo(max);
        assertThat(EdgeServerConfigRenderer.config(spec(memory, cache, https, 0)).limits.maxConnections)
                .isEqualTo(max);
    }

    @Test
    void theBudgetNeverExceedsThePodMemory() {
        for (String memory : new String[] {"320Mi", "512Mi", "1Gi", "3Gi", "20Gi"}) {
            for (boolean https : new boolean[] {true, false}) {
                ServerMemory m = ServerMemory.of(spec(memory, "16Mi", https, 64));
                long perConnection =
                        https ? ServerMemory.OFF_HEAP_PER_TLS_CONNECTION : ServerMemory.OFF_HEAP_PER_PLAIN_CONNECTION;
                long used = m.jvm().heapBytes()
                        + JvmOptions.NATIVE_ALLOWANCE
                        - ServerMemory.NATIVE_FOR_CONNECTIONS
                        + m.bufferPoolBytes()
                        + m.cacheBytes()
                        + m.maxConnections() * perConnection;
                assertThat(used).as(memory + " https " + https).isLessThanOrEqualTo(Quantities.bytes(memory));
                assertThat(m.maxConnections() * ServerMemory.HEAP_PER_CONNECTION)
                        .isLessThanOrEqualTo(m.jvm().heapBytes() / 2);
            }
        }
    }

    @Test
    void theBufferPoolGrowsWithTheOriginsConnectionsAndTakesFromTheCachesRoom() {
        assertThat(ServerMemory.of(spec("1Gi", "128Mi", true, 0)).bufferPoolBytes())
                .isEqualTo(32 * MI);
        assertThat(ServerMemory.of(spec("1Gi", "128Mi", true, 248)).bufferPoolBytes())
                .isEqualTo(32 * MI);
        assertThat(ServerMemory.of(spec("1Gi", "128Mi", true, 249)).bufferPoolBytes())
                .isEqualTo(257 * 128 * 1024L);
        // 1Gi: 576Mi direct; the minimum pool leaves 544Mi for the cache, 1,000 origin connections (126Mi) 450Mi
        assertThat(ServerMemory.of(spec("1Gi", "544Mi", true, 64)).problem()).isEmpty();
        assertThat(ServerMemory.of(spec("1Gi", "545Mi", true, 64)).problem())
                .hasValueSatisfying(p -> assertThat(p)
                        .contains("server.cache.memory (545m) does not fit in server.memory")
                        .contains("at least 1025Mi"));
        assertThat(ServerMemory.of(spec("1Gi", "450Mi", true, 1000)).problem()).isEmpty();
        assertThat(ServerMemory.of(spec("1Gi", "451Mi", true, 1000)).problem())
                .hasValueSatisfying(p -> assertThat(p).contains("the I/O buffer pool 126m"));
        // an origin of 65535 connections wants an 8Gi pool: refused, not a server that cannot start
        assertThat(ServerMemory.of(spec("1Gi", "0", true, 65535)).problem())
                .hasValueSatisfying(p ->
                        assertThat(p).contains("the I/O buffer pool 8389504k").contains("at least 8641Mi"));
    }

    /**
     * The golden files the edge server's PodMemoryIT runs in a memory cgroup of their size, with their
     * connections all open: the smallest pod the CRD admits (320Mi) with the largest cache it admits there
     * (16Mi), HTTPS, whose connections get nothing but the native share; and a plain pod without a cache
     * whose connections are bound by half its heap (16,300: within the 20,000 descriptors a process may
     * have on the build machines).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "small-pod.properties, 320Mi, 16Mi, true, the native share",
        "plain-pod.properties, 384Mi, 0, false, half the heap",
    })
    void podsRenderToTheGoldenFilesTheirMemoryTestRuns(
            String file, String memory, String cache, boolean https, String bound) {
        VideoEdgeSpec spec = spec(memory, cache, https, 0);
        ServerMemory m = ServerMemory.of(spec);
        long byHeap = m.jvm().heapBytes() / 2 / ServerMemory.HEAP_PER_CONNECTION;
        long byOffHeap = m.offHeapForConnections()
                / (https ? ServerMemory.OFF_HEAP_PER_TLS_CONNECTION : ServerMemory.OFF_HEAP_PER_PLAIN_CONNECTION);
        assertThat(byHeap < byOffHeap).as("connections bound by the heap").isEqualTo(!https);
        String rendered = """
                # What the operator renders for examples/videoedge.yaml with server.memory %s and cache.memory %s
                # (HTTPS %s, no origin; the connections are bound by %s): edge-server's PodMemoryIT runs
                # the server with it in a memory cgroup of that size. Regenerate: operator tests with -Dgolden.update=true.
                memory=%d
                cache.memory=%d
                https=%s
                bufferPool.size=%d
                limits.maxConnections=%d
                jvm=%s
                """.formatted(
                        memory,
                        cache,
                        https ? "on" : "off",
                        bound,
                        Quantities.bytes(spec.server().memory()),
                        m.cacheBytes(),
                        https,
                        m.bufferPoolBytes(),
                        EdgeServerConfigRenderer.config(spec).limits.maxConnections,
                        m.jvm().flags(""));
        assertThat(rendered).isEqualTo(TestFiles.golden("testdata/edge-server/" + file, rendered));
    }
}
