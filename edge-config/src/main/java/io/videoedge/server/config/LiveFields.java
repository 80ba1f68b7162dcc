package io.videoedge.server.config;

import io.videoedge.server.config.ConfigDiff.Change;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one place that decides which config changes the running server takes without a restart (the
 * live set) and which need a new process. A field is live only when the running server really applies
 * it and a test proves it ({@code LiveReconfigureIT}); everything else, including every field added
 * later, needs a restart. edge-server/README.md has the same table.
 *
 * <p>Live, and how it reaches the server ({@code EdgeServer.reconfigure} builds the new config with the
 * same adjustments as at start and calls one-nio's {@code Server.reconfigure}):
 * <ul>
 * <li>{@code acceptors[].recvBuf}, {@code sendBuf}, {@code notsentLowat}: one-nio sets them on the
 * listening sockets; sockets accepted afterwards inherit them from the listener (Linux copies the
 * listener's socket on accept), and the server sets recvBuf and sendBuf again on each accepted socket
 * (under the kernel's caps in force then). Connections already open keep theirs. Changing one to 0 needs a
 * restart: one-nio sets only non-zero values, so 0 (the kernel default) would silently not apply.</li>
 * <li>{@code keepAlive}: one-nio's cleanup thread takes the new period at once, for every connection.</li>
 * <li>{@code limits.maxConnections}: read on every accept.</li>
 * <li>{@code limits.maxHeaderSize}, {@code limits.maxUriLength}, {@code limits.idleTimeout} and the
 * defences ({@code headerTimeout}, {@code handshakeTimeout}, {@code maxConnectionsPerAddress},
 * {@code minSendBytes}, {@code minSendPeriod}, {@code maxPipelined}, {@code maxRequestRate},
 * {@code requestBurst}): read when a connection is accepted; connections already open keep the values
 * they started with.</li>
 * </ul>
 */
public final class LiveFields {
    private LiveFields() {}

    /** Field (list indices written {@code []}) and why it is live. Ordered as documented. */
    public static final Map<String, String> LIVE;

    static {
        Map<String, String> m = new LinkedHashMap<>();
        String inherited =
                "set on the listening sockets by one-nio's Server.reconfigure; connections accepted afterwards inherit it, open ones keep theirs";
        m.put("acceptors[].recvBuf", inherited);
        m.put("acceptors[].sendBuf", inherited);
        m.put("acceptors[].notsentLowat", inherited);
        m.put("keepAlive", "one-nio's cleanup thread takes the new idle period at once, for every connection");
        m.put("limits.maxConnections", "read on every accept");
        m.put("limits.maxHeaderSize", "read when a connection is accepted; open connections keep theirs");
        m.put("limits.maxUriLength", "read when a connection is accepted; open connections keep theirs");
        m.put("limits.idleTimeout", "read when a connection is accepted; open connections keep theirs");
        for (String defence : List.of(
                "headerTimeout",
                "handshakeTimeout",
                "maxConnectionsPerAddress",
                "minSendBytes",
                "minSendPeriod",
                "maxPipelined",
                "maxRequestRate",
                "requestBurst")) {
            m.put(
                    "limits." + defence,
                    "read when a connection is accepted; open connections keep theirs (the guard thread's sweep period follows the running limits)");
        }
        LIVE = java.util.Collections.unmodifiableMap(m);
    }

    /** Why common fields need a restart (others: "not in the live set"). Keys are fields or section prefixes. */
    private static final Map<String, String> RESTART_REASONS = Map.ofEntries(
            Map.entry(
                    "selectors",
                    "selector threads are created and pinned at start; one-nio would only add unpinned ones and never remove any"),
            Map.entry("affinity", "pinning is planned once at start"),
            Map.entry("pinAcceptors", "the acceptor-to-selector mapping is fixed at start"),
            Map.entry("multiAcceptor", "the acceptor kind is chosen when the server is built"),
            Map.entry("acceptors[]", "adding or removing a listener is not supported live"),
            Map.entry("acceptors[].port", "a new port would be bound by a new listener; not supported live"),
            Map.entry("acceptors[].address", "a new address would be bound by a new listener; not supported live"),
            Map.entry(
                    "acceptors[].threads",
                    "one-nio 2.3.0's MultiAcceptorGroup.reconfigure loses the listeners it adds (they are registered but not kept), so they could never be closed"),
            Map.entry("acceptors[].backlog", "listen() is called once; one-nio does not apply a new backlog"),
            Map.entry("acceptors[].ssl", "certificates, keys, tickets and protocols are loaded at start"),
            Map.entry("admin", "the admin listener is bound at start"),
            Map.entry("content", "the content store is opened at start"),
            Map.entry("cache", "the memory tier is allocated and the disk tier indexed at start"),
            Map.entry("origin", "the origin connection pool is built at start"),
            Map.entry("bufferPool", "the direct-memory pool is allocated once at start"),
            Map.entry("ticketKeys", "the rotation schedule is set at start"),
            Map.entry(
                    "drainTimeout",
                    "read by the running process only at shutdown from its start config; kept with the pod's termination grace period"));

    /** The outcome for a list of changes: live changes can be applied only when {@code restart} is empty. */
    public record Decision(List<Change> live, List<Change> restart) {
        public boolean allLive() {
            return restart.isEmpty();
        }

        public boolean unchanged() {
            return live.isEmpty() && restart.isEmpty();
        }
    }

    public static Decision classify(List<Change> changes) {
        List<Change> live = new ArrayList<>();
        List<Change> restart = new ArrayList<>();
        for (Change c : changes) {
            (isLive(c) ? live : restart).add(c);
        }
        return new Decision(List.copyOf(live), List.copyOf(restart));
    }

    public static boolean isLive(Change c) {
        String field = c.field();
        if (!LIVE.containsKey(field)) {
            return false;
        }
        if (field.startsWith("acceptors[].")) {
            // one-nio applies only non-zero socket options: back to 0 would silently keep the old value
            return !(c.after() instanceof Integer i && i == 0);
        }
        return true;
    }

    /**
     * The config's text without what may change live, so two configs have the same view exactly when
     * going from one to the other needs no restart. The operator puts its checksum into the pod template.
     * A live socket option of a listener is masked when non-zero and written as such (from or to 0, the
     * kernel default, is a restart: one-nio applies only non-zero values); the other live fields
     * ({@code keepAlive}, {@code limits.*}) are left out whatever their value, their default included.
     */
    public static String restartView(EdgeServerConfig config) {
        return ConfigWriter.write(config, (field, value) -> {
            if (!LIVE.containsKey(field)) return value;
            if (!field.startsWith("acceptors[].")) return ConfigWriter.OMIT;
            return value instanceof Number n && n.longValue() == 0 ? value : "(live)";
        });
    }

    /** Why a change needs a restart, for the log. */
    public static String whyRestart(Change c) {
        String field = c.field();
        if (LIVE.containsKey(field)) {
            return "0 (the kernel default) cannot be restored on a listening socket: one-nio applies only non-zero values";
        }
        for (String key = field; !key.isEmpty(); key = parent(key)) {
            String reason = RESTART_REASONS.get(key);
            if (reason != null) return reason;
        }
        return "not in the live set";
    }

    private static String parent(String field) {
        int dot = field.lastIndexOf('.');
        return dot < 0 ? "" : field.substring(0, dot);
    }
}
