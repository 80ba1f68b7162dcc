package io.videoedge.operator.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeSpec;
import io.videoedge.operator.placement.NodePlacement.Claim;
import io.videoedge.operator.placement.NodePlacement.State;
import io.videoedge.operator.render.Names;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodePlacementTest {
    static VideoEdge ve(String ns, String name, String created, Map<String, String> selector) {
        VideoEdge ve = new VideoEdge();
        ve.getMetadata().setNamespace(ns);
        ve.getMetadata().setName(name);
        ve.getMetadata().setCreationTimestamp(created);
        ve.getMetadata().setGeneration(1L);
        ve.setSpec(new VideoEdgeSpec(selector, null, null, null, null, null, null));
        return ve;
    }

    static Node node(String name, Map<String, String> labels) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .build();
    }

    /** A NodeTuning as the operator labels it for its owner. */
    static NodeTuning heldBy(VideoEdge owner, String node) {
        NodeTuning nt = new NodeTuning();
        nt.getMetadata().setName(node);
        nt.getMetadata().setLabels(Names.ownerLabels(owner, Names.COMPONENT_NODE_TUNING));
        return nt;
    }

    static final Map<String, String> EDGE = Map.of("role", "edge");
    static final Node A = node("a", Map.of("role", "edge"));
    static final Node B = node("b", Map.of("role", "edge", "zone", "x"));
    static final Node C = node("c", Map.of("zone", "x"));

    @Test
    void selectsNodesCarryingEveryLabelOfTheSelector() {
        VideoEdge ve = ve("ns", "edge", "2026-01-01T00:00:00Z", Map.of("role", "edge", "zone", "x"));
        assertThat(NodePlacement.place(ve, List.of(ve), List.of(A, B, C), Map.of()))
                .containsOnlyKeys("b")
                .containsEntry("b", new Claim("b", State.OWNED, null));
    }

    @Test
    void theOlderVideoEdgeKeepsASharedNodeAndTheNewerSeesConflict() {
        VideoEdge older = ve("ns", "z", "2026-01-01T00:00:00Z", EDGE);
        VideoEdge newer = ve("ns", "a", "2026-01-01T00:00:05Z", Map.of("zone", "x"));
        List<VideoEdge> all = List.of(older, newer);
        assertThat(NodePlacement.place(older, all, List.of(A, B, C), Map.of()).values())
                .containsExactly(new Claim("a", State.OWNED, null), new Claim("b", State.OWNED, null));
        assertThat(NodePlacement.place(newer, all, List.of(A, B, C), Map.of()).values())
                .containsExactly(new Claim("b", State.CONFLICT, "ns/z"), new Claim("c", State.OWNED, null));
    }

    /**
     * An older VideoEdge comes to select nodes a newer one holds (a label added, a selector widened): the
     * holder keeps them, contested, rather than hand every one over at once, each handover taking its server
     * out; the older awaits their release, which comes when the holder no longer selects them.
     */
    @Test
    void nodesANewerVideoEdgeHoldsStayItsOwnWhenAnOlderOneComesToSelectThem() {
        VideoEdge older = ve("ns", "z", "2026-01-01T00:00:00Z", EDGE);
        VideoEdge newer = ve("ns", "a", "2026-01-01T00:00:05Z", Map.of("zone", "x"));
        List<VideoEdge> all = List.of(older, newer);
        Map<String, NodeTuning> tunings = Map.of("b", heldBy(newer, "b"));
        assertThat(NodePlacement.place(newer, all, List.of(A, B, C), tunings).values())
                .containsExactly(new Claim("b", State.OWNED, "ns/z"), new Claim("c", State.OWNED, null));
        assertThat(NodePlacement.place(newer, all, List.of(A, B, C), tunings)
                        .get("b")
                        .contested())
                .isTrue();
        assertThat(NodePlacement.place(older, all, List.of(A, B, C), tunings).values())
                .containsExactly(new Claim("a", State.OWNED, null), new Claim("b", State.HELD_BY_NEWER, "ns/a"));
        // a third, newest one is told who keeps it: the holder, older than it
        VideoEdge newest = ve("ns", "m", "2026-01-01T00:00:09Z", EDGE);
        assertThat(NodePlacement.place(newest, List.of(older, newer, newest), List.of(B), tunings)
                        .get("b"))
                .isEqualTo(new Claim("b", State.CONFLICT, "ns/a"));
        // the holder no longer selects it: the older one awaits its release
        VideoEdge unselecting = ve("ns", "a", "2026-01-01T00:00:05Z", Map.of("zone", "y"));
        assertThat(NodePlacement.place(older, List.of(older, unselecting), List.of(B), tunings)
                        .get("b"))
                .isEqualTo(new Claim("b", State.AWAITING_RELEASE, "ns/a"));

        // its NodeTuning on its way out (the holder let it go): the older one's node, as without a holder
        NodeTuning leaving = heldBy(newer, "b");
        leaving.getMetadata().setDeletionTimestamp("2026-01-02T00:00:00Z");
        assertThat(NodePlacement.place(newer, all, List.of(B), Map.of("b", leaving))
                        .get("b"))
                .isEqualTo(new Claim("b", State.CONFLICT, "ns/z"));
    }

    @Test
    void sameSecondIsDecidedByNamespaceAndName() {
        VideoEdge one = ve("ns-a", "edge", "2026-01-01T00:00:00Z", EDGE);
        VideoEdge two = ve("ns-b", "edge", "2026-01-01T00:00:00Z", EDGE);
        assertThat(NodePlacement.place(two, List.of(one, two), List.of(A), Map.of())
                        .get("a")
                        .state())
                .isEqualTo(State.CONFLICT);
        assertThat(NodePlacement.place(one, List.of(one, two), List.of(A), Map.of())
                        .get("a")
                        .state())
                .isEqualTo(State.OWNED);
    }

    @Test
    void aVideoEdgeBeingDeletedCompetesNoLongerButItsNodeTuningIsAwaited() {
        VideoEdge older = ve("ns", "old", "2026-01-01T00:00:00Z", EDGE);
        older.getMetadata().setDeletionTimestamp("2026-01-02T00:00:00Z");
        VideoEdge newer = ve("ns", "new", "2026-01-01T00:00:05Z", EDGE);
        NodeTuning held = heldBy(older, "a");
        assertThat(NodePlacement.place(newer, List.of(older, newer), List.of(A), Map.of("a", held))
                        .get("a"))
                .isEqualTo(new Claim("a", State.AWAITING_RELEASE, "ns/old"));
        assertThat(NodePlacement.place(newer, List.of(older, newer), List.of(A), Map.of())
                        .get("a")
                        .state())
                .isEqualTo(State.OWNED);
    }

    @Test
    void ourOwnNodeTuningIsNoObstacle() {
        VideoEdge ve = ve("ns", "edge", "2026-01-01T00:00:00Z", EDGE);
        assertThat(NodePlacement.place(ve, List.of(ve), List.of(A), Map.of("a", heldBy(ve, "a")))
                        .get("a")
                        .state())
                .isEqualTo(State.OWNED);
    }

    @Test
    void aNodeBeingDeletedIsNotSelected() {
        Node leaving = node("d", EDGE);
        leaving.getMetadata().setDeletionTimestamp("2026-01-02T00:00:00Z");
        VideoEdge ve = ve("ns", "edge", "2026-01-01T00:00:00Z", EDGE);
        assertThat(NodePlacement.place(ve, List.of(ve), List.of(leaving), Map.of()))
                .isEmpty();
    }
}
