package io.videoedge.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.testing.RealApiServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The committed CRDs on a real kube-apiserver: valid objects pass, invalid ones are refused with a clear message. */
class CrdAdmissionIT {
    private static final Object REMOVE = new Object();
    private static RealApiServer api;
    private static KubernetesClient client;
    private static String namespace;

    @BeforeAll
    static void startApiServer() {
        api = RealApiServer.shared();
        client = api.newClient();
        namespace = api.createNamespace("crd");
    }

    @AfterAll
    static void closeClient() {
        client.close();
    }

    @Test
    void crdsAreEstablishedWithStatusSubresourceAndShortNames() {
        CustomResourceDefinition ve = client.apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName("videoedges.videoedge.io")
                .get();
        CustomResourceDefinition nt = client.apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName("nodetunings.videoedge.io")
                .get();
        assertThat(ve.getSpec().getScope()).isEqualTo("Namespaced");
        assertThat(ve.getSpec().getNames().getShortNames()).containsExactly("ve");
        assertThat(ve.getSpec().getVersions().get(0).getSubresources().getStatus())
                .isNotNull();
        assertThat(nt.getSpec().getScope()).isEqualTo("Cluster");
        assertThat(nt.getSpec().getNames().getShortNames()).containsExactly("nt");
        assertThat(nt.getSpec().getVersions().get(0).getSubresources().getStatus())
                .isNotNull();
    }

    @Test
    void exampleVideoEdgeIsAcceptedAndReadBackTyped() {
        GenericKubernetesResource created =
                client.resource(example("accepted")).inNamespace(namespace).create();
        VideoEdge typed = client.resources(VideoEdge.class)
                .inNamespace(namespace)
                .withName(created.getMetadata().getName())
                .get();
        assertThat(typed.getSpec().tls().mode()).isEqualTo(TlsMode.KTLS);
        assertThat(typed.getSpec().tuning().sysctls()).containsEntry("net.ipv4.tcp_mem", "15000000 15000000 15000000");
        assertThat(typed.getSpec().server().socket().sendBuf()).isEqualTo("4m");
    }

    @Test
    void anHttpsOriginWithACaSecretIsAccepted() {
        GenericKubernetesResource ve = example("https-origin");
        set(ve, "spec.server.origin", Map.of("url", "https://origin.example:8443/video", "caSecretName", "origin-ca"));
        client.resource(ve).inNamespace(namespace).create();
        VideoEdge typed = client.resources(VideoEdge.class)
                .inNamespace(namespace)
                .withName("https-origin")
                .get();
        assertThat(typed.getSpec().server().origin().caSecretName()).isEqualTo("origin-ca");
        assertThat(typed.getSpec().server().origin().maxConnections()).isEqualTo(64);
    }

    @Test
    void signedUrlRulesAreAcceptedAndTheModeDefaultsToRequired() {
        GenericKubernetesResource ve = example("signed-urls");
        set(
                ve,
                "spec.server.signedUrls",
                Map.of(
                        "secretName",
                        "url-keys",
                        "rules",
                        List.of(Map.of("prefix", "/vod/"), Map.of("prefix", "/vod/free/", "mode", "off"))));
        client.resource(ve).inNamespace(namespace).create();
        VideoEdge typed = client.resources(VideoEdge.class)
                .inNamespace(namespace)
                .withName("signed-urls")
                .get();
        assertThat(typed.getSpec().server().signedUrls().rules())
                .extracting(r -> r.prefix() + " " + r.mode())
                .containsExactly("/vod/ REQUIRED", "/vod/free/ OFF");
    }

    @Test
    void emptySpecIsDefaultedByTheApiServer() {
        VideoEdge ve = new VideoEdge();
        ve.getMetadata().setName("defaults");
        ve.setSpec(new VideoEdgeSpec(null, null, null, null, null, null, null));
        VideoEdge created = client.resource(ve).inNamespace(namespace).create();

        VideoEdgeSpec spec = created.getSpec();
        assertThat(spec.nodeSelector()).containsEntry("videoedge.io/role", "edge");
        assertThat(spec.nic().type()).isEqualTo(NicType.AUTO);
        assertThat(spec.nic().irqAffinity()).isEqualTo(IrqAffinity.SPREAD);
        assertThat(spec.nic().rps()).isTrue();
        assertThat(spec.server().cpus()).isEqualTo(2);
        assertThat(spec.server().selectors()).isZero();
        assertThat(spec.server().http().port()).isEqualTo(80);
        assertThat(spec.server().https().port()).isEqualTo(443);
        assertThat(spec.server().socket().recvBuf()).isEqualTo("64k");
        assertThat(spec.server().socket().notsentLowat()).isEqualTo("512k");
        assertThat(spec.server().cache().disk().path()).isEqualTo("/var/cache/videoedge");
        assertThat(spec.server().limits())
                .isEqualTo(new ServerSpec.Limits("30s", "10s", 1000, "64k", "30s", 32, 0, 100));
        assertThat(spec.tls().mode()).isEqualTo(TlsMode.NONE);
        assertThat(spec.tls().protocols()).containsExactly("TLSv1.2", "TLSv1.3");
        assertThat(spec.tuning().mode()).isEqualTo(TuningMode.APPLY);
        assertThat(spec.tuning().congestionControl()).isEqualTo("bbr");
        assertThat(spec.rollout().maxUnavailable()).isNull(); // server.maxUnavailable (1) applies
        assertThat(spec.rollout().progressDeadlineSeconds()).isEqualTo(600);
        assertThat(spec.rollout().soakSeconds()).isEqualTo(10);
        assertThat(spec.rollout().autoRevert()).isTrue();
        assertThat(spec.rollout().drainSeconds()).isEqualTo(5);
    }

