package io.videoedge.operator.render;

import io.videoedge.api.ServerSpec;
import io.videoedge.api.VideoEdgeSpec;
import java.util.Optional;

/**
 * What the edge server's pod memory (server.memory, the container's limit) holds, part by part: the heap
 * and a native allowance ({@link JvmOptions}), the direct buffer pool (one chunk per origin connection, at
 * least 32Mi), the memory cache (cache.memory, one off-heap region) and the connections, which get what
 * the others leave. {@link #maxConnections} is the rendered limits.maxConnections: past it the server
 * answers 503 instead of growing until the kernel kills the pod.
 *
 * <p>What an idle connection costs was measured on the server (edge-server README, "Memory per
 * connection"): 2.5 KiB of heap; over TLS 14.2 KiB of OpenSSL memory and 5.2 KiB of kernel slab (the
 * socket, charged to the pod's cgroup), over plain TCP 3.2 KiB of slab. The constants below round those
 * up. A connection that is sending also holds socket buffers; the kernel bounds those by tcp_mem (which
 * the node agent sets), not by a per-pod budget.
 */
public record ServerMemory(JvmOptions jvm, long bufferPoolBytes, long cacheBytes, boolean tls) {
    static final long KI = 1024;
    static final long MI = 1024 * KI;

    /** The direct buffer pool: one chunk per origin connection and a few spare, at least {@link #POOL_MIN}. */
    static final long POOL_CHUNK = 128 * KI;

    static final int POOL_SPARE_CHUNKS = 8;
    static final long POOL_MIN = 32 * MI;

    /** Heap per connection (measured 2.5 KiB); connections may take half the heap, the cache's index and requests the rest. */
    static final long HEAP_PER_CONNECTION = 3 * KI;
    /** Memory outside the heap per TLS connection: OpenSSL's (measured 14.2 KiB) and the kernel's (5.2 KiB). */
    static final long OFF_HEAP_PER_TLS_CONNECTION = 20 * KI;
    /** Memory outside the heap per plain connection: the kernel's (measured 3.2 KiB; the server's own is 51 bytes). */
    static final long OFF_HEAP_PER_PLAIN_CONNECTION = 4 * KI;
    /**
     * The part of the JVM's native allowance ({@link JvmOptions#NATIVE_ALLOWANCE}, 192Mi) left to connections:
     * the JVM's own native memory measured 92 MiB committed beside a 128 MiB heap (NMT: GC structures 40,
     * code 9, metaspace and classes 26, threads, symbols), so a pod whose cache takes all its direct memory
     * still holds this many bytes of connections.
     */
    static final long NATIVE_FOR_CONNECTIONS = 32 * MI;
    /** The server's own cap, whatever the memory: beyond it a pod is better split across nodes than grown. */
    static final int MAX_CONNECTIONS = 100_000;

    public static ServerMemory of(VideoEdgeSpec spec) {
        ServerSpec server = spec.server();
        return new ServerMemory(
                JvmOptions.forServer(server),
                bufferPoolBytes(server),
                Quantities.bytes(server.cache().memory()),
                EdgeServerConfigRenderer.servesHttps(spec));
    }

    /** The rendered bufferPool.size: {@link #POOL_MIN} without an origin, else a chunk per origin connection. */
    public static long bufferPoolBytes(ServerSpec server) {
        if (!EdgeServerConfigRenderer.fetchesFromOrigin(server)) return POOL_MIN;
        return Math.max(POOL_MIN, (server.origin().maxConnections() + POOL_SPARE_CHUNKS) * POOL_CHUNK);
    }

    /** Why the buffer pool and the memory cache cannot fit beside the JVM, if they cannot. */
    public Optional<String> problem() {
        if (jvm.directBytes() - bufferPoolBytes >= cacheBytes) {
            return Optional.empty();
        }
        long needed = cacheBytes + bufferPoolBytes + jvm.heapBytes() + JvmOptions.NATIVE_ALLOWANCE;
        return Optional.of("server.cache.memory (" + Quantities.oneNioSize(cacheBytes)
                + ") does not fit in server.memory: the heap takes " + Quantities.oneNioSize(jvm.heapBytes())
                + ", native memory " + Quantities.oneNioSize(JvmOptions.NATIVE_ALLOWANCE)
                + " and the I/O buffer pool " + Quantities.oneNioSize(bufferPoolBytes)
                + " (a 128k chunk per origin connection, at least 32m)"
                + "; raise server.memory to at least " + (needed + MI - 1) / MI
                + "Mi or lower cache.memory or server.origin.maxConnections");
    }

    /** Memory outside the heap the connections get: what the pool and the cache leave, and their native share. */
    public long offHeapForConnections() {
        return Math.max(0, jvm.directBytes() - bufferPoolBytes - cacheBytes) + NATIVE_FOR_CONNECTIONS;
    }

    /** limits.maxConnections: as many as both the heap and the memory outside it hold, in hundreds. */
    public int maxConnections() {
        long byHeap = jvm.heapBytes() / 2 / HEAP_PER_CONNECTION;
        long byOffHeap = offHeapForConnections() / (tls ? OFF_HEAP_PER_TLS_CONNECTION : OFF_HEAP_PER_PLAIN_CONNECTION);
        long n = Math.min(MAX_CONNECTIONS, Math.min(byHeap, byOffHeap));
        return (int) (n / 100 * 100); // at least 1,600: the native share alone holds that many over TLS
    }
}
