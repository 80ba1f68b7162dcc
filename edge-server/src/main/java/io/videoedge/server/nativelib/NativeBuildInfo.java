package io.videoedge.server.nativelib;

/** JNI entry points of videoedge_native.c, compiled into the libonenio.so that VideoEdge builds. */
final class NativeBuildInfo {
    private NativeBuildInfo() {}

    /** "one-nio=2.3.0 glibc.build=2.36 glibc.runtime=2.36 openssl.headers=3.0.19". */
    static native String buildInfo();

    /** OpenSSL_version() of the libssl.so.3 that one-nio dlopens, or null when there is none. */
    static native String opensslVersion();
}