    @Test
    void nodeTuningIsClusterScopedAndAcceptsAgentStatus() {
        NodeTuning nt = new NodeTuning();
        nt.getMetadata().setName("node-a");
        nt.setSpec(new NodeTuningSpec(
                new NodeTuningSpec.Source(namespace, "edge", "uid-1"),
                null,
                new TuningSpec(
                        TuningMode.PLAN,
                        "bbr",
                        Map.of("net.ipv4.tcp_notsent_lowat", "262144"),
                        1,
                        false,
                        List.of("tls")),
                null));
        NodeTuning created = client.resource(nt).create();
        assertThat(created.getMetadata().getNamespace()).isNull();
        assertThat(created.getSpec().nic().type()).isEqualTo(NicType.AUTO);

        created.setStatus(new NodeTuningStatus(
                created.getMetadata().getGeneration(),
                List.of(),
                "planned 1 change",
                "abc",
                null,
                List.of(new NodeTuningStatus.Setting(
                        "sysctl/net.ipv4.tcp_notsent_lowat", "262144", "4294967295", null, SettingState.PLANNED, null)),
                null,
                null));
        NodeTuning withStatus = client.resource(created).updateStatus();
        assertThat(withStatus.getStatus().settings())
                .singleElement()
                .satisfies(s -> assertThat(s.state()).isEqualTo(SettingState.PLANNED));
    }

