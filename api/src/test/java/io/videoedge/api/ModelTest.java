package io.videoedge.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ModelTest {

    @Test
    void exampleDeserializesIntoTheTypedModel() throws IOException {
        VideoEdge ve =
                Serialization.unmarshal(Files.readString(Path.of("../examples/videoedge.yaml")), VideoEdge.class);
        assertThat(ve.getSpec().nic().irqAffinity()).isEqualTo(IrqAffinity.HOUSEKEEPING);
        assertThat(ve.getSpec().nic().coalescing().rxUsecs()).isEqualTo(64);
        assertThat(ve.getSpec().server().https().port()).isEqualTo(8443);
        assertThat(ve.getSpec().tls().earlyData().enabled()).isTrue();
        assertThat(ve.getSpec().tuning().cpusetRelaxDomainLevel()).isEqualTo(1);
    }

    @Test
    void nullFieldsAreNotSerialized() {
        TuningSpec tuning = new TuningSpec(null, "bbr", null, null, null, null);
        assertThat(Serialization.asJson(tuning)).isEqualTo("{\"congestionControl\":\"bbr\"}");
    }

    @Test
    void nodeTuningSpecCarriesTlsTxOffloadOnlyWhenSet() {
        NodeTuningSpec.Source source = new NodeTuningSpec.Source("video", "edge", "u");
        NodeTuningSpec on = new NodeTuningSpec(source, null, null, null, true);
        String json = Serialization.asJson(on);
        assertThat(json).contains("\"tlsTxOffload\":true");
        assertThat(Serialization.unmarshal(json, NodeTuningSpec.class)).isEqualTo(on);
        // the four-field form leaves it out: a NodeTuning without it is what it was before the field existed
        NodeTuningSpec unset = new NodeTuningSpec(source, null, null, null);
        assertThat(Serialization.asJson(unset)).doesNotContain("tlsTxOffload");
        assertThat(Serialization.unmarshal(Serialization.asJson(unset), NodeTuningSpec.class)
                        .tlsTxOffload())
                .isNull();
    }

    @Test
    void nicCapabilityTellsCanOffloadFromIsOnNow() {
        NodeCapabilities.Nic nic = new NodeCapabilities.Nic("eth0", "mlx5_core", 8, 8, 8, 63, null, 0, true, false);
        String json = Serialization.asJson(nic);
        assertThat(json).contains("\"tlsOffload\":true").contains("\"tlsOffloadOn\":false");
        assertThat(Serialization.unmarshal(json, NodeCapabilities.Nic.class)).isEqualTo(nic);
        assertThat(new NodeCapabilities.Nic("eth0", "virtio_net", 1, 1, 1, 1, null, -1, false).tlsOffloadOn())
                .isNull();
    }

    @Test
    void enumsUseTheSpecSpelling() {
        assertThat(Serialization.asJson(TlsMode.KTLS_OFFLOAD)).isEqualTo("\"ktls-offload\"");
        assertThat(Serialization.asJson(IrqAffinity.SERVER_CORES)).isEqualTo("\"server-cores\"");
        assertThat(Serialization.asJson(TuningMode.PLAN)).isEqualTo("\"Plan\"");
        assertThat(TlsMode.KTLS_OFFLOAD.id()).isEqualTo("ktls-offload");
        assertThat(NicType.MLX5.id()).isEqualTo("mlx5");
    }

    @Test
    void nicTypeFollowsTheKernelDriverName() {
        assertThat(NicType.ofDriver("mlx5_core")).isEqualTo(NicType.MLX5);
        assertThat(NicType.ofDriver("virtio_net")).isEqualTo(NicType.VIRTIO);
        assertThat(NicType.ofDriver("e1000e")).isEqualTo(NicType.AUTO);
        assertThat(NicType.ofDriver(null)).isEqualTo(NicType.AUTO);
    }

    /** The admission message's text for each integer sysctl's range says the range the rule checks. */
    @Test
    void eachIntegerSysctlsRangeTextSaysItsRange() {
        java.util.regex.Matcher ranges = java.util.regex.Pattern.compile("'([a-z0-9_.]+)': \\[(-?\\d+), (-?\\d+)\\]")
                .matcher(TuningSpec.INTEGER_SYSCTLS);
        java.util.Map<String, String> expected = new java.util.LinkedHashMap<>();
        while (ranges.find()) {
            expected.put(ranges.group(1), ranges.group(1) + " is " + ranges.group(2) + " to " + ranges.group(3));
        }
        java.util.regex.Matcher texts =
                java.util.regex.Pattern.compile("'([a-z0-9_.]+)': '([^']*)'").matcher(TuningSpec.INTEGER_RANGES_TEXT);
        java.util.Map<String, String> actual = new java.util.LinkedHashMap<>();
        while (texts.find()) {
            actual.put(texts.group(1), texts.group(2));
        }
        assertThat(expected).hasSizeGreaterThan(20);
        assertThat(actual).isEqualTo(expected);
    }
}
