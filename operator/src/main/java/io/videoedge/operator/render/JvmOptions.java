package io.videoedge.operator.render;

import io.videoedge.api.ServerSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * JVM flags of the edge server, derived from server.memory (the pod's limit).
 * The heap stays small (the server allocates little per request); the rest is direct memory for
 * the off-heap cache and I/O buffers, with a fixed allowance for metaspace, code cache, thread
 * stacks, GC structures and OpenSSL. {@link ServerMemory} divides that budget among the buffer pool,
 * the cache and the connections. The DaemonSet passes them in JDK_JAVA_OPTIONS, which the
 * `java` launcher reads whatever the image's entry point is; the operator's
 * EDGE_SERVER_JAVA_OPTIONS is appended, and the last occurrence of a flag wins. A collector is the
 * exception: the JVM refuses to start with two selected ("Multiple garbage collectors selected"), so
 * G1 is left out when the appended flags select one.
 */
public record JvmOptions(long heapBytes, long directBytes) {
    static final long MI = 1024L * 1024;
    /** Native memory outside heap and direct buffers. */
    static final long NATIVE_ALLOWANCE = 192 * MI;

    /** A flag that selects one of HotSpot's collectors. */
    private static final Pattern SELECTS_COLLECTOR =
            Pattern.compile("(^|\\s)-XX:\\+Use(G1|Parallel|Serial|Z|Shenandoah|Epsilon)GC(\\s|$)");

    static final long MIN_HEAP = 64 * MI;
    static final long MAX_HEAP = 4096 * MI;

    /** The budget for a pod of this memory: a quarter for the heap (64Mi to 4Gi), the rest off-heap. */
    public static JvmOptions forMemory(long podMemoryBytes) {
        long heap = Math.clamp(podMemoryBytes / 4 / MI * MI, MIN_HEAP, MAX_HEAP);
        long direct = podMemoryBytes - heap - NATIVE_ALLOWANCE;
        return new JvmOptions(heap, direct);
    }

    public static JvmOptions forServer(ServerSpec server) {
        return forMemory(Quantities.bytes(server.memory()));
    }

    /** The flags, in order; {@code extra} (from the operator's settings) goes last so it wins. */
    public String flags(String extra) {
        boolean extraFlags = extra != null && !extra.isBlank();
        List<String> flags = new ArrayList<>(List.of(
                "-Xms" + Quantities.jvmSize(heapBytes),
                "-Xmx" + Quantities.jvmSize(heapBytes),
                "-XX:MaxDirectMemorySize=" + Quantities.jvmSize(Math.max(directBytes, 0))));
        if (!(extraFlags && SELECTS_COLLECTOR.matcher(extra).find())) {
            // a collector with short pauses: the heap holds the cache's index (ParallelGC measured 3% less
            // CPU per small HTTPS response, but its full collections stop everything; edge-server README)
            flags.add("-XX:+UseG1GC");
        }
        flags.addAll(List.of(
                // the JDK's per-thread temporary direct buffers stay small: the server's I/O goes through its own pool
                "-Djdk.nio.maxCachedBufferSize=65536",
                "-XX:+AlwaysPreTouch",
                // a process past its memory is restarted by the kubelet rather than limping on
                "-XX:+ExitOnOutOfMemoryError",
                // no mmap'ed hsperfdata file: its writes can stall safepoints on busy disks
                "-XX:+PerfDisableSharedMem"));
        if (extraFlags) {
            flags.add(extra.strip());
        }
        return String.join(" ", flags);
    }
}
