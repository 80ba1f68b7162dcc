package io.videoedge.server.tls;

import io.videoedge.server.metrics.EdgeMetrics;
import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * OpenSSL's own handshake counters (SSL_CTX_sess_accept_good, SSL_CTX_sess_hits), which one-nio
 * publishes per SSL context as MBeans; summed over the contexts of this process.
 */
public final class OpenSslCounters {
    private static final MBeanServer MBEANS = ManagementFactory.getPlatformMBeanServer();

    private OpenSslCounters() {}

    public static void register(EdgeMetrics metrics) {
        metrics.counter(
                "videoedge_tls_handshakes_total",
                "TLS handshakes completed by OpenSSL (all SSL contexts of the process; a TLS 1.3 one counts once "
                        + "the server has sent its session tickets, so a client that closes right after its handshake "
                        + "may not be counted)",
                () -> sum("AcceptGood"));
        metrics.counter(
                "videoedge_tls_handshakes_resumed_total",
                "TLS handshakes that resumed a session (ticket or cache), per OpenSSL",
                () -> sum("Hits"));
    }

    static double sum(String attribute) {
        try {
            double total = 0;
            for (ObjectName name : MBEANS.queryNames(new ObjectName("one.nio.net:type=SslContext,*"), null)) {
                Object v = MBEANS.getAttribute(name, attribute);
                if (v instanceof Number n) total += n.doubleValue();
            }
            return total;
        } catch (Exception e) {
            return Double.NaN;
        }
    }
}
