package io.videoedge.operator.status;

import io.videoedge.api.NodeCapabilities;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.SettingState;
import io.videoedge.api.TlsMode;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What a node's edge server really encrypts HTTPS with, which is not always what tls.mode asks: kernel
 * TLS needs the node's {@code tls} module (without it OpenSSL keeps TLS in user space), and NIC offload
 * needs a NIC whose agent turned tls-hw-tx-offload on (without it the kernel encrypts in software). Pure.
 */
public final class ServedTls {
    public static final String NONE = TlsMode.NONE.id();
    public static final String OPENSSL = TlsMode.OPENSSL.id();
    public static final String KTLS = TlsMode.KTLS.id();
    public static final String KTLS_OFFLOAD = TlsMode.KTLS_OFFLOAD.id();
    /** The suffix of the agent's setting that turns a NIC's TLS TX offload on (ethtool/IF/tls-hw-tx-offload). */
    static final String OFFLOAD_SETTING = "/tls-hw-tx-offload";

    private ServedTls() {}

    /**
     * @param requested the mode the server is configured with, null when it serves no HTTPS
     * @param caps what the node's agent found (null until it reported)
     * @param settings the agent's settings on the node (null until it reported)
     * @return none, openssl, ktls or ktls-offload; null while unknown (the agent has not reported)
     */
    public static String onNode(TlsMode requested, NodeCapabilities caps, List<NodeTuningStatus.Setting> settings) {
        if (requested == null || requested == TlsMode.NONE) {
            return NONE;
        }
        if (!requested.usesKernelTls()) {
            return OPENSSL;
        }
        if (caps == null || caps.ktls() == null) {
            return null;
        }
        if (NodeReport.KTLS_UNAVAILABLE.equals(caps.ktls())) {
            return OPENSSL;
        }
        return requested == TlsMode.KTLS_OFFLOAD && offloadOn(settings) ? KTLS_OFFLOAD : KTLS;
    }

    /** Every tuned NIC has TLS TX offload on (there is at least one, and none failed or is unsupported). */
    static boolean offloadOn(List<NodeTuningStatus.Setting> settings) {
        List<NodeTuningStatus.Setting> offload = settings == null
                ? List.of()
                : settings.stream()
                        .filter(s -> s.name() != null && s.name().endsWith(OFFLOAD_SETTING))
                        .toList();
        return !offload.isEmpty()
                && offload.stream()
                        .allMatch(s -> s.state() == SettingState.APPLIED || s.state() == SettingState.UNCHANGED);
    }

    /**
     * The fleet in one word when every node serves alike (ktls), else each kind with its node count, the
     * most common first (ktls 2, openssl 1); null when no node is known yet.
     */
    public static String summary(List<String> perNode) {
        return summaryOfCounts(perNode.stream()
                .filter(t -> t != null)
                .collect(Collectors.groupingBy(t -> t, TreeMap::new, Collectors.counting())));
    }

    /** The same from the node count of each kind (kinds with no node left out). */
    public static String summaryOfCounts(Map<String, Long> counts) {
        if (counts.isEmpty()) {
            return null;
        }
        if (counts.size() == 1) {
            return counts.keySet().iterator().next();
        }
        return counts.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
                        .thenComparing(Map.Entry.comparingByKey()))
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }
}
