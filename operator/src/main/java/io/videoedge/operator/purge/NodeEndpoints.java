package io.videoedge.operator.purge;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.videoedge.api.VideoEdgeApi;
import java.net.URI;
import java.util.Optional;

/** Where a node's edge server takes admin requests. */
@FunctionalInterface
public interface NodeEndpoints {
    /** The admin listener's base URI (http://host:port), or empty when the node has no usable address. */
    Optional<URI> admin(Node node);

    /**
     * The edge server runs on the host network: the node's InternalIP (its first, IPv6 in brackets) and
     * the admin port {@link VideoEdgeApi#EDGE_ADMIN_PORT}.
     */
    NodeEndpoints INTERNAL_IP = node -> {
        if (node.getStatus() == null || node.getStatus().getAddresses() == null) return Optional.empty();
        return node.getStatus().getAddresses().stream()
                .filter(a -> "InternalIP".equals(a.getType()))
                .map(NodeAddress::getAddress)
                .findFirst()
                .map(ip -> URI.create(
                        "http://" + (ip.contains(":") ? "[" + ip + "]" : ip) + ":" + VideoEdgeApi.EDGE_ADMIN_PORT));
    };
}
