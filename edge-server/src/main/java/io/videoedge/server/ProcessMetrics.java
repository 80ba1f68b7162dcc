package io.videoedge.server;

import io.videoedge.server.metrics.EdgeMetrics;
import java.io.File;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

/** Process resources that must stay flat under load: JDK direct memory and open file descriptors. */
final class ProcessMetrics {
    private ProcessMetrics() {}

    static void register(EdgeMetrics metrics) {
        BufferPoolMXBean direct = null;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) direct = pool;
        }
        BufferPoolMXBean d = direct;
        metrics.gauge(
                "videoedge_jvm_direct_memory_used_bytes",
                "Direct ByteBuffer memory in use (bounded by -XX:MaxDirectMemorySize)",
                () -> d == null ? Double.NaN : d.getMemoryUsed());
        metrics.gauge(
                "videoedge_jvm_direct_buffers",
                "Direct ByteBuffers allocated",
                () -> d == null ? Double.NaN : d.getCount());
        metrics.gauge("videoedge_process_open_fds", "Open file descriptors of the process", ProcessMetrics::openFds);
    }

    private static double openFds() {
        String[] fds = new File("/proc/self/fd").list();
        return fds == null ? Double.NaN : fds.length;
    }
}
