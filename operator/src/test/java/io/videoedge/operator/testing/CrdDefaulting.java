package io.videoedge.operator.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Iterator;
import java.util.Map;

/**
 * The API server's structural defaulting, from our committed CRD's schema: a unit test gets an
 * object as the operator would read it, without a second copy of the defaults. Absent fields with a
 * default get it; defaults are applied inside defaulted objects too (server: {} then its fields).
 */
public final class CrdDefaulting {
    private final JsonNode schema;

    private CrdDefaulting(JsonNode schema) {
        this.schema = schema;
    }

    public static CrdDefaulting videoEdges() {
        return of("crds/videoedge.io_videoedges.yaml");
    }

    public static CrdDefaulting nodeTunings() {
        return of("crds/videoedge.io_nodetunings.yaml");
    }

    static CrdDefaulting of(String crdFile) {
        CustomResourceDefinition crd = Serialization.unmarshal(TestFiles.read(crdFile), CustomResourceDefinition.class);
        JsonNode schema = Serialization.jsonMapper()
                .valueToTree(crd.getSpec().getVersions().getFirst().getSchema().getOpenAPIV3Schema());
        return new CrdDefaulting(schema);
    }

    @SuppressWarnings("unchecked")
    public <T extends HasMetadata> T apply(T object) {
        JsonNode tree = Serialization.jsonMapper().valueToTree(object);
        apply(tree, schema);
        return (T) Serialization.jsonMapper().convertValue(tree, object.getClass());
    }

    private static void apply(JsonNode node, JsonNode schema) {
        if (node == null || schema == null) {
            return;
        }
        if (node.isObject()) {
            ObjectNode obj = (ObjectNode) node;
            JsonNode props = schema.get("properties");
            if (props != null) {
                for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> p = it.next();
                    if (!obj.has(p.getKey()) && p.getValue().has("default")) {
                        obj.set(p.getKey(), p.getValue().get("default").deepCopy());
                    }
                    apply(obj.get(p.getKey()), p.getValue());
                }
            }
            JsonNode additional = schema.get("additionalProperties");
            if (additional != null && additional.isObject()) {
                obj.fields().forEachRemaining(e -> apply(e.getValue(), additional));
            }
        } else if (node.isArray() && schema.has("items")) {
            node.forEach(item -> apply(item, schema.get("items")));
        }
    }
}
