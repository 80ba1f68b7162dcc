package io.videoedge.operator.reconciler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.videoedge.api.ServerSpec;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeSpec;
import io.videoedge.operator.render.EdgeServerConfigRenderer;
import io.videoedge.operator.render.EdgeServerLayout;
import io.videoedge.operator.render.Quantities;
import io.videoedge.operator.render.ServerMemory;
import io.videoedge.server.config.SignedUrlsConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What the CRD's schema and CEL rules cannot check, because it depends on other objects or on
 * arithmetic over quantities: the TLS Secret, the origin's CA Secret, the nodes' allocatable
 * resources, the admin port, the memory budget; and, as a last net, whatever the edge server's own validator would refuse in the
 * config rendered from the spec (edge-config's ConfigLoader.problems), and whatever the config file would say otherwise
 * than the config once the server reads it back (EdgeServerConfigRenderer.readBack). A spec with any problem is not
 * rolled out at all (no partial rollout); the status
 * says why, with reason InvalidSpec. Pure: the caller looks up the Secrets and the nodes.
 */
public final class SpecValidation {
    public static final String TLS_SECRET_TYPE = "kubernetes.io/tls";
    /** A certificate block as OpenSSL reads a CA file (PEM_X509_INFO_read_bio: plain, X509 or TRUSTED certificates). */
    private static final Pattern PEM_CERTIFICATE = Pattern.compile("-----BEGIN (X509 |TRUSTED )?CERTIFICATE-----");

    private SpecValidation() {}

    /**
     * @param secrets the Secrets the spec names, as read (empty when one does not exist)
     * @param nodes the nodes the VideoEdge would run on
     * @return the problems, each a sentence a person can act on; empty when the spec can be rolled out
     */
    public static List<String> problems(VideoEdge ve, ReferencedSecrets secrets, Collection<Node> nodes) {
        VideoEdgeSpec spec = ve.getSpec();
        ServerSpec server = spec.server();
        List<String> problems = new ArrayList<>();
        boolean http = EdgeServerConfigRenderer.servesHttp(spec);
        boolean https = EdgeServerConfigRenderer.servesHttps(spec);
        boolean adminPort = http && server.http().port() == EdgeServerLayout.ADMIN_PORT
                || https && server.https().port() == EdgeServerLayout.ADMIN_PORT;
        if (!http && !https) {
            problems.add(
                    "no acceptor: server.http is disabled and HTTPS is off (tls.mode none or server.https disabled)");
        } else if (adminPort) {
            problems.add("port " + EdgeServerLayout.ADMIN_PORT + " is the edge server's admin port (metrics, probes): "
                    + "choose another server.http.port or server.https.port");
        } else {
            // the rest of what the server itself would refuse, in its own words (said above in the API's for those two)
            problems.addAll(EdgeServerConfigRenderer.problems(spec));
        }
        if (https) {
            tlsProblem(ve, secrets.tls()).ifPresent(problems::add);
        }
        String originCa = EdgeServerConfigRenderer.originCaSecret(server);
        if (originCa != null) {
            originCaProblem(ve.getMetadata().getNamespace() + "/" + originCa, secrets.originCa())
                    .ifPresent(problems::add);
        }
        String signing = EdgeServerConfigRenderer.signingKeysSecret(server);
        if (signing != null) {
            signingKeysProblem(ve.getMetadata().getNamespace() + "/" + signing, secrets.signingKeys())
                    .ifPresent(problems::add);
        }
        ServerMemory.of(spec).problem().ifPresent(problems::add);
        capacityProblem(server, nodes).ifPresent(problems::add);
        return problems;
    }

    static Optional<String> tlsProblem(VideoEdge ve, Optional<Secret> secret) {
        String name = ve.getMetadata().getNamespace() + "/" + ve.getSpec().tls().secretName();
        if (secret.isEmpty()) {
            return Optional.of("TLS Secret " + name + " (tls.secretName) not found: create a Secret of type "
                    + TLS_SECRET_TYPE + " with tls.crt and tls.key");
        }
        Secret s = secret.get();
        if (!TLS_SECRET_TYPE.equals(s.getType())) {
            return Optional.of("TLS Secret " + name + " is of type " + s.getType() + ", not " + TLS_SECRET_TYPE);
        }
        Map<String, String> data = s.getData() == null ? Map.of() : s.getData();
        List<String> missing = new ArrayList<>();
        for (String key : List.of("tls.crt", "tls.key")) {
            if (data.get(key) == null || data.get(key).isBlank()) {
                missing.add(key);
            }
        }
        return missing.isEmpty()
                ? Optional.empty()
                : Optional.of("TLS Secret " + name + " has no " + String.join(" or ", missing));
    }

    /**
     * The origin's CA Secret must exist and hold a PEM bundle under ca.crt: the pod mounts that key alone
     * (without it the pod could not start) and the server loads it as origin.caFile at start (a file
     * without a certificate would stop it). Any Secret type: cert-manager's kubernetes.io/tls Secrets
     * carry ca.crt, as do Opaque ones made with kubectl.
     */
    static Optional<String> originCaProblem(String name, Optional<Secret> secret) {
        String key = EdgeServerLayout.ORIGIN_CA_KEY;
        if (secret.isEmpty()) {
            return Optional.of(
                    "origin CA Secret " + name + " (server.origin.caSecretName) not found: create it with the PEM "
                            + "bundle of the CAs the origin's certificate chains to under the key " + key
                            + " (kubectl create secret generic "
                            + name.substring(name.indexOf('/') + 1) + " --from-file=" + key + "=bundle.pem)");
        }
        Map<String, String> data =
                secret.get().getData() == null ? Map.of() : secret.get().getData();
        String bundle = data.get(key);
        if (bundle == null || bundle.isBlank()) {
            return Optional.of("origin CA Secret " + name + " (server.origin.caSecretName) has no " + key
                    + ": put the PEM bundle of the CAs the origin's certificate chains to under that key");
        }
        String pem;
        try {
            pem = new String(Base64.getMimeDecoder().decode(bundle), StandardCharsets.US_ASCII);
        } catch (IllegalArgumentException e) {
            pem = "";
        }
        return PEM_CERTIFICATE.matcher(pem).find()
                ? Optional.empty()
                : Optional.of("origin CA Secret " + name + " (server.origin.caSecretName): " + key
                        + " holds no PEM certificate "
                        + "(-----BEGIN CERTIFICATE-----): the edge server could not load it");
    }

    /**
     * The signing key Secret must exist and hold a key of at least 16 bytes under current (and, when
     * set, under previous): the server refuses to start without a usable current key.
     */
    static Optional<String> signingKeysProblem(String name, Optional<Secret> secret) {
        String what = "signing key Secret " + name + " (server.signedUrls.secretName)";
        if (secret.isEmpty()) {
            return Optional.of(what + " not found: create it with a random key of at least "
                    + SignedUrlsConfig.MIN_KEY_BYTES + " bytes under " + SignedUrlsConfig.CURRENT_KEY
                    + " (kubectl create secret generic " + name.substring(name.indexOf('/') + 1) + " --from-literal="
                    + SignedUrlsConfig.CURRENT_KEY + "=$(openssl rand -hex 32))");
        }
        Map<String, String> data =
                secret.get().getData() == null ? Map.of() : secret.get().getData();
        List<String> bad = new ArrayList<>();
        for (String key : List.of(SignedUrlsConfig.CURRENT_KEY, SignedUrlsConfig.PREVIOUS_KEY)) {
            String value = data.get(key);
            if (value == null) {
                if (key.equals(SignedUrlsConfig.CURRENT_KEY)) bad.add("no " + key);
                continue;
            }
            int length;
            try {
                length = Base64.getMimeDecoder().decode(value).length;
            } catch (IllegalArgumentException e) {
                length = 0;
            }
            if (length < SignedUrlsConfig.MIN_KEY_BYTES) {
                bad.add(key + " of " + length + " bytes (at least " + SignedUrlsConfig.MIN_KEY_BYTES + ")");
            }
        }
        return bad.isEmpty() ? Optional.empty() : Optional.of(what + " has " + String.join(" and ", bad));
    }

    /** server.cpus and server.memory must fit every node's allocatable, or that node's pod never starts. */
    static Optional<String> capacityProblem(ServerSpec server, Collection<Node> nodes) {
        long memory = Quantities.bytes(server.memory());
        List<String> tooSmall = new ArrayList<>();
        for (Node node : nodes.stream()
                .sorted(java.util.Comparator.comparing(n -> n.getMetadata().getName()))
                .toList()) {
            Map<String, Quantity> allocatable =
                    node.getStatus() == null ? null : node.getStatus().getAllocatable();
            if (allocatable == null) {
                continue; // not reported yet: the kubelet will say
            }
            List<String> lacks = new ArrayList<>();
            Quantity cpu = allocatable.get("cpu");
            if (cpu != null && Quantities.wholeCpus(cpu) < server.cpus()) {
                lacks.add(cpu + " CPUs");
            }
            Quantity mem = allocatable.get("memory");
            if (mem != null && Quantity.getAmountInBytes(mem).longValue() < memory) {
                lacks.add(mem + " memory");
            }
            if (!lacks.isEmpty()) {
                tooSmall.add(node.getMetadata().getName() + " (" + String.join(", ", lacks) + " allocatable)");
            }
        }
        return tooSmall.isEmpty()
                ? Optional.empty()
                : Optional.of("server.cpus " + server.cpus() + " / server.memory " + server.memory()
                        + " do not fit on node " + String.join(", ", tooSmall)
                        + ": lower them or narrow nodeSelector");
    }
}
