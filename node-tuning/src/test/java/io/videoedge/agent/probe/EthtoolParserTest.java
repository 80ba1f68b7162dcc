package io.videoedge.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.agent.facts.NicFacts;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** ethtool -k as ethtool prints it: on/off, [fixed], [requested on|off]. */
class EthtoolParserTest {
    /** ethtool 6.1 -k on a veth, kernel 6.18 (captured from this repository's IT machine). */
    static String vethFeatures() throws IOException {
        try (InputStream in = EthtoolParserTest.class.getResourceAsStream("/ethtool/veth-k.txt")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The TLS and ESP lines of ethtool -k on a ConnectX-6 Dx with crypto (mlx5_core, offload on). */
    static final String MLX5_ON = """
      Features for enp3s0f0np0:
      rx-checksumming: on
      tx-checksumming: on
      \ttx-checksum-ipv4: off [fixed]
      \ttx-checksum-ip-generic: on
      tx-esp-segmentation: on
      esp-hw-offload: on [fixed]
      esp-tx-csum-hw-offload: on [fixed]
      tls-hw-tx-offload: on
      tls-hw-rx-offload: off
      tls-hw-record: off [fixed]
      """;

    @Test
    void vethHasTheFeatureFixedOff() throws IOException {
        NicFacts.Feature f = EthtoolParser.feature(vethFeatures(), "tls-hw-tx-offload");
        assertThat(f).isEqualTo(new NicFacts.Feature(false, true, false));
        assertThat(f.offered()).isFalse();
        assertThat(f.refused()).isFalse();
        assertThat(f).hasToString("off [fixed]");
        // the neighbours are not mistaken for it, and indented sub-features parse too
        assertThat(EthtoolParser.feature(vethFeatures(), "tx-checksum-ip-generic"))
                .isEqualTo(new NicFacts.Feature(true, false, true));
        assertThat(EthtoolParser.feature(vethFeatures(), "generic-receive-offload"))
                .hasToString("off");
    }

    @Test
    void mlx5WithCryptoOffersItAndHasItOn() {
        NicFacts.Feature tx = EthtoolParser.feature(MLX5_ON, "tls-hw-tx-offload");
        assertThat(tx).isEqualTo(new NicFacts.Feature(true, false, true));
        assertThat(tx.offered()).isTrue();
        assertThat(tx).hasToString("on");
        NicFacts.Feature rx = EthtoolParser.feature(MLX5_ON, "tls-hw-rx-offload");
        assertThat(rx.on()).isFalse();
        assertThat(rx.offered()).as("off but changeable: offered").isTrue();
        assertThat(EthtoolParser.feature(MLX5_ON, "esp-hw-offload")).hasToString("on [fixed]");
        assertThat(EthtoolParser.feature(MLX5_ON, "esp-hw-offload").offered()).isTrue();
    }

    @Test
    void askedOnButKeptOffByTheKernelIsRefused() {
        // what ethtool -K veth0 tls-hw-tx-offload on prints ("Actual changes:"), and -k shows afterwards on a
        // changeable feature the kernel drops (no TX checksum offload)
        String out = "Features for eth0:\ntx-checksumming: off\ntls-hw-tx-offload: off [requested on]\n";
        NicFacts.Feature f = EthtoolParser.feature(out, "tls-hw-tx-offload");
        assertThat(f).isEqualTo(new NicFacts.Feature(false, false, true));
        assertThat(f.offered()).isTrue();
        assertThat(f.refused()).isTrue();
        assertThat(f).hasToString("off [requested on]");
        assertThat(EthtoolParser.feature("rx-gro-hw: on [requested off]\n", "rx-gro-hw"))
                .isEqualTo(new NicFacts.Feature(true, false, false));
    }

    @Test
    void aKernelWithoutTheFeatureListsNoLine() {
        String out = "Features for eth0:\nrx-checksumming: on\ntls-hw-rx-offload: off [fixed]\n";
        assertThat(EthtoolParser.feature(out, "tls-hw-tx-offload")).isNull();
        assertThat(EthtoolParser.feature("", "tls-hw-tx-offload")).isNull();
    }
}
