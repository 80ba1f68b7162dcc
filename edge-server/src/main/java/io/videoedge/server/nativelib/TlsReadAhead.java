package io.videoedge.server.nativelib;

import one.nio.net.Socket;

/**
 * OpenSSL read-ahead on a TLS connection (videoedge_native.c): one read(2) per request instead of
 * two (the record header, then the record). OpenSSL may then hold bytes it read beyond the record it
 * returned (a pipelined request, an alert) that epoll will not report again: a reader must call
 * {@link #buffered} after each read and read on while it is true.
 */
public final class TlsReadAhead {
    /**
     * Read-ahead is used: the VideoEdge-built library is loaded (the stock one-nio library lacks these
     * entry points) and {@code -Dvideoedge.tlsReadAhead=false} did not turn it off (for measuring).
     */
    public static final boolean ENABLED =
            Boolean.parseBoolean(System.getProperty("videoedge.tlsReadAhead", "true")) && linked();

    private TlsReadAhead() {}

    private static boolean linked() {
        try {
            return linked0();
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    /** Turns read-ahead on for a one-nio TLS socket; false when it is closed (or read-ahead is off). */
    public static boolean enable(Socket socket) {
        return ENABLED && enable0(socket);
    }

    /**
     * OpenSSL holds bytes of this connection that it read and has not returned yet (for a socket
     * {@link #enable} turned read-ahead on for).
     */
    public static boolean buffered(Socket socket) {
        return buffered0(socket);
    }

    static native boolean linked0();

    private static native boolean enable0(Socket socket);

    private static native boolean buffered0(Socket socket);
}
