package io.videoedge.operator.reconciler;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.videoedge.api.VideoEdge;
import io.videoedge.operator.render.Names;
import io.videoedge.operator.render.TicketKeyRing;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Map;

/**
 * Writes the Secret with the VideoEdge's shared session ticket keys as {@link TicketKeyRing} decides:
 * created with the first key, updated when a key is added or leaves, owned by the VideoEdge (deleted
 * with it). The chart's admission policy lets the operator write only Secrets labelled as this one.
 */
final class TicketKeySecret {
    private static final SecureRandom RANDOM = new SecureRandom();

    private TicketKeySecret() {}

    /** Brings the Secret up to date; returns when it must be looked at again. */
    static Instant ensure(KubernetesClient client, VideoEdge ve, Instant now) {
        String ns = ve.getMetadata().getNamespace();
        Secret current =
                client.secrets().inNamespace(ns).withName(Names.ticketKeys(ve)).get();
        Map<String, String> data = current == null ? null : current.getData();
        TicketKeyRing.Next next = TicketKeyRing.next(data, now, () -> {
            byte[] key = new byte[TicketKeyRing.KEY_BYTES];
            RANDOM.nextBytes(key);
            return key;
        });
        if (current == null) {
            client.secrets().inNamespace(ns).resource(secret(ve, next)).create();
        } else if (!next.data().equals(data)) {
            client.secrets()
                    .inNamespace(ns)
                    .resource(new SecretBuilder(secret(ve, next))
                            .editMetadata()
                            .withResourceVersion(current.getMetadata().getResourceVersion())
                            .endMetadata()
                            .build())
                    .update();
        }
        return next.recheckAt();
    }

    static Secret secret(VideoEdge ve, TicketKeyRing.Next next) {
        return OwnedSecrets.of(ve, Names.ticketKeys(ve), Names.COMPONENT_TICKET_KEYS, next.data());
    }
}
