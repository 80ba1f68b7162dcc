package io.videoedge.server.nativelib;

import one.nio.net.Socket;

/**
 * OpenSSL's record buffers of a TLS connection released while they are empty
 * ({@code SSL_MODE_RELEASE_BUFFERS}, videoedge_native.c), as nginx has them: an idle keep-alive
 * connection holds 14 KiB of native memory instead of 24 (edge-server/README.md, "Memory per
 * connection"). {@code -Dvideoedge.tlsReleaseBuffers=false} keeps them (for measuring).
 */
public final class TlsIdleBuffers {
    /** Released: the VideoEdge-built library is loaded and the property did not turn it off. */
    public static final boolean ENABLED =
            Boolean.parseBoolean(System.getProperty("videoedge.tlsReleaseBuffers", "true")) && linked();

    private TlsIdleBuffers() {}

    private static boolean linked() {
        try {
            return TlsReadAhead.linked0(); // the same library has both
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    /** Lets OpenSSL release this connection's empty record buffers; false when closed (or turned off). */
    public static boolean release(Socket socket) {
        return ENABLED && release0(socket);
    }

    private static native boolean release0(Socket socket);
}
