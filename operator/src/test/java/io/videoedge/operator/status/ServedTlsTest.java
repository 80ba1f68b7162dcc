package io.videoedge.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.api.NodeCapabilities;
import io.videoedge.api.NodeTuningStatus.Setting;
import io.videoedge.api.SettingState;
import io.videoedge.api.TlsMode;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServedTlsTest {
    static NodeCapabilities kernelTls(String ktls) {
        return new NodeCapabilities("6.12.0", List.of("bbr"), true, ktls, "v2", 1, "0-3", List.of());
    }

    static Setting offload(String nic, SettingState state) {
        return new Setting(
                "ethtool/" + nic + "/tls-hw-tx-offload",
                "on",
                state == SettingState.UNSUPPORTED ? null : "on",
                "off",
                state,
                null);
    }

    static final Setting COALESCING =
            new Setting("ethtool/eth0/adaptive-rx", "on", "on", "off", SettingState.APPLIED, null);

    @Test
    void withoutHttpsItIsNoneAndOpensslIsWhatItSays() {
        assertThat(ServedTls.onNode(null, null, null)).isEqualTo("none");
        assertThat(ServedTls.onNode(TlsMode.NONE, kernelTls("available"), List.of()))
                .isEqualTo("none");
        assertThat(ServedTls.onNode(TlsMode.OPENSSL, null, null)).isEqualTo("openssl");
    }

    @Test
    void kernelTlsNeedsTheNodesTlsModuleElseOpensslServes() {
        assertThat(ServedTls.onNode(TlsMode.KTLS, kernelTls("available"), List.of()))
                .isEqualTo("ktls");
        assertThat(ServedTls.onNode(TlsMode.KTLS, kernelTls("loadable"), List.of()))
                .isEqualTo("ktls");
        assertThat(ServedTls.onNode(TlsMode.KTLS, kernelTls("unavailable"), List.of()))
                .isEqualTo("openssl");
        assertThat(ServedTls.onNode(
                        TlsMode.KTLS_OFFLOAD, kernelTls("unavailable"), List.of(offload("eth0", SettingState.APPLIED))))
                .isEqualTo("openssl");
        assertThat(ServedTls.onNode(TlsMode.KTLS, null, null))
                .as("unknown until the agent reports")
                .isNull();
    }

    @Test
    void offloadOnlyWhenEveryTunedNicTookIt() {
        NodeCapabilities caps = kernelTls("available");
        assertThat(ServedTls.onNode(
                        TlsMode.KTLS_OFFLOAD, caps, List.of(COALESCING, offload("eth0", SettingState.APPLIED))))
                .isEqualTo("ktls-offload");
        assertThat(ServedTls.onNode(TlsMode.KTLS_OFFLOAD, caps, List.of(offload("eth0", SettingState.UNCHANGED))))
                .isEqualTo("ktls-offload");
        assertThat(ServedTls.onNode(
                        TlsMode.KTLS_OFFLOAD,
                        caps,
                        List.of(offload("eth0", SettingState.APPLIED), offload("eth1", SettingState.UNSUPPORTED))))
                .isEqualTo("ktls");
        assertThat(ServedTls.onNode(TlsMode.KTLS_OFFLOAD, caps, List.of(offload("eth0", SettingState.PLANNED))))
                .as("plan mode changes nothing")
                .isEqualTo("ktls");
        assertThat(ServedTls.onNode(TlsMode.KTLS_OFFLOAD, caps, List.of(COALESCING)))
                .as("no offload setting")
                .isEqualTo("ktls");
        assertThat(ServedTls.onNode(TlsMode.KTLS, caps, List.of(offload("eth0", SettingState.APPLIED))))
                .as("ktls asked: the NIC's state is not the server's")
                .isEqualTo("ktls");
    }

    @Test
    void summaryIsOneWordWhenNodesAgreeElseCountsMostCommonFirst() {
        assertThat(ServedTls.summary(List.of("ktls", "ktls"))).isEqualTo("ktls");
        assertThat(ServedTls.summary(List.of("openssl", "ktls", "ktls"))).isEqualTo("ktls 2, openssl 1");
        assertThat(ServedTls.summary(List.of("openssl", "ktls-offload"))).isEqualTo("ktls-offload 1, openssl 1");
        assertThat(ServedTls.summary(Arrays.asList("ktls", null)))
                .as("unknown nodes are left out")
                .isEqualTo("ktls");
        assertThat(ServedTls.summary(Arrays.asList((String) null))).isNull();
        assertThat(ServedTls.summary(List.of())).isNull();
    }
}
