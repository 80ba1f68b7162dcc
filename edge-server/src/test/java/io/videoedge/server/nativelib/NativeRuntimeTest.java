package io.videoedge.server.nativelib;

import static org.assertj.core.api.Assertions.assertThat;

import one.nio.net.Socket;
import one.nio.net.SslContext;
import one.nio.os.NativeLibrary;
import org.junit.jupiter.api.Test;

/**
 * The tests run on the native path: the libonenio.so built from one-nio's sources by this module
 * (target/classes, ahead of the stock library in the one-nio jar), not Java sockets.
 */
class NativeRuntimeTest {
    @Test
    void theLibraryBuiltByThisModuleIsLoaded() {
        NativeRuntime nr = NativeRuntime.detect();
        assertThat(NativeLibrary.IS_SUPPORTED).isTrue();
        assertThat(nr.loaded()).isTrue();
        assertThat(nr.origin()).isEqualTo(NativeRuntime.BUILT);
        assertThat(nr.resource()).startsWith("file:").endsWith("/target/classes/libonenio.so");
        assertThat(nr.libraryPath()).contains("libonenio.");
        assertThat(nr.buildInfo()).startsWith("one-nio=2.3.0 glibc.build=").contains("openssl.headers=3.");
        assertThat(nr.openssl()).startsWith("OpenSSL 3.");
    }

    @Test
    void oneNioUsesNativeSocketsAndOpenSsl() throws Exception {
        assertThat(Socket.USE_NATIVE_SOCKET).isTrue();
        Socket s = Socket.createServerSocket();
        try {
            assertThat(s.getClass().getSimpleName()).isEqualTo("NativeSocket");
        } finally {
            s.close();
        }
        SslContext ctx = SslContext.create();
        try {
            assertThat(ctx.getClass().getSimpleName()).isEqualTo("NativeSslContext");
        } finally {
            ctx.close();
        }
    }
}
