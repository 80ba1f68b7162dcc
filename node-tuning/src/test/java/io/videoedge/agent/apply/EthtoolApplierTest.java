package io.videoedge.agent.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.videoedge.agent.plan.Setting;
import io.videoedge.agent.plan.SettingKind;
import io.videoedge.agent.testing.FakeCommands;
import io.videoedge.agent.testing.FakeNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ethtool features: read from ethtool -k, written with ethtool -K, against the fake ethtool. */
class EthtoolApplierTest {
    static final String TLS = "tls-hw-tx-offload";

    @TempDir
    Path tmp;

    FakeCommands cmds;
    EthtoolApplier applier;

    @BeforeEach
    void nic() throws IOException {
        FakeNode node = new FakeNode(Files.createDirectories(tmp.resolve("root"))).nic("eth0", "mlx5_core", 2, 40, 0);
        cmds = new FakeCommands(node);
        applier = new EthtoolApplier(cmds);
    }

    private static Setting offload(String iface) {
        return Setting.ethtool(SettingKind.ETHTOOL_FEATURE, iface, TLS, "on", "off");
    }

    @Test
    void readsTheFeatureAndTurnsItOnAndOff() throws IOException {
        cmds.feature("eth0", TLS, false, false);
        Setting s = offload("eth0");
        assertThat(applier.read(s)).contains("off");

        applier.write(s, "on");
        assertThat(cmds.log()).contains("ethtool -K eth0 tls-hw-tx-offload on");
        assertThat(cmds.featureNow("eth0", TLS)).isEqualTo("on");
        assertThat(applier.read(s)).contains("on");

        applier.write(s, "off");
        assertThat(applier.read(s)).contains("off");
        assertThat(cmds.log())
                .containsSubsequence(
                        "ethtool -k eth0",
                        "ethtool -K eth0 tls-hw-tx-offload on",
                        "ethtool -k eth0",
                        "ethtool -K eth0 tls-hw-tx-offload off",
                        "ethtool -k eth0");
    }

    @Test
    void aFixedFeatureIsRefusedWithEthtoolsWords() throws IOException {
        cmds.feature("eth0", TLS, false, true);
        assertThatThrownBy(() -> applier.write(offload("eth0"), "on"))
                .isInstanceOf(IOException.class)
                .hasMessage("ethtool -K eth0 tls-hw-tx-offload on: exit 1: Could not change any device features");
        assertThat(applier.read(offload("eth0"))).contains("off");
    }

    @Test
    void aFeatureTheKernelKeepsOffReadsBackOff() throws IOException {
        cmds.featureKeptOff("eth0", TLS);
        assertThatThrownBy(() -> applier.write(offload("eth0"), "on"))
                .hasMessageContaining("Could not change any device features");
        assertThat(applier.read(offload("eth0"))).contains("off");
        assertThat(cmds.featureNow("eth0", TLS)).isEqualTo("off [requested on]");
    }

    @Test
    void aGoneDeviceOrAnUnlistedFeatureReadsAsGone() throws IOException {
        cmds.failOn(
                "ethtool -k eth9", "netlink error: no device matches name (offset 24)\nnetlink error: No such device");
        assertThat(applier.read(offload("eth9"))).isEqualTo(Optional.empty());
        Setting unlisted = Setting.ethtool(SettingKind.ETHTOOL_FEATURE, "eth0", "macsec-hw-offload", "on", "off");
        assertThat(applier.read(unlisted)).isEmpty();
    }

    @Test
    void aFailingEthtoolIsAnError() {
        cmds.failOn("ethtool -k eth0", "Cannot get device feature names: Operation not permitted");
        assertThatThrownBy(() -> applier.read(offload("eth0")))
                .isInstanceOf(IOException.class)
                .hasMessage("ethtool -k eth0: exit 1: Cannot get device feature names: Operation not permitted");
    }
}
