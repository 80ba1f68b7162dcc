package io.videoedge.operator.reconciler;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.videoedge.api.VideoEdge;
import io.videoedge.operator.render.EdgeServerConfigRenderer;
import java.util.Optional;

/**
 * The Secrets a VideoEdge names, as read this pass (get only: they are not watched, the reconciler
 * looks again every recheck interval). Each is empty when the spec does not use it or it does not exist.
 *
 * @param tls tls.secretName, when the server serves HTTPS
 * @param originCa server.origin.caSecretName, when the server fetches from an https:// origin with one
 * @param signingKeys server.signedUrls.secretName
 */
public record ReferencedSecrets(Optional<Secret> tls, Optional<Secret> originCa, Optional<Secret> signingKeys) {
    public static final ReferencedSecrets NONE =
            new ReferencedSecrets(Optional.empty(), Optional.empty(), Optional.empty());

    public static ReferencedSecrets tls(Secret tls) {
        return NONE.withTls(tls);
    }

    public ReferencedSecrets withTls(Secret secret) {
        return new ReferencedSecrets(Optional.ofNullable(secret), originCa, signingKeys);
    }

    public ReferencedSecrets withOriginCa(Secret secret) {
        return new ReferencedSecrets(tls, Optional.ofNullable(secret), signingKeys);
    }

    public ReferencedSecrets withSigningKeys(Secret secret) {
        return new ReferencedSecrets(tls, originCa, Optional.ofNullable(secret));
    }

    /** True when a Secret whose change must reach the pods is in use (the reconciler then looks again in a while). */
    public boolean anyToRecheck() {
        return originCa.isPresent() || signingKeys.isPresent();
    }

    static ReferencedSecrets read(VideoEdge ve, KubernetesClient client) {
        String ns = ve.getMetadata().getNamespace();
        return new ReferencedSecrets(
                get(
                        client,
                        ns,
                        EdgeServerConfigRenderer.servesHttps(ve.getSpec())
                                ? ve.getSpec().tls().secretName()
                                : null),
                get(
                        client,
                        ns,
                        EdgeServerConfigRenderer.originCaSecret(ve.getSpec().server())),
                get(
                        client,
                        ns,
                        EdgeServerConfigRenderer.signingKeysSecret(ve.getSpec().server())));
    }

    private static Optional<Secret> get(KubernetesClient client, String namespace, String name) {
        if (name == null) return Optional.empty();
        return Optional.ofNullable(
                client.secrets().inNamespace(namespace).withName(name).get());
    }
}
