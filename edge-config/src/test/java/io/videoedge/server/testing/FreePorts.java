package io.videoedge.server.testing;

import java.io.IOException;
import java.net.ServerSocket;

/** Free loopback ports for a test's servers. */
public final class FreePorts {
    private FreePorts() {}

    /**
     * {@code count} ports that are free now and differ from each other: all probes are held open until
     * the last is bound, because a port the kernel just handed out and got back may be handed out again at
     * once (one probe after another gave the HTTP and admin listeners the same port in CI).
     */
    public static int[] distinct(int count) throws IOException {
        ServerSocket[] probes = new ServerSocket[count];
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                probes[i] = new ServerSocket(0);
                ports[i] = probes[i].getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket probe : probes) {
                if (probe != null) probe.close();
            }
        }
    }
}
