package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.LoopbackClients;
import io.videoedge.server.testing.TestCerts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The native memory an idle TLS connection holds in the server process (nativelib/TlsIdleBuffers):
 * with OpenSSL's empty record buffers released, against the same server keeping them as the control.
 * Measured as the growth of the process's resident memory with {@value #CONNECTIONS} idle connections
 * whose handshakes are done (the heap is fixed and touched at start, so what grows is native), after a
 * first batch that warms up the JIT and the allocator.
 */
class TlsIdleMemoryIT {
    static final int CONNECTIONS = 600;
    static final String[] FIXED_HEAP = {"-Xms96m", "-Xmx96m", "-XX:+AlwaysPreTouch"};

    static EdgeFixture released;
    static EdgeFixture control;

    @BeforeAll
    static void start() throws Exception {
        released = EdgeFixture.startProcess("", false, FIXED_HEAP);
        String[] kept = {FIXED_HEAP[0], FIXED_HEAP[1], FIXED_HEAP[2], "-Dvideoedge.tlsReleaseBuffers=false"};
        control = EdgeFixture.startProcess("", false, kept);
    }

    @AfterAll
    static void stop() throws Exception {
        for (EdgeFixture f : new EdgeFixture[] {released, control}) {
            if (f != null) f.close();
        }
    }

    @Test
    void anIdleConnectionHoldsNoRecordBuffers() throws Exception {
        double withRelease = nativeBytesPerIdleConnection(released);
        double kept = nativeBytesPerIdleConnection(control);
        System.out.printf(
                "resident memory per idle TLS connection (%d): %.0f bytes with empty buffers released, %.0f kept%n",
                CONNECTIONS, withRelease, kept);
        assertThat(kept).as("bytes per idle connection, buffers kept").isGreaterThan(18_000);
        assertThat(withRelease)
                .as("bytes per idle connection, empty buffers released")
                .isLessThan(kept - 7_000);
    }

    private static double nativeBytesPerIdleConnection(EdgeFixture edge) throws Exception {
        closeAll(open(edge, 200)); // the accept and handshake paths compiled, the allocator's arenas made
        Thread.sleep(500);
        long before = residentBytes(edge);
        List<SSLSocket> idle = open(edge, CONNECTIONS);
        try {
            Thread.sleep(500);
            return (residentBytes(edge) - before) / (double) CONNECTIONS;
        } finally {
            closeAll(idle);
        }
    }

    /** Opens TLS connections and completes their handshakes (LoopbackClients: 900 per source address). */
    private static List<SSLSocket> open(EdgeFixture edge, int n) throws Exception {
        SSLContext ctx = TestCerts.trustingContext();
        List<SSLSocket> sockets = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            sockets.add(LoopbackClients.tls(ctx, edge.httpsPort, i));
        }
        return sockets;
    }

    private static void closeAll(List<SSLSocket> sockets) {
        for (SSLSocket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing only
            }
        }
    }

    private static long residentBytes(EdgeFixture edge) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(edge.process.pid()), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/PID/status");
    }
}