    @Test
    void bufferCapsAtLeastTheSocketSizesAreAcceptedAndNodeTuningMinimumsNameIntegerSysctls() {
        GenericKubernetesResource equal = example("caps-equal");
        set(equal, "spec.tuning.sysctls", Map.of("net.core.wmem_max", "4194304", "net.core.rmem_max", "65536"));
        client.resource(equal).inNamespace(namespace).create();
        GenericKubernetesResource larger = example("caps-larger");
        set(larger, "spec.tuning.sysctls", Map.of("net.core.wmem_max", " 16777216 ", "net.core.rmem_max", "8388608"));
        set(larger, "spec.server.socket.sendBuf", "16m");
        client.resource(larger).inNamespace(namespace).create();

        NodeTuning nt = new NodeTuning();
        nt.getMetadata().setName("node-minimums");
        nt.setSpec(new NodeTuningSpec(
                new NodeTuningSpec.Source(namespace, "edge", "uid-1"),
                null,
                null,
                null,
                null,
                Map.of("net.core.wmem_max", 4194304L, "net.core.rmem_max", 212992L)));
        assertThat(client.resource(nt).create().getSpec().sysctlMinimums())
                .containsEntry("net.core.wmem_max", 4194304L)
                .containsEntry("net.core.rmem_max", 212992L);
        NodeTuning bad = new NodeTuning();
        bad.getMetadata().setName("node-bad-minimums");
        bad.setSpec(new NodeTuningSpec(
                new NodeTuningSpec.Source(namespace, "edge", "uid-1"),
                null,
                null,
                null,
                null,
                Map.of("net.ipv4.tcp_mem", 1L)));
        assertThatThrownBy(() -> client.resource(bad).create())
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getMessage())
                                .contains("spec.sysctlMinimums")
                                .contains("sysctlMinimums names sysctls that take one integer")
                                .contains("not net.ipv4.tcp_mem"));
    }

    @Test
    void anRfsFlowTableUpToTheKernelsLimitIsAcceptedPowerOfTwoOrNot() {
        for (String entries : List.of("0", "1000", " 536870912 ")) {
            GenericKubernetesResource ve = example("flow-" + entries.strip());
            set(ve, "spec.tuning.sysctls", Map.of("net.core.rps_sock_flow_entries", entries));
            client.resource(ve).inNamespace(namespace).create(); // the agent rounds 1000 up to 1024, as the kernel does
        }
    }

    @Test
    void integerSysctlsAreAcceptedUpToTheEndsOfTheirKernelRanges() {
        GenericKubernetesResource ve = example("int-ends");
        set(
                ve,
                "spec.tuning.sysctls",
                Map.of(
                        "vm.swappiness", "200",
                        "vm.overcommit_memory", "0",
                        "net.core.somaxconn", " 2147483647 ",
                        "net.ipv4.tcp_notsent_lowat", "4294967295",
                        "net.core.wmem_default", "4608",
                        "net.ipv4.tcp_fin_timeout", "2147483",
                        "net.ipv4.tcp_wmem", "4096 16384 2147483647",
                        "net.ipv4.tcp_mem", "100000000000 100000000000 100000000000"));
        client.resource(ve).inNamespace(namespace).create();
    }

    @Test
    void kubectlShowsThePrinterColumns() {
        GenericKubernetesResource created =
                client.resource(example("columns")).inNamespace(namespace).create();
        created.setAdditionalProperty(
                "status",
                Map.of(
                        "tuned",
                        "3/3",
                        "serving",
                        "3/3",
                        "updated",
                        "2/3",
                        "tls",
                        "ktls 2, openssl 1",
                        "nodes",
                        Map.of("selected", 3, "tuned", 3, "serving", 3, "updated", 2, "needingAttention", 2)));
        client.resource(created).inNamespace(namespace).updateStatus();
        String ve = api.kubectl("get", "ve", "columns", "-n", namespace);
        assertThat(ve.lines().findFirst().orElseThrow())
                .containsSubsequence("NAME", "READY", "TUNED", "SERVING", "UPDATED", "TLS", "AGE");
        // the TLS column is what the nodes serve with (the spec asks for ktls; one node has no tls module)
        assertThat(ve.lines().skip(1).findFirst().orElseThrow())
                .containsSubsequence("columns", "3/3", "3/3", "2/3", "ktls 2, openssl 1");
        // -o wide adds how many nodes need attention (status.nodesNeedingAttention lists the first ones)
        String wide = api.kubectl("get", "ve", "columns", "-n", namespace, "-o", "wide");
        assertThat(wide.lines().findFirst().orElseThrow())
                .containsSubsequence("NAME", "READY", "TUNED", "SERVING", "UPDATED", "TLS", "ATTENTION", "AGE");
        assertThat(wide.lines().skip(1).findFirst().orElseThrow())
                .containsSubsequence("columns", "3/3", "3/3", "2/3", "ktls 2, openssl 1", "2");
        assertThat(ve.lines().findFirst().orElseThrow()).doesNotContain("ATTENTION");

        String nt = api.kubectl("get", "nt");
        assertThat(nt.lines().findFirst().orElseThrow())
                .containsSubsequence("NAME", "APPLIED", "DEGRADED", "MESSAGE", "AGE");
    }

    @Test
    void kubectlExplainDocumentsTheNicFields() {
        String explain = api.kubectl("explain", "ve.spec.nic");
        assertThat(explain).contains("irqAffinity", "combinedQueues", "coalescing", "Receive Packet Steering", "mlx5");
        assertThat(api.kubectl("explain", "nt.status.settings").replaceAll("\\s+", " "))
                .contains("original", "restored when the NodeTuning is deleted");
    }

    static Stream<Arguments> invalidVideoEdges() {
        return Stream.of(
                refused("unknown NIC type", "spec.nic.type", "bnx2", "spec.nic.type", "Unsupported value: \"bnx2\""),
                refused("unknown TLS mode", "spec.tls.mode", "tls13", "spec.tls.mode", "Unsupported value: \"tls13\""),
                refused(
                        "unknown IRQ policy",
                        "spec.nic.irqAffinity",
                        "balanced",
                        "spec.nic.irqAffinity",
                        "Unsupported value"),
                refused("zero CPUs", "spec.server.cpus", 0, "spec.server.cpus", "should be greater than or equal to 1"),
                refused(
                        "too many selectors",
                        "spec.server.selectors",
                        1025,
                        "spec.server.selectors",
                        "less than or equal to 1024"),
                refused(
                        "negative selectors",
                        "spec.server.selectors",
                        -1,
                        "spec.server.selectors",
                        "greater than or equal to 0"),
                refused(
                        "relax level out of range",
                        "spec.tuning.cpusetRelaxDomainLevel",
                        6,
                        "spec.tuning.cpusetRelaxDomainLevel",
                        "less than or equal to 5"),
                refused(
                        "negative coalescing",
                        "spec.nic.coalescing.rxUsecs",
                        -5,
                        "spec.nic.coalescing.rxUsecs",
                        "greater than or equal to 0"),
                refused(
                        "sysctl outside the allowed prefixes",
                        "spec.tuning.sysctls",
                        Map.of("fs.file-max", "100"),
                        "spec.tuning.sysctls",
                        "not allowed: fs.file-max"),
                refused(
                        "kernel sysctl that is not a scheduler one",
                        "spec.tuning.sysctls",
                        Map.of("kernel.panic", "1"),
                        "spec.tuning.sysctls",
                        "not allowed: kernel.panic"),
                refused(
                        "sysctl name with '..'",
                        "spec.tuning.sysctls",
                        Map.of("net.ipv4..tcp_mem", "1 2 3"),
                        "spec.tuning.sysctls",
                        "without '..' or '/'"),
                refused(
                        "sysctl name with '/'",
                        "spec.tuning.sysctls",
                        Map.of("net.ipv4.conf/eth0/rp_filter", "1"),
                        "spec.tuning.sysctls",
                        "without '..' or '/'"),
                refused(
                        "tcp_mem with two numbers",
                        "spec.tuning.sysctls",
                        Map.of("net.ipv4.tcp_mem", "100 200"),
                        "spec.tuning.sysctls",
                        "take three integers"),
                refused(
                        "tcp_mem decreasing",
                        "spec.tuning.sysctls",
                        Map.of("net.ipv4.tcp_mem", "300 200 100"),
                        "spec.tuning.sysctls",
                        "must be non-decreasing"),
                refused(
                        "tcp_wmem decreasing",
                        "spec.tuning.sysctls",
                        Map.of("net.ipv4.tcp_wmem", "4096 65536 1024"),
                        "spec.tuning.sysctls",
                        "must be non-decreasing"),
                refused(
                        "TLS without a secret",
                        "spec.tls.secretName",
                        REMOVE,
                        "spec.tls.secretName",
                        "tls.secretName is required"),
                refused(
                        "wmem_max below sendBuf (4m)",
                        "spec.tuning.sysctls",
                        Map.of("net.core.wmem_max", "4194303"),
                        "spec.tuning.sysctls",
                        "sets net.core.wmem_max below server.socket.sendBuf (in bytes): Linux caps SO_SNDBUF"),
                refused(
                        "wmem_max below a sendBuf given in bytes",
                        Map.of(
                                "spec.server.socket.sendBuf",
                                "5000000",
                                "spec.tuning.sysctls",
                                Map.of("net.core.wmem_max", " 4999999 ")),
                        "spec.tuning.sysctls",
                        "sets net.core.wmem_max below server.socket.sendBuf"),
                refused(
                        "rmem_max below recvBuf (64k)",
                        "spec.tuning.sysctls",
                        Map.of("net.core.rmem_max", "65535"),
                        "spec.tuning.sysctls",
                        "sets net.core.rmem_max below server.socket.recvBuf (in bytes): Linux caps SO_RCVBUF"),
                refused(
                        "kTLS offload on virtio",
                        Map.of("spec.tls.mode", "ktls-offload", "spec.nic.type", "virtio"),
                        "spec.tls.mode",
                        "needs a NIC that encrypts TLS records"),
                refused(
                        "no acceptor (HTTP disabled, TLS off)",
                        Map.of("spec.tls.mode", "none", "spec.server.http.enabled", false),
                        "spec.server.http.enabled",
                        "no acceptor would listen"),
                refused(
                        "an enabled acceptor without a port",
                        "spec.server.http",
                        Map.of("enabled", true),
                        "spec.server.http.port",
                        "an enabled acceptor needs a port"),
                refused(
                        "HTTP on the admin port",
                        "spec.server.http.port",
                        9400,
                        "spec.server.http.port",
                        "9400 is the edge server's admin port"),
                refused(
                        "HTTPS on the admin port",
                        "spec.server.https.port",
                        9400,
                        "spec.server.https.port",
                        "9400 is the edge server's admin port"),
                refused(
                        "origin URL with a space",
                        "spec.server.origin",
                        Map.of("url", "http://origin:8080/a b"),
                        "spec.server.origin.url",
                        "origin.url must be http:// or https://"),
                refused(
                        "origin URL with a query the server would drop",
                        "spec.server.origin",
                        Map.of("url", "http://origin/v?k=1"),
                        "spec.server.origin.url",
                        "no user, query or fragment"),
                refused(
                        "origin host with an underscore",
                        "spec.server.origin",
                        Map.of("url", "http://my_origin:8080"),
                        "spec.server.origin.url",
                        "origin.url must be http:// or https://"),
                refused(
                        "origin port out of range",
                        "spec.server.origin",
                        Map.of("url", "http://origin:70000"),
                        "spec.server.origin.url",
                        "origin.url must be http:// or https://"),
                refused(
                        "buffer size that is not a one-nio size",
                        "spec.server.socket.sendBuf",
                        "4 megabytes",
                        "spec.server.socket.sendBuf",
                        "should match"),
                refused(
                        "port out of range",
                        "spec.server.http.port",
                        70000,
                        "spec.server.http.port",
                        "less than or equal to 65535"),
                refused(
                        "same port for http and https",
                        "spec.server.https.port",
                        8080,
                        "spec.server.https.port",
                        "must differ"),
                refused(
                        "TLS 1.0",
                        "spec.tls.protocols",
                        List.of("TLSv1", "TLSv1.2"),
                        "spec.tls.protocols",
                        "only TLSv1.2 and TLSv1.3"),
                refused(
                        "0-RTT without TLS 1.3",
                        "spec.tls.protocols",
                        List.of("TLSv1.2"),
                        "spec.tls.earlyData.enabled",
                        "0-RTT) is a TLS 1.3 feature"),
                refused(
                        "memory that is not a quantity",
                        "spec.server.memory",
                        "lots",
                        "spec.server.memory",
                        "should match"),
                refused(
                        "origin that is not an http URL",
                        "spec.server.origin",
                        Map.of("url", "ftp://origin"),
                        "spec.server.origin.url",
                        "origin.url must be http:// or https://"),
                refused(
                        "a CA Secret for a plain http origin",
                        "spec.server.origin",
                        Map.of("url", "http://origin:8080", "caSecretName", "origin-ca"),
                        "spec.server.origin.caSecretName",
                        "origin.caSecretName is only for an https:// origin.url"),
                refused(
                        "staleWhileRevalidate that is no one-nio time",
                        "spec.server.cache.staleWhileRevalidate",
                        "5 minutes",
                        "spec.server.cache.staleWhileRevalidate",
                        "should match"),
                refused(
                        "a slice smaller than 64Ki",
                        "spec.server.cache.slice",
                        "4Ki",
                        "spec.server.cache.slice",
                        "cache.slice must be 0 (off) or a whole number of bytes from 64Ki to 1Gi"),
                refused(
                        "a slice larger than 1Gi",
                        "spec.server.cache.slice",
                        "2Gi",
                        "spec.server.cache.slice",
                        "cache.slice must be 0 (off) or a whole number of bytes from 64Ki to 1Gi"),
                refused(
                        "a failover origin without origin.url",
                        "spec.server.origin",
                        Map.of("failover", List.of(Map.of("url", "http://backup:8080"))),
                        "spec.server.origin.failover",
                        "origin.failover needs origin.url and must not name an origin twice"),
                refused(
                        "a failover origin that is origin.url again",
                        "spec.server.origin",
                        Map.of("url", "http://o:8080", "failover", List.of(Map.of("url", "http://o:8080"))),
                        "spec.server.origin.failover",
                        "origin.failover needs origin.url and must not name an origin twice"),
                refused(
                        "a failover origin that is no URL",
                        "spec.server.origin",
                        Map.of("url", "http://o:8080", "failover", List.of(Map.of("url", "ftp://b"))),
                        "spec.server.origin.failover[0].url",
                        "a failover origin's url must be http:// or https://"),
                refused(
                        "a downFor under 100ms",
                        "spec.server.origin",
                        Map.of("url", "http://o:8080", "downFor", "50ms"),
                        "spec.server.origin.downFor",
                        "downFor must be from 100ms"),
                refused(
                        "signed-URL rules that check tokens without a key Secret",
                        "spec.server.signedUrls",
                        Map.of("rules", List.of(Map.of("prefix", "/vod/", "mode", "optional"))),
                        "spec.server.signedUrls.secretName",
                        "signedUrls.secretName is required when a rule is required or optional"),
                refused(
                        "a signed-URL prefix that is not a path",
                        "spec.server.signedUrls",
                        Map.of("secretName", "k", "rules", List.of(Map.of("prefix", "vod/"))),
                        "spec.server.signedUrls.rules[0].prefix",
                        "should match"),
                refused(
                        "a signed-URL prefix with a query",
                        "spec.server.signedUrls",
                        Map.of("secretName", "k", "rules", List.of(Map.of("prefix", "/vod?x=1"))),
                        "spec.server.signedUrls.rules[0].prefix",
                        "should match"),
                refused(
                        "a signed-URL prefix with a .. segment",
                        "spec.server.signedUrls",
                        Map.of("secretName", "k", "rules", List.of(Map.of("prefix", "/vod/../admin/"))),
                        "spec.server.signedUrls.rules[0].prefix",
                        "no '.' or '..' segments"),
                refused(
                        "two signed-URL rules for one prefix",
                        "spec.server.signedUrls",
                        Map.of(
                                "secretName",
                                "k",
                                "rules",
                                List.of(Map.of("prefix", "/vod/"), Map.of("prefix", "/vod/", "mode", "off"))),
                        "spec.server.signedUrls.rules",
                        "each prefix at most once"),
                refused(
                        "an unknown signed-URL mode",
                        "spec.server.signedUrls",
                        Map.of("secretName", "k", "rules", List.of(Map.of("prefix", "/vod/", "mode", "sometimes"))),
                        "spec.server.signedUrls.rules[0].mode",
                        "Unsupported value"),
                refused(
                        "a CA Secret without an origin URL",
                        "spec.server.origin",
                        Map.of("caSecretName", "origin-ca"),
                        "spec.server.origin.caSecretName",
                        "origin.caSecretName is only for an https:// origin.url"),
                refused(
                        "a CA Secret name that is no Secret name",
                        "spec.server.origin",
                        Map.of("url", "https://origin", "caSecretName", "Origin_CA"),
                        "spec.server.origin.caSecretName",
                        "should match"),
                refused(
                        "congestion control with shell characters",
                        "spec.tuning.congestionControl",
                        "bbr;reboot",
                        "spec.tuning.congestionControl",
                        "should match"),
                refused(
                        "kernel module path",
                        "spec.tuning.kernelModules",
                        List.of("../../evil"),
                        "spec.tuning.kernelModules",
                        "kernel module names are"),
                refused(
                        "interface name too long",
                        "spec.nic.interfaces",
                        List.of("averyveryverylongname0"),
                        "spec.nic.interfaces",
                        "interface names are 1-15 characters"),
                refused(
                        "an interface as `ip link` shows a VLAN",
                        "spec.nic.interfaces",
                        List.of("eth0.100@eth0"),
                        "spec.nic.interfaces",
                        "its name is eth0.100"),
                refused(
                        "an interface alias",
                        "spec.nic.interfaces",
                        List.of("eth0:1"),
                        "spec.nic.interfaces",
                        "interface names are 1-15 characters"),
                refused(
                        "a content path holding the kubelet's directory",
                        "spec.server.contentPath",
                        "/var/lib/",
                        "spec.server.contentPath",
                        "must not be, hold or lie in a system directory"),
                refused(
                        "a content path that is /etc behind a '.' segment",
                        "spec.server.contentPath",
                        "/./etc",
                        "spec.server.contentPath",
                        "must not contain '..' segments (nor '.' ones)"),
                refused(
                        "a cache directory in /etc",
                        "spec.server.cache",
                        Map.of("disk", Map.of("path", "/etc/videoedge")),
                        "spec.server.cache.disk.path",
                        "must not be, hold or lie in a system directory"),
                refused(
                        "the cache inside the content",
                        Map.of(
                                "spec.server.contentPath",
                                "/srv/video",
                                "spec.server.cache",
                                Map.of("disk", Map.of("path", "/srv/video/cache"))),
                        "spec.server.cache.disk.path",
                        "must not be the same directory nor one inside the other"),
                refused(
                        "an image with a trailing blank",
                        "spec.server.image",
                        "registry.example/edge:1 ",
                        "spec.server.image",
                        "should match"),
                refused(
                        "a TLS Secret name no Secret can have",
                        "spec.tls",
                        Map.of("mode", "openssl", "secretName", "Edge_TLS"),
                        "spec.tls.secretName",
                        "tls.secretName is a Secret's name"),
                refused(
                        "a failover origin with a comma",
                        "spec.server.origin",
                        Map.of(
                                "url",
                                "http://o:8080",
                                "failover",
                                List.of(Map.of("url", "http://b.example/x,http://c.example"))),
                        "spec.server.origin.failover[0].url",
                        "must not hold a comma"),
                refused(
                        "content path with '..'",
                        "spec.server.contentPath",
                        "/var/lib/../../etc",
                        "spec.server.contentPath",
                        "must not contain '..'"),
                refused(
                        "maxUnavailable that is not a count or percent",
                        "spec.server.maxUnavailable",
                        "half",
                        "spec.server.maxUnavailable",
                        "should match"),
                refused(
                        "a socket size the server cannot hold (an int)",
                        "spec.server.socket.sendBuf",
                        "4g",
                        "spec.server.socket.sendBuf",
                        "at most 2147483647 bytes"),
                refused(
                        "2048m is one byte too many",
                        "spec.server.socket.recvBuf",
                        "2048m",
                        "spec.server.socket.recvBuf",
                        "at most 2147483647 bytes"),
                refused(
                        "a size with 13 digits",
                        "spec.server.socket.notsentLowat",
                        "1234567890123",
                        "spec.server.socket.notsentLowat",
                        "should match"),
                refused(
                        "a header deadline under a second",
                        "spec.server.limits.headerTimeout",
                        "500ms",
                        "spec.server.limits.headerTimeout",
                        "between 1s and 1h"),
                refused(
                        "a header deadline over an hour",
                        "spec.server.limits.headerTimeout",
                        "61m",
                        "spec.server.limits.headerTimeout",
                        "between 1s and 1h"),
                refused(
                        "a handshake deadline of a day",
                        "spec.server.limits.handshakeTimeout",
                        "1d",
                        "spec.server.limits.handshakeTimeout",
                        "between 1s and 1h"),
                refused(
                        "a handshake deadline without a unit",
                        "spec.server.limits.handshakeTimeout",
                        "10",
                        "spec.server.limits.handshakeTimeout",
                        "should match"),
                refused(
                        "no connection per address",
                        "spec.server.limits.maxConnectionsPerAddress",
                        0,
                        "spec.server.limits.maxConnectionsPerAddress",
                        "greater than or equal to 1"),
                refused(
                        "more connections per address than the bound",
                        "spec.server.limits.maxConnectionsPerAddress",
                        1000001,
                        "spec.server.limits.maxConnectionsPerAddress",
                        "less than or equal to 1000000"),
                refused(
                        "a slow-reader minimum the server cannot hold",
                        "spec.server.limits.minSendBytes",
                        "2g",
                        "spec.server.limits.minSendBytes",
                        "at most 2147483647 bytes"),
                refused(
                        "a slow-reader period of 0s",
                        "spec.server.limits.minSendPeriod",
                        "0s",
                        "spec.server.limits.minSendPeriod",
                        "between 1s and 1h"),
                refused(
                        "no pipelining at all",
                        "spec.server.limits.maxPipelined",
                        0,
                        "spec.server.limits.maxPipelined",
                        "greater than or equal to 1"),
                refused(
                        "deeper pipelining than one-nio holds",
                        "spec.server.limits.maxPipelined",
                        256,
                        "spec.server.limits.maxPipelined",
                        "less than or equal to 255"),
                refused(
                        "a negative request rate",
                        "spec.server.limits.maxRequestRate",
                        -1,
                        "spec.server.limits.maxRequestRate",
                        "greater than or equal to 0"),
                refused(
                        "a request rate above the bound",
                        "spec.server.limits.maxRequestRate",
                        1000001,
                        "spec.server.limits.maxRequestRate",
                        "less than or equal to 1000000"),
                refused(
                        "an empty request bucket",
                        "spec.server.limits.requestBurst",
                        0,
                        "spec.server.limits.requestBurst",
                        "greater than or equal to 1"),
                refused(
                        "a timeout the server cannot hold",
                        "spec.server.origin",
                        Map.of("url", "http://o:8080", "readTimeout", "999999999d"),
                        "spec.server.origin.readTimeout",
                        "at most 2147483647ms"),
                refused(
                        "cache.memory not below server.memory",
                        "spec.server.cache.memory",
                        "1Gi",
                        "spec.server.cache.memory",
                        "must be less than server.memory"),
                refused(
                        "a cache that does not fit beside the JVM",
                        Map.of("spec.server.memory", "2Gi", "spec.server.cache.memory", "1313Mi"),
                        "spec.server.cache.memory",
                        "must fit in server.memory beside the JVM"),
                refused(
                        "a server too small for the JVM",
                        "spec.server.memory",
                        "256Mi",
                        "spec.server.memory",
                        "at least 320Mi"),
                refused(
                        "a sysctl value with a newline",
                        "spec.tuning.sysctls",
                        Map.of("net.ipv4.tcp_notsent_lowat", "1\n2"),
                        "spec.tuning.sysctls",
                        "one line of printable ASCII"),
                refused(
                        "a sysctl value with a control character",
                        "spec.tuning.sysctls",
                        Map.of("net.core.somaxconn", "1\u0007"),
                        "spec.tuning.sysctls",
                        "one line of printable ASCII"),
                refused(
                        "an RFS flow table past the kernel's 2^29",
                        "spec.tuning.sysctls",
                        Map.of("net.core.rps_sock_flow_entries", "536870913"),
                        "spec.tuning.sysctls",
                        "net.core.rps_sock_flow_entries is 0 to 536870912"),
                refused(
                        "a negative RFS flow table",
                        "spec.tuning.sysctls",
                        Map.of("net.core.rps_sock_flow_entries", "-1"),
                        "spec.tuning.sysctls",
                        "net.core.rps_sock_flow_entries is 0 to 536870912"),
                refused(
                        "a swappiness past the kernel's 200",
                        "spec.tuning.sysctls",
                        Map.of("vm.swappiness", "201"),
                        "spec.tuning.sysctls",
                        "sysctl value out of range: vm.swappiness is 0 to 200"),
                refused(
                        "an int sysctl past the kernel's int",
                        "spec.tuning.sysctls",
                        Map.of("net.core.somaxconn", " 2147483648 ", "vm.dirty_ratio", "50"),
                        "spec.tuning.sysctls",
                        "net.core.somaxconn is 0 to 2147483647"),
                refused(
                        "eighteen digits for an unsigned int",
                        "spec.tuning.sysctls",
                        Map.of("net.ipv4.tcp_notsent_lowat", "999999999999999999"),
                        "spec.tuning.sysctls",
                        "net.ipv4.tcp_notsent_lowat is 0 to 4294967295"),
                refused(
                        "a negative socket buffer cap",
                        "spec.tuning.sysctls",
                        Map.of("net.core.rmem_default", "-1"),
                        "spec.tuning.sysctls",
                        "net.core.rmem_default is 2304 to 2147483647"),
                refused(
                        "a per-socket buffer triplet past an int",
                        "spec.tuning.sysctls",
                        Map.of("net.ipv4.tcp_wmem", "4096 16384 3000000000"),
                        "spec.tuning.sysctls",
                        "each at most 2147483647"),
                refused(
                        "an integer sysctl given words",
                        "spec.tuning.sysctls",
                        Map.of("vm.swappiness", "low"),
                        "spec.tuning.sysctls",
                        "takes one integer: vm.swappiness"),
                refused(
                        "maxUnavailable zero (a rollout could never start)",
                        "spec.rollout.maxUnavailable",
                        "0",
                        "spec.rollout.maxUnavailable",
                        "should match"),
                refused(
                        "maxUnavailable 0%",
                        "spec.rollout.maxUnavailable", "0%", "spec.rollout.maxUnavailable", "should match"),
                refused(
                        "maxUnavailable above 100%",
                        "spec.rollout.maxUnavailable", "150%", "spec.rollout.maxUnavailable", "should match"),
                refused(
                        "progress deadline under 10 s",
                        "spec.rollout.progressDeadlineSeconds",
                        5,
                        "spec.rollout.progressDeadlineSeconds",
                        "greater than or equal to 10"),
                refused(
                        "a drain as long as the progress deadline (every turn would fail while draining)",
                        Map.of("spec.rollout.drainSeconds", 60, "spec.rollout.progressDeadlineSeconds", 60),
                        "spec.rollout.drainSeconds",
                        "must be below rollout.progressDeadlineSeconds"),
                refused(
                        "the longest drain against the default progress deadline (600 s)",
                        "spec.rollout.drainSeconds",
                        600,
                        "spec.rollout.drainSeconds",
                        "must be below rollout.progressDeadlineSeconds"),
                refused(
                        "negative soak",
                        "spec.rollout.soakSeconds",
                        -1,
                        "spec.rollout.soakSeconds",
                        "greater than or equal to 0"),
                refused(
                        "queue count zero",
                        "spec.nic.combinedQueues",
                        0,
                        "spec.nic.combinedQueues",
                        "greater than or equal to 1"),
                refused(
                        "udp_mem with one number",
                        "spec.tuning.sysctls",
                        Map.of("net.ipv4.udp_mem", "1"),
                        "spec.tuning.sysctls",
                        "udp_mem take three integers"),
                refused(
                        "a toleration of every key with a value",
                        "spec.tolerations",
                        List.of(Map.of("operator", "Equal", "value", "x")),
                        "spec.tolerations[0]",
                        "a toleration without a key must have operator Exists"),
                refused(
                        "a toleration key with a space",
                        "spec.tolerations",
                        List.of(Map.of("key", "bad key", "operator", "Exists")),
                        "spec.tolerations[0].key",
                        "should match"),
                refused(
                        "a node selector value longer than a label value",
                        "spec.nodeSelector",
                        Map.of("videoedge.io/role", "v".repeat(64)),
                        "spec.nodeSelector",
                        "Too long"),
                refused(
                        "a node selector key with a space",
                        "spec.nodeSelector",
                        Map.of("bad key", "edge"),
                        "spec.nodeSelector",
                        "nodeSelector keys are label keys"),
                refused(
                        "several acceptor threads on one socket",
                        Map.of("spec.server.socket.reusePort", false, "spec.server.socket.acceptorThreads", 2),
                        "spec.server.socket.acceptorThreads",
                        "acceptorThreads above 1 needs reusePort"),
                refused(
                        "the node agent's metrics port",
                        "spec.server.http.port",
                        9401,
                        "spec.server.http.port",
                        "the node agent's metrics port"),
                refused(
                        "a memory tier too small for its allocator",
                        "spec.server.cache.memory",
                        "1023Ki",
                        "spec.server.cache.memory",
                        "0 (off) or a whole number of bytes from 1Mi"),
                refused(
                        "a memory tier of half a byte",
                        Map.of("spec.server.memory", "2Gi", "spec.server.cache.memory", "1500000000.5"),
                        "spec.server.cache.memory",
                        "0 (off) or a whole number of bytes from 1Mi"),
                refused(
                        "server memory of half a byte",
                        "spec.server.memory",
                        "2147483648.5",
                        "spec.server.memory",
                        "a whole number of bytes"),
                refused(
                        "no time to connect",
                        Map.of(
                                "spec.server.origin.url",
                                "http://origin:8080",
                                "spec.server.origin.connectTimeout",
                                "0s"),
                        "spec.server.origin.connectTimeout",
                        "at least 1ms"),
                refused(
                        "no time to read",
                        Map.of(
                                "spec.server.origin.url",
                                "http://origin:8080",
                                "spec.server.origin.readTimeout",
                                "000ms"),
                        "spec.server.origin.readTimeout",
                        "at least 1ms"),
                refused(
                        "early data of no bytes",
                        Map.of(
                                "spec.tls.protocols",
                                List.of("TLSv1.3"),
                                "spec.tls.earlyData",
                                Map.of("enabled", true, "maxSize", 0)),
                        "spec.tls.earlyData.maxSize",
                        "at least 1 byte while earlyData is enabled"),
                refused(
                        "congestion control among the sysctls",
                        "spec.tuning.sysctls",
                        Map.of("net.ipv4.tcp_congestion_control", "cubic"),
                        "spec.tuning.sysctls",
                        "tuning.congestionControl"),
                refused(
                        "a blank sysctl value",
                        "spec.tuning.sysctls",
                        Map.of("vm.swappiness", "  "),
                        "spec.tuning.sysctls",
                        "must not be blank: vm.swappiness"),
                refused(
                        "sixteen kernel modules and kernel TLS",
                        Map.of(
                                "spec.tls.mode",
                                "ktls",
                                "spec.tuning.kernelModules",
                                java.util.stream.IntStream.range(0, 16)
                                        .mapToObj(i -> "mod" + i)
                                        .toList()),
                        "spec.tuning.kernelModules",
                        "list tls among them"));
    }

    /** The name is the value of the owner labels on everything made for it: a label value holds 63 characters. */
    @Test
    void aNameLongerThanALabelValueIsRefused() {
        GenericKubernetesResource longest = example("v".repeat(63));
        client.resource(longest).inNamespace(namespace).dryRun().create();
        GenericKubernetesResource ve = example("v".repeat(64));
        assertThatThrownBy(() -> client.resource(ve).inNamespace(namespace).create())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(422);
                    assertThat(e.getMessage()).contains("metadata.name").contains("at most 63 characters");
                });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidVideoEdges")
    @SuppressWarnings("unchecked")
    void invalidVideoEdgeIsRefusedNamingTheField(
            String description, String path, Object value, String field, String message) {
        GenericKubernetesResource ve = example("invalid-" + Math.abs(description.hashCode()));
        if (path == null) {
            ((Map<String, Object>) value).forEach((p, v) -> set(ve, p, v));
        } else {
            set(ve, path, value);
        }

        assertThatThrownBy(() -> client.resource(ve).inNamespace(namespace).create())
                .as(description)
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(422);
                    assertThat(e.getMessage()).contains(field).contains(message);
                });
    }

    @Test
    void invalidNodeTuningSysctlIsRefusedToo() {
        GenericKubernetesResource nt = new GenericKubernetesResource();
        nt.setApiVersion("videoedge.io/v1alpha1");
        nt.setKind("NodeTuning");
        nt.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withName("node-bad")
                .build());
        nt.setAdditionalProperty(
                "spec",
                Map.of(
                        "source",
                        Map.of("namespace", "x", "name", "y"),
                        "tuning",
                        Map.of("sysctls", Map.of("fs.protected_symlinks", "0"))));
        assertThatThrownBy(() -> client.resource(nt).create())
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getMessage())
                                .contains("spec.tuning.sysctls", "not allowed: fs.protected_symlinks"));
    }

    @Test
    void kubectlApplyOfAnInvalidObjectPrintsTheReason() throws IOException {
        Path bad = Files.createTempFile("bad-ve", ".yaml");
        Files.writeString(bad, """
        apiVersion: videoedge.io/v1alpha1
        kind: VideoEdge
        metadata:
          name: bad
        spec:
          tuning:
            sysctls:
              net.ipv4.tcp_mem: "3 2 1"
        """);
        RealApiServer.Result r = api.kubectlResult("apply", "-n", namespace, "-f", bad.toString());
        assertThat(r.exitCode()).isNotZero();
        assertThat(r.stderr()).contains("spec.tuning.sysctls", "must be non-decreasing");
    }

    // --- helpers -------------------------------------------------------------------------------

    private static Arguments refused(String description, String path, Object value, String field, String message) {
        return Arguments.of(description, path, value, field, message);
    }

    /** A case that sets several paths (in order): fields valid alone, refused together. */
    private static Arguments refused(String description, Map<String, Object> paths, String field, String message) {
        return Arguments.of(description, null, new java.util.LinkedHashMap<>(paths), field, message);
    }

    private static GenericKubernetesResource example(String name) {
        try {
            String yaml = Files.readString(Path.of(System.getProperty("videoedge.crds.dir", "../crds"))
                    .resolveSibling("examples/videoedge.yaml"));
            GenericKubernetesResource ve = Serialization.unmarshal(yaml, GenericKubernetesResource.class);
            ve.getMetadata().setName(name);
            return ve;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Sets (or removes) the value at a dotted path under the resource, creating maps on the way. */
    @SuppressWarnings("unchecked")
    private static void set(GenericKubernetesResource resource, String path, Object value) {
        List<String> keys = new ArrayList<>(List.of(path.split("\\.")));
        Map<String, Object> node = resource.getAdditionalProperties();
        for (String key : keys.subList(0, keys.size() - 1)) {
            node = (Map<String, Object>) node.computeIfAbsent(key, k -> new LinkedHashMap<String, Object>());
        }
        String last = keys.getLast();
        if (value == REMOVE) {
            node.remove(last);
        } else {
            node.put(last, value);
        }
    }
}
