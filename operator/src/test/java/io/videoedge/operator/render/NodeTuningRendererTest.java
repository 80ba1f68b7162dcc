package io.videoedge.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.TlsMode;
import io.videoedge.api.TlsSpec;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.operator.testing.CrdDefaulting;
import io.videoedge.operator.testing.TestFiles;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeTuningRendererTest {
    static final String NODE = "edge-1";
    static final Pod POD = new PodBuilder()
            .withNewMetadata()
            .withName("edge-edge-server-x7k2p")
            .withNamespace("video")
            .withUid("5f0c0de0-0000-4000-8000-00000000000a")
            .endMetadata()
            .build();

    /** The example's own tuning, as the rollout gives it to a node. */
    static NodeTuning render(VideoEdge ve, Pod pod) {
        TuningInputs tuning = TuningInputs.of(ve.getSpec());
        return NodeTuningRenderer.render(
                ve, NODE, tuning, java.util.Map.of(Names.TUNING_REVISION, tuning.revision()), pod);
    }

    static io.videoedge.api.NodeTuningSpec spec(VideoEdge ve) {
        return NodeTuningRenderer.spec(ve, TuningInputs.of(ve.getSpec()), null);
    }

    @Test
    void theSpecDoesNotChangeWithTheVideoEdgesGenerationAlone() {
        VideoEdge a = TestFiles.exampleVideoEdge("video", 3);
        VideoEdge b = TestFiles.exampleVideoEdge("video", 4);
        assertThat(spec(b)).isEqualTo(spec(a));
    }

    @Test
    void exampleOnANodeWithItsServerPodRendersTheGoldenNodeTuning() {
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 3);
        String yaml = Serialization.asYaml(render(ve, POD));
        assertThat(yaml).isEqualTo(TestFiles.golden("testdata/operator/nodetuning-edge-1.yaml", yaml));
    }

    @Test
    void theNodeTuningSchemasDefaultsChangeNothingRendered() {
        // every field rendered is explicit (that the API server admits it: the IT tier)
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 3);
        NodeTuning nt = render(ve, POD);
        assertThat(CrdDefaulting.nodeTunings().apply(nt).getSpec()).isEqualTo(nt.getSpec());
    }

    @Test
    void namedAfterTheNodeAndLabelledWithItsOwnerInsteadOfAnOwnerReference() {
        NodeTuning nt = render(TestFiles.exampleVideoEdge("video", 3), null);
        assertThat(nt.getMetadata().getName()).isEqualTo("edge-1");
        assertThat(nt.getMetadata().getOwnerReferences()).isNullOrEmpty();
        assertThat(nt.getMetadata().getLabels())
                .containsEntry(VideoEdgeApi.LABEL_OWNER_NAME, "edge")
                .containsEntry(VideoEdgeApi.LABEL_OWNER_NAMESPACE, "video")
                .containsEntry(VideoEdgeApi.LABEL_NODE, "edge-1")
                .containsEntry(VideoEdgeApi.LABEL_MANAGED_BY, VideoEdgeApi.MANAGED_BY);
        assertThat(nt.getMetadata().getAnnotations())
                .containsEntry(
                        Names.TUNING_REVISION,
                        TuningInputs.of(TestFiles.exampleVideoEdge("video", 3).getSpec())
                                .revision());
        assertThat(nt.getSpec().server().cpus()).isEqualTo(1);
        assertThat(nt.getSpec().server().podUid()).isNull();
    }

    @Test
    void kernelTlsAddsTheTlsModuleOnceAndOtherModesDoNot() {
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 3);
        assertThat(spec(ve).tuning().kernelModules()).containsExactly("tls");

        var t = ve.getSpec().tuning();
        ve.setSpec(ve.getSpec()
                .withTuning(new io.videoedge.api.TuningSpec(
                        t.mode(),
                        t.congestionControl(),
                        t.sysctls(),
                        t.cpusetRelaxDomainLevel(),
                        t.numaInterleave(),
                        List.of("tcp_bbr", "tls"))));
        assertThat(spec(ve).tuning().kernelModules()).containsExactly("tcp_bbr", "tls");

        ve.setSpec(EdgeServerConfigRendererTest.withTls(
                ve.getSpec(), new TlsSpec(TlsMode.OPENSSL, "edge-tls", List.of("TLSv1.3"), true, null)));
        assertThat(spec(ve).tuning().kernelModules()).containsExactly("tcp_bbr", "tls");
        ve.setSpec(ve.getSpec()
                .withTuning(new io.videoedge.api.TuningSpec(
                        t.mode(),
                        t.congestionControl(),
                        t.sysctls(),
                        t.cpusetRelaxDomainLevel(),
                        t.numaInterleave(),
                        List.of())));
        assertThat(spec(ve).tuning().kernelModules()).isEmpty();
    }

    static VideoEdge withMode(VideoEdge ve, TlsMode mode) {
        ve.setSpec(EdgeServerConfigRendererTest.withTls(
                ve.getSpec(), new TlsSpec(mode, "edge-tls", List.of("TLSv1.2", "TLSv1.3"), true, null)));
        return ve;
    }

    @Test
    void ktlsOffloadTurnsOnTheNicsTlsTxOffloadKeepsTheTlsModuleAndChangesTheRevision() {
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 3);
        assertThat(ve.getSpec().tls().mode()).isEqualTo(TlsMode.KTLS);
        TuningInputs ktls = TuningInputs.of(ve.getSpec());
        assertThat(ktls.tlsTxOffload()).isNull();
        assertThat(spec(ve).tlsTxOffload()).isNull();

        withMode(ve, TlsMode.KTLS_OFFLOAD);
        TuningInputs offload = TuningInputs.of(ve.getSpec());
        assertThat(offload.tlsTxOffload()).isTrue();
        assertThat(spec(ve).tlsTxOffload()).isTrue();
        // device offload is kernel TLS too: the tls module stays asked for
        assertThat(spec(ve).tuning().kernelModules()).containsExactly("tls");
        // a new revision: the rollout re-tunes the nodes, one by one
        assertThat(offload.revision()).isNotEqualTo(ktls.revision());
        NodeTuning nt = render(ve, POD);
        assertThat(nt.getMetadata().getAnnotations()).containsEntry(Names.TUNING_REVISION, offload.revision());
        // what the NodeTuning carries reads back as the same inputs: a node tuned so is on target
        assertThat(TuningInputs.of(nt.getSpec())).isEqualTo(offload);
        assertThat(TuningInputs.of(nt.getSpec()).revision()).isEqualTo(offload.revision());
        // and the CRD's defaulting leaves it as rendered
        assertThat(CrdDefaulting.nodeTunings().apply(nt).getSpec()).isEqualTo(nt.getSpec());
        assertThat(Serialization.asYaml(nt)).contains("tlsTxOffload: true");

        // back to ktls: the offload is no longer asked for (the agent restores the NIC's original)
        withMode(ve, TlsMode.KTLS);
        assertThat(spec(ve).tlsTxOffload()).isNull();
        assertThat(TuningInputs.of(ve.getSpec()).revision()).isEqualTo(ktls.revision());
    }

    @Test
    void onlyAnHttpsAcceptorWithKtlsOffloadTurnsItOn() {
        for (TlsMode mode : List.of(TlsMode.NONE, TlsMode.OPENSSL, TlsMode.KTLS)) {
            VideoEdge ve = withMode(TestFiles.exampleVideoEdge("video", 3), mode);
            assertThat(spec(ve).tlsTxOffload()).as(mode.id()).isNull();
        }
        // ktls-offload with the HTTPS acceptor disabled: no TLS is served, nothing to offload
        VideoEdge ve = withMode(TestFiles.exampleVideoEdge("video", 3), TlsMode.KTLS_OFFLOAD);
        var server = ve.getSpec().server();
        ve.setSpec(ve.getSpec()
                .withServer(server.withHttps(
                        new io.videoedge.api.ServerSpec.Port(server.https().port(), false))));
        assertThat(spec(ve).tlsTxOffload()).isNull();
        assertThat(spec(ve).tuning().kernelModules()).doesNotContain("tls");
    }

    @Test
    void aTuningWithoutOffloadKeepsTheRevisionItHadBeforeTheFieldExisted() {
        // the example's revision as the operator computes it since sysctlMinimums (net.core.wmem_max and
        // rmem_max for the socket sizes) exist, and without tlsTxOffload: the minimums are new settings of
        // every node, so the upgrade to them re-tunes each node once (in a rollout, node by node); the offload
        // field changes nothing for a VideoEdge that does not use ktls-offload (it was "197a91bb05" before both)
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 3);
        assertThat(TuningInputs.of(ve.getSpec()).revision()).isEqualTo("9f70ea05ba");
        // a NodeTuning written before the offload field (or with false) reads as the same inputs
        var written = spec(ve);
        var before = new io.videoedge.api.NodeTuningSpec(
                written.source(), written.nic(), written.tuning(), written.server(), null, written.sysctlMinimums());
        var explicitFalse = new io.videoedge.api.NodeTuningSpec(
                written.source(), written.nic(), written.tuning(), written.server(), false, written.sysctlMinimums());
        assertThat(TuningInputs.of(before)).isEqualTo(TuningInputs.of(ve.getSpec()));
        assertThat(TuningInputs.of(explicitFalse)).isEqualTo(TuningInputs.of(ve.getSpec()));
        // one written before the minimums is another tuning: the node is re-tuned to take them
        var beforeMinimums = new io.videoedge.api.NodeTuningSpec(
                written.source(), written.nic(), written.tuning(), written.server());
        assertThat(TuningInputs.of(beforeMinimums).revision()).isEqualTo("197a91bb05");
    }

    static VideoEdge withSocket(VideoEdge ve, String recvBuf, String sendBuf) {
        var s = ve.getSpec();
        var k = s.server().socket();
        ve.setSpec(s.withServer(s.server()
                .withSocket(new io.videoedge.api.ServerSpec.Socket(
                        recvBuf, sendBuf, k.notsentLowat(), k.reusePort(), k.acceptorThreads(), k.backlog()))));
        return ve;
    }

    static VideoEdge withSysctls(VideoEdge ve, java.util.Map<String, String> sysctls) {
        var t = ve.getSpec().tuning();
        ve.setSpec(ve.getSpec()
                .withTuning(new io.videoedge.api.TuningSpec(
                        t.mode(),
                        t.congestionControl(),
                        sysctls,
                        t.cpusetRelaxDomainLevel(),
                        t.numaInterleave(),
                        t.kernelModules())));
        return ve;
    }

    @Test
    void theSocketSizesBecomeMinimumsOfTheNodesBufferCaps() {
        // the example's sendBuf 4m and recvBuf 64k: Linux caps SO_SNDBUF at wmem_max, SO_RCVBUF at rmem_max
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 3);
        assertThat(spec(ve).sysctlMinimums())
                .containsExactly(
                        java.util.Map.entry("net.core.rmem_max", 212992L),
                        java.util.Map.entry("net.core.wmem_max", 4194304L));
        // larger sizes are asked for in bytes (one-nio sizes, 1024-based)
        assertThat(spec(withSocket(ve, "1m", "8m")).sysctlMinimums())
                .containsEntry("net.core.wmem_max", 8388608L)
                .containsEntry("net.core.rmem_max", 1048576L);
        assertThat(spec(withSocket(ve, "300000", "5000000")).sysctlMinimums())
                .containsEntry("net.core.wmem_max", 5000000L)
                .containsEntry("net.core.rmem_max", 300000L);
        // smaller ones never go below the bases: the default sendBuf, the kernel's default cap
        assertThat(spec(withSocket(ve, "16k", "64k")).sysctlMinimums())
                .containsEntry("net.core.wmem_max", 4194304L)
                .containsEntry("net.core.rmem_max", 212992L);
    }

    @Test
    void aBufferCapTheUserSetsIsTheirsAndNoMinimumIsRendered() {
        VideoEdge ve = withSysctls(
                TestFiles.exampleVideoEdge("video", 3),
                java.util.Map.of("net.core.wmem_max", "16777216", "net.ipv4.tcp_notsent_lowat", "262144"));
        io.videoedge.api.NodeTuningSpec nt = spec(ve);
        assertThat(nt.tuning().sysctls()).containsEntry("net.core.wmem_max", "16777216");
        assertThat(nt.sysctlMinimums()).containsOnlyKeys("net.core.rmem_max");

        withSysctls(ve, java.util.Map.of("net.core.wmem_max", "8388608", "net.core.rmem_max", "8388608"));
        assertThat(spec(ve).sysctlMinimums()).isNull();
    }

    @Test
    void socketSizesChangeTheTuningRevisionOnlyWhenTheNodeMustChange() {
        String before = TuningInputs.of(TestFiles.exampleVideoEdge("video", 3).getSpec())
                .revision();
        // live changes within the bases (the e2e's recvBuf 96k, RolloutIT's sendBuf 1m): the node stays as it is
        assertThat(TuningInputs.of(withSocket(TestFiles.exampleVideoEdge("video", 3), "96k", "1m")
                                .getSpec())
                        .revision())
                .isEqualTo(before);
        assertThat(TuningInputs.of(withSocket(TestFiles.exampleVideoEdge("video", 3), "208k", "4m")
                                .getSpec())
                        .revision())
                .isEqualTo(before);
        // a send buffer above 4m needs a larger wmem_max on every node: a tuning change
        assertThat(TuningInputs.of(withSocket(TestFiles.exampleVideoEdge("video", 3), "64k", "8m")
                                .getSpec())
                        .revision())
                .isNotEqualTo(before);
        assertThat(TuningInputs.of(withSocket(TestFiles.exampleVideoEdge("video", 3), "256k", "4m")
                                .getSpec())
                        .revision())
                .isNotEqualTo(before);
    }

    @Test
    void theMinimumsRoundTripThroughTheNodeTuning() {
        VideoEdge ve = withSocket(TestFiles.exampleVideoEdge("video", 3), "1m", "8m");
        TuningInputs rendered = TuningInputs.of(ve.getSpec());
        NodeTuning nt = render(ve, POD);
        assertThat(TuningInputs.of(nt.getSpec())).isEqualTo(rendered);
        assertThat(TuningInputs.of(nt.getSpec()).revision()).isEqualTo(rendered.revision());
    }
}
