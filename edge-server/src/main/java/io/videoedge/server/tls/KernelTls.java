package io.videoedge.server.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether the kernel offers the "tls" upper-layer protocol, from /proc/sys/net/ipv4/tcp_available_ulp.
 * A hint only: the module may load on first use, and the per-session check (TlsSessionFacts) is what
 * decides sendfile. Without it OpenSSL keeps TLS in user space and the server copies through a
 * pooled buffer.
 */
public final class KernelTls {
    private KernelTls() {}

    public static String kernelSupport() {
        return kernelSupport(Path.of("/proc/sys/net/ipv4/tcp_available_ulp"), Path.of("/sys/module/tls"));
    }

    /**
     * The ULP list exists only in the initial network namespace (edge pods use the host's); elsewhere
     * a loaded tls module is the evidence.
     */
    static String kernelSupport(Path availableUlp, Path tlsModule) {
        try {
            String ulps = Files.readString(availableUlp).trim();
            for (String ulp : ulps.split("\\s+")) {
                if (ulp.equals("tls")) return "available";
            }
            return "unavailable";
        } catch (IOException e) {
            return Files.isDirectory(tlsModule) ? "available" : "unavailable";
        }
    }
}
