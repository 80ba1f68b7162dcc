package io.videoedge.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.videoedge.api.ServerSpec;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeSpec;
import io.videoedge.operator.testing.TestFiles;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class SpecValidationTest {
    static final Secret TLS = new SecretBuilder()
            .withNewMetadata()
            .withName("edge-tls")
            .endMetadata()
            .withType("kubernetes.io/tls")
            .addToData("tls.crt", "Y3J0")
            .addToData("tls.key", "a2V5")
            .build();

    static Node node(String name, String cpu, String memory) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewStatus()
                .addToAllocatable("cpu", new Quantity(cpu))
                .addToAllocatable("memory", new Quantity(memory))
                .endStatus()
                .build();
    }

    static VideoEdge example(UnaryOperator<ServerSpec> change) {
        VideoEdge ve = TestFiles.exampleVideoEdge("video", 1);
        VideoEdgeSpec s = ve.getSpec();
        ve.setSpec(s.withServer(change.apply(s.server())));
        return ve;
    }

    static ServerSpec server(ServerSpec s, int cpus, String memory, ServerSpec.Port http, ServerSpec.Cache cache) {
        return s.withCpus(cpus)
                .withMemory(memory)
                .withHttp(http)
                .withCache(cache)
                .withAccessLog(null);
    }

    @Test
    void theExampleWithItsSecretOnABigEnoughNodeIsValid() {
        assertThat(SpecValidation.problems(
                        example(s -> s),
                        new ReferencedSecrets(Optional.of(TLS), Optional.empty(), Optional.empty()),
                        List.of(node("a", "4", "8Gi"))))
                .isEmpty();
    }

    @Test
    void theSigningKeySecretMustExistWithACurrentKeyOfSixteenBytesAtLeast() {
        VideoEdge ve = example(s -> s.withSignedUrls(new ServerSpec.SignedUrls(
                "url-keys", List.of(new ServerSpec.SignedUrlRule("/vod/", io.videoedge.api.SignedUrlMode.REQUIRED)))));
        ReferencedSecrets tls = ReferencedSecrets.tls(TLS);
        assertThat(SpecValidation.problems(ve, tls, List.of()))
                .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                .startsWith("signing key Secret video/url-keys (server.signedUrls.secretName) not found")
                .contains("--from-literal=current=$(openssl rand -hex 32)");
        assertThat(SpecValidation.problems(ve, tls.withSigningKeys(keys(Map.of("previous", 32))), List.of()))
                .containsExactly("signing key Secret video/url-keys (server.signedUrls.secretName) has no current");
        assertThat(SpecValidation.problems(
                        ve, tls.withSigningKeys(keys(Map.of("current", 15, "previous", 8))), List.of()))
                .containsExactly(
                        "signing key Secret video/url-keys (server.signedUrls.secretName) has current of 15 bytes "
                                + "(at least 16) and previous of 8 bytes (at least 16)");
        assertThat(SpecValidation.problems(ve, tls.withSigningKeys(keys(Map.of("current", 16))), List.of()))
                .isEmpty();
        VideoEdge allOff = example(s -> s.withSignedUrls(new ServerSpec.SignedUrls(
                null, List.of(new ServerSpec.SignedUrlRule("/", io.videoedge.api.SignedUrlMode.OFF)))));
        assertThat(SpecValidation.problems(allOff, tls, List.of()))
                .as("no rule checks: no Secret needed")
                .isEmpty();
    }

    /** A Secret with keys of the given lengths. */
    static Secret keys(Map<String, Integer> lengths) {
        SecretBuilder b = new SecretBuilder()
                .withNewMetadata()
                .withName("url-keys")
                .withNamespace("video")
                .endMetadata();
        lengths.forEach((k, n) -> b.addToData(k, java.util.Base64.getEncoder().encodeToString(new byte[n])));
        return b.build();
    }

    @Test
    void aMissingOrWrongTlsSecretIsNamed() {
        assertThat(SpecValidation.problems(example(s -> s), ReferencedSecrets.NONE, List.of()))
                .containsExactly(
                        "TLS Secret video/edge-tls (tls.secretName) not found: create a Secret of type kubernetes.io/tls "
                                + "with tls.crt and tls.key");
        Secret opaque = new SecretBuilder(TLS).withType("Opaque").build();
        assertThat(SpecValidation.problems(
                        example(s -> s),
                        new ReferencedSecrets(Optional.of(opaque), Optional.empty(), Optional.empty()),
                        List.of()))
                .containsExactly("TLS Secret video/edge-tls is of type Opaque, not kubernetes.io/tls");
        Secret noKey = new SecretBuilder(TLS)
                .withData(java.util.Map.of("tls.crt", "Y3J0"))
                .build();
        assertThat(SpecValidation.problems(
                        example(s -> s),
                        new ReferencedSecrets(Optional.of(noKey), Optional.empty(), Optional.empty()),
                        List.of()))
                .containsExactly("TLS Secret video/edge-tls has no tls.key");
    }

    static Secret caSecret(String type, Map<String, String> data) {
        return new SecretBuilder()
                .withNewMetadata()
                .withName("origin-ca")
                .endMetadata()
                .withType(type)
                .withData(data)
                .build();
    }

    static String base64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
    }

    static final String PEM = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n";

    static VideoEdge httpsOrigin(String caSecretName) {
        return example(
                s -> s.withOrigin(new ServerSpec.Origin("https://origin.example", caSecretName, "1s", "10s", 64)));
    }

    @Test
    void anHttpsOriginsCaSecretMustExistAndHoldAPemBundleUnderCaCrt() {
        VideoEdge ve = httpsOrigin("origin-ca");
        List<Node> nodes = List.of(node("a", "4", "8Gi"));
        // Opaque (kubectl create secret generic) or cert-manager's kubernetes.io/tls: the key is what counts
        assertThat(SpecValidation.problems(
                        ve,
                        new ReferencedSecrets(
                                Optional.of(TLS),
                                Optional.of(caSecret("Opaque", Map.of("ca.crt", base64(PEM)))),
                                Optional.empty()),
                        nodes))
                .isEmpty();
        assertThat(SpecValidation.problems(
                        ve,
                        new ReferencedSecrets(
                                Optional.of(TLS),
                                Optional.of(caSecret(
                                        "kubernetes.io/tls",
                                        Map.of(
                                                "ca.crt",
                                                base64("# a comment\n" + PEM + PEM),
                                                "tls.crt",
                                                "Y3J0",
                                                "tls.key",
                                                "a2V5"))),
                                Optional.empty()),
                        nodes))
                .isEmpty();

        assertThat(SpecValidation.problems(
                        ve, new ReferencedSecrets(Optional.of(TLS), Optional.empty(), Optional.empty()), nodes))
                .containsExactly(
                        "origin CA Secret video/origin-ca (server.origin.caSecretName) not found: create it with the PEM "
                                + "bundle of the CAs the origin's certificate chains to under the key ca.crt (kubectl create secret generic "
                                + "origin-ca --from-file=ca.crt=bundle.pem)");
        // cert-manager leaves ca.crt out (or empty) when its issuer does not give the CA
        assertThat(SpecValidation.problems(
                        ve,
                        new ReferencedSecrets(
                                Optional.of(TLS),
                                Optional.of(caSecret(
                                        "kubernetes.io/tls",
                                        Map.of("tls.crt", "Y3J0", "tls.key", "a2V5", "ca.crt", ""))),
                                Optional.empty()),
                        nodes))
                .containsExactly(
                        "origin CA Secret video/origin-ca (server.origin.caSecretName) has no ca.crt: put the PEM bundle "
                                + "of the CAs the origin's certificate chains to under that key");
        assertThat(SpecValidation.problems(
                        ve,
                        new ReferencedSecrets(
                                Optional.of(TLS),
                                Optional.of(caSecret("Opaque", Map.of("ca.pem", base64(PEM)))),
                                Optional.empty()),
                        nodes))
                .singleElement()
                .asString()
                .contains("has no ca.crt");
        // a DER file or a key is not what the server loads
        assertThat(SpecValidation.problems(
                        ve,
                        new ReferencedSecrets(
                                Optional.of(TLS),
                                Optional.of(caSecret(
                                        "Opaque", Map.of("ca.crt", base64("-----BEGIN PRIVATE KEY-----\nMII\n")))),
                                Optional.empty()),
                        nodes))
                .containsExactly(
                        "origin CA Secret video/origin-ca (server.origin.caSecretName): ca.crt holds no PEM certificate "
                                + "(-----BEGIN CERTIFICATE-----): the edge server could not load it");
    }

    @Test
    void withoutACaSecretNameNoSecretIsAskedFor() {
        assertThat(SpecValidation.problems(
                        httpsOrigin(null),
                        new ReferencedSecrets(Optional.of(TLS), Optional.empty(), Optional.empty()),
                        List.of()))
                .isEmpty();
        // no origin at all
        assertThat(SpecValidation.problems(
                        example(s -> s),
                        new ReferencedSecrets(Optional.of(TLS), Optional.empty(), Optional.empty()),
                        List.of()))
                .isEmpty();
    }

    @Test
    void aServerLargerThanANodesAllocatableNamesTheNode() {
        VideoEdge ve = example(s -> server(s, 8, s.memory(), s.http(), s.cache()));
        assertThat(SpecValidation.problems(
                        ve,
                        new ReferencedSecrets(Optional.of(TLS), Optional.empty(), Optional.empty()),
                        List.of(node("big", "16", "64Gi"), node("small", "4", "8Gi"))))
                .containsExactly("server.cpus 8 / server.memory 1Gi do not fit on node small (4 CPUs allocatable): "
                        + "lower them or narrow nodeSelector");
        VideoEdge fat = example(s -> server(s, 1, "16Gi", s.http(), s.cache()));
        assertThat(SpecValidation.problems(
                        fat,
                        new ReferencedSecrets(Optional.of(TLS), Optional.empty(), Optional.empty()),
                        List.of(node("small", "4", "8Gi"))))
                .singleElement()
                .asString()
                .contains("small (8Gi memory allocatable)");
    }

    @Test
    void theAdminPortIsTaken() {
        VideoEdge ve = example(s -> server(s, 1, s.memory(), new ServerSpec.Port(9400, true), s.cache()));
        assertThat(SpecValidation.problems(
                        ve, new ReferencedSecrets(Optional.of(TLS), Optional.empty(), Optional.empty()), List.of()))
                .containsExactly(
                        "port 9400 is the edge server's admin port (metrics, probes): choose another server.http.port "
                                + "or server.https.port");
    }

    @Test
    void aCacheThatDoesNotFitTheMemoryIsRefused() {
        VideoEdge ve = example(s -> server(
                s,
                1,
                s.memory(),
                s.http(),
                new ServerSpec.Cache("1Gi", s.cache().disk(), null, null, null)));
        assertThat(SpecValidation.problems(
                        ve, new ReferencedSecrets(Optional.of(TLS), Optional.empty(), Optional.empty()), List.of()))
                .singleElement()
                .asString()
                .startsWith("server.cache.memory (1g) does not fit in server.memory");
    }

    @Test
    void noAcceptorAtAll() {
        VideoEdge ve = EdgeServerSpecs.noHttps(
                example(s -> server(s, 1, s.memory(), new ServerSpec.Port(8080, false), s.cache())));
        assertThat(SpecValidation.problems(ve, ReferencedSecrets.NONE, List.of()))
                .containsExactly(
                        "no acceptor: server.http is disabled and HTTPS is off (tls.mode none or server.https disabled)");
    }
}
