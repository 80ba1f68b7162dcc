package io.videoedge.operator.purge;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.net.URI;
import org.junit.jupiter.api.Test;

class NodeEndpointsTest {
    static Node node(String... typeAndAddress) {
        NodeBuilder b = new NodeBuilder()
                .withNewMetadata()
                .withName("n")
                .endMetadata()
                .withNewStatus()
                .endStatus();
        for (int i = 0; i < typeAndAddress.length; i += 2) {
            b.editStatus()
                    .addNewAddress()
                    .withType(typeAndAddress[i])
                    .withAddress(typeAndAddress[i + 1])
                    .endAddress()
                    .endStatus();
        }
        return b.build();
    }

    @Test
    void theAdminPortAtTheNodesInternalIp() {
        assertThat(NodeEndpoints.INTERNAL_IP.admin(node("Hostname", "edge-1", "InternalIP", "10.0.0.7")))
                .contains(URI.create("http://10.0.0.7:9400"));
        assertThat(NodeEndpoints.INTERNAL_IP.admin(node("InternalIP", "fd00::7")))
                .contains(URI.create("http://[fd00::7]:9400"));
    }

    @Test
    void noneWithoutAnInternalIp() {
        assertThat(NodeEndpoints.INTERNAL_IP.admin(node("ExternalIP", "203.0.113.7")))
                .isEmpty();
        assertThat(NodeEndpoints.INTERNAL_IP.admin(new NodeBuilder().build())).isEmpty();
    }
}
