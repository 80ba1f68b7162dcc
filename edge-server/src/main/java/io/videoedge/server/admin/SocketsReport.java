package io.videoedge.server.admin;

import java.net.InetSocketAddress;
import java.util.List;
import one.nio.net.Socket;

/**
 * The JSON of admin {@code GET /sockets}: the options the kernel reports (getsockopt) for every
 * listening socket and for accepted connections.
 *
 * <pre>
 * {"listening":[{"local":"127.0.0.1:8080","localPort":8080,"remote":null,"tls":false,
 *                "sendBuf":65536,"recvBuf":65536,"notsentLowat":131072,"sendBufKernel":131072,"recvBufKernel":131072}],
 *  "sessions":{"total":3,"limit":100,"shown":3,"items":[{"local":"127.0.0.1:8080","localPort":8080,"remote":"127.0.0.1:51234",...}]}}
 * </pre>
 *
 * {@code sendBuf}/{@code recvBuf} are in the config's terms (one-nio's getters: the kernel's value
 * halved, since Linux doubles SO_SNDBUF/SO_RCVBUF on set and caps them at net.core.wmem_max/rmem_max);
 * {@code sendBufKernel}/{@code recvBufKernel} are what getsockopt returns, the {@code tb}/{@code rb} of
 * {@code ss -tm}. {@code notsentLowat} is TCP_NOTSENT_LOWAT as set (0: the sysctl applies).
 */
public final class SocketsReport {
    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 10_000;

    private SocketsReport() {}

    public record View(
            String local, int localPort, String remote, boolean tls, int sendBuf, int recvBuf, int notsentLowat) {
        /** Reads the options of a socket; null when it has closed meanwhile. */
        public static View of(Socket s) {
            if (s == null || !s.isOpen()) return null;
            try {
                InetSocketAddress local = s.getLocalAddress();
                return new View(
                        address(local),
                        local == null ? 0 : local.getPort(),
                        address(remote(s)),
                        s.getSslContext() != null,
                        s.getSendBuffer(),
                        s.getRecvBuffer(),
                        s.getNotsentLowat());
            } catch (RuntimeException e) {
                return null; // closed between the check and the reads
            }
        }

        /** A listening socket has no peer (one-nio throws from getpeername's ENOTCONN). */
        private static InetSocketAddress remote(Socket s) {
            try {
                return s.getRemoteAddress();
            } catch (RuntimeException e) {
                return null;
            }
        }

        private static String address(InetSocketAddress a) {
            if (a == null || a.getPort() == 0 && a.getAddress() == null) return null;
            return (a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress()) + ":" + a.getPort();
        }
    }

    public static String json(List<View> listening, int sessionsTotal, int limit, List<View> sessions) {
        StringBuilder sb = new StringBuilder(256 + 256 * (listening.size() + sessions.size()));
        sb.append("{\"listening\":[");
        items(sb, listening);
        sb.append("],\n\"sessions\":{\"total\":")
                .append(sessionsTotal)
                .append(",\"limit\":")
                .append(limit)
                .append(",\"shown\":")
                .append(sessions.size())
                .append(",\"items\":[");
        items(sb, sessions);
        return sb.append("]}}\n").toString();
    }

    private static void items(StringBuilder sb, List<View> views) {
        for (int i = 0; i < views.size(); i++) {
            View v = views.get(i);
            sb.append(i == 0 ? "\n" : ",\n");
            sb.append("{\"local\":")
                    .append(string(v.local()))
                    .append(",\"localPort\":")
                    .append(v.localPort())
                    .append(",\"remote\":")
                    .append(string(v.remote()))
                    .append(",\"tls\":")
                    .append(v.tls())
                    .append(",\"sendBuf\":")
                    .append(v.sendBuf())
                    .append(",\"recvBuf\":")
                    .append(v.recvBuf())
                    .append(",\"notsentLowat\":")
                    .append(v.notsentLowat())
                    .append(",\"sendBufKernel\":")
                    .append(2L * v.sendBuf())
                    .append(",\"recvBufKernel\":")
                    .append(2L * v.recvBuf())
                    .append('}');
        }
    }

    /** Addresses only (digits, dots, colons, brackets, hex); quoted and escaped anyway. */
    private static String string(String s) {
        if (s == null) return "null";
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') sb.append('\\').append(c);
            else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
            else sb.append(c);
        }
        return sb.append('"').toString();
    }
}
