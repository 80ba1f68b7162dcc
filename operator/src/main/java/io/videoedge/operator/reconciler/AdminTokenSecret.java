package io.videoedge.operator.reconciler;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.videoedge.api.VideoEdge;
import io.videoedge.operator.render.Names;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;

/**
 * The Secret {@code <name>-admin-token}: the bearer token the VideoEdge's edge servers require on their
 * admin endpoint POST /admin/purge (mounted into every edge pod, admin.tokenFile), and the one the
 * operator's CachePurge controller sends. 32 random bytes, hex; created once, owned by the VideoEdge
 * (deleted with it). The chart's admission policy lets the operator write only Secrets labelled as
 * this one or the ticket keys. Deleting it makes a new token: the kubelets bring it to the pods within
 * about a minute, and the servers read the file on every request.
 */
final class AdminTokenSecret {
    static final String KEY = "token";
    private static final SecureRandom RANDOM = new SecureRandom();

    private AdminTokenSecret() {}

    static void ensure(KubernetesClient client, VideoEdge ve) {
        String ns = ve.getMetadata().getNamespace();
        if (client.secrets().inNamespace(ns).withName(Names.adminToken(ve)).get() != null) return;
        byte[] token = new byte[32];
        RANDOM.nextBytes(token);
        client.secrets()
                .inNamespace(ns)
                .resource(secret(ve, HexFormat.of().formatHex(token)))
                .create();
    }

    static Secret secret(VideoEdge ve, String token) {
        return OwnedSecrets.of(
                ve,
                Names.adminToken(ve),
                Names.COMPONENT_ADMIN_TOKEN,
                Map.of(KEY, Base64.getEncoder().encodeToString(token.getBytes(StandardCharsets.US_ASCII))));
    }
}
