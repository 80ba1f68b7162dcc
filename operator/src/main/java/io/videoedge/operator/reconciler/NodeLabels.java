package io.videoedge.operator.reconciler;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.operator.placement.AgentLabels;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes {@link AgentLabels.Changes}: one JSON merge patch per node, touching only the node-agent
 * label (an admission policy in the chart holds the operator to exactly that).
 */
final class NodeLabels {
    private static final Logger log = LoggerFactory.getLogger(NodeLabels.class);

    private NodeLabels() {}

    static void apply(KubernetesClient client, AgentLabels.Changes changes) {
        ParallelWrites.each(
                changes.add(),
                node -> patch(client, node, "\"" + AgentLabels.VALUE + "\"", "the node agent may run there"));
        ParallelWrites.each(
                changes.remove(),
                node -> patch(client, node, "null", "no NodeTuning left: its agent restored the node"));
    }

    private static void patch(KubernetesClient client, String node, String value, String why) {
        String patch = "{\"metadata\":{\"labels\":{\"" + VideoEdgeApi.LABEL_NODE_AGENT + "\":" + value + "}}}";
        try {
            // addressed by a bare Node, so the client does not GET the node before patching it
            client.nodes()
                    .resource(new NodeBuilder()
                            .withNewMetadata()
                            .withName(node)
                            .endMetadata()
                            .build())
                    .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
            log.info(
                    "Node {}: label {} {} ({})",
                    node,
                    VideoEdgeApi.LABEL_NODE_AGENT,
                    "null".equals(value) ? "removed" : "set",
                    why);
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) { // the node went away meanwhile
                throw e;
            }
        }
    }
}
