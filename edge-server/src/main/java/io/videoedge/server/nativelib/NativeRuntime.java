package io.videoedge.server.nativelib;

import java.lang.management.ManagementFactory;
import java.net.URL;
import javax.management.ObjectName;
import one.nio.net.Socket;
import one.nio.os.NativeLibrary;

/**
 * Which one-nio native library this process runs on, found out rather than assumed: whether it
 * loaded at all (without it one-nio silently uses plain Java sockets and has no TLS), the classpath
 * resource it came from, the file it was extracted to, and whether it is the library VideoEdge
 * compiled (it then answers {@link NativeBuildInfo}) or the stock one from the one-nio jar.
 */
public record NativeRuntime(
        boolean loaded,
        boolean nativeSockets,
        String origin,
        String resource,
        String libraryPath,
        String buildInfo,
        String openssl) {

    public static final String BUILT = "videoedge-built";
    public static final String STOCK = "one-nio-stock";
    public static final String NONE = "none";

    public static NativeRuntime detect() {
        boolean loaded = NativeLibrary.IS_SUPPORTED;
        URL resource = NativeLibrary.class.getResource("/libonenio.so");
        String resourceName = resource == null ? "" : resource.toString();
        if (!loaded) {
            return new NativeRuntime(false, false, NONE, resourceName, "", "", "");
        }
        String buildInfo;
        String openssl;
        try {
            buildInfo = NativeBuildInfo.buildInfo();
            String v = NativeBuildInfo.opensslVersion();
            openssl = v == null ? "libssl.so.3 not found" : v;
        } catch (UnsatisfiedLinkError e) {
            return new NativeRuntime(true, Socket.USE_NATIVE_SOCKET, STOCK, resourceName, extractedPath(), "", "");
        }
        return new NativeRuntime(
                true, Socket.USE_NATIVE_SOCKET, BUILT, resourceName, extractedPath(), buildInfo, openssl);
    }

    private static String extractedPath() {
        try {
            Object path = ManagementFactory.getPlatformMBeanServer()
                    .getAttribute(new ObjectName("one.nio.os:type=NativeLibrary"), "LibraryPath");
            return String.valueOf(path);
        } catch (Exception e) {
            return "";
        }
    }

    /** The library is there and one-nio uses it for sockets (and so can do TLS). */
    public boolean usable() {
        return loaded && nativeSockets;
    }
}
