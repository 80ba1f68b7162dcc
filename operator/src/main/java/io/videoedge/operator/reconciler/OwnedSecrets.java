package io.videoedge.operator.reconciler;

import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.videoedge.api.VideoEdge;
import io.videoedge.operator.render.Names;
import java.util.Map;

/**
 * The shape of every Secret the operator makes for a VideoEdge: in its namespace, labelled as its
 * component (the chart's admission policy lets the operator write only Secrets so labelled), owned by
 * the VideoEdge (deleted with it). Pure.
 */
final class OwnedSecrets {
    private OwnedSecrets() {}

    /** @param data base64 values by key, as Secret.data holds them */
    static Secret of(VideoEdge ve, String name, String component, Map<String, String> data) {
        return new SecretBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(ve.getMetadata().getNamespace())
                .withLabels(Names.ownerLabels(ve, component))
                .withOwnerReferences(new OwnerReferenceBuilder()
                        .withApiVersion(ve.getApiVersion())
                        .withKind(ve.getKind())
                        .withName(ve.getMetadata().getName())
                        .withUid(ve.getMetadata().getUid())
                        .withController(true)
                        .build())
                .endMetadata()
                .withType("Opaque")
                .withData(data)
                .build();
    }
}
