package io.videoedge.operator.placement;

import static io.videoedge.operator.placement.NodePlacementTest.A;
import static io.videoedge.operator.placement.NodePlacementTest.EDGE;
import static io.videoedge.operator.placement.NodePlacementTest.heldBy;
import static io.videoedge.operator.placement.NodePlacementTest.ve;
import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.api.NodeTuning;
import io.videoedge.api.VideoEdge;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OrphansTest {
    final VideoEdge mine = ve("video", "edge", "2026-01-01T00:00:00Z", EDGE);
    final VideoEdge other = ve("elsewhere", "edge", "2025-12-01T00:00:00Z", EDGE);
    final Map<String, NodeTuning> tunings = Map.of("a", heldBy(other, "a"));

    /** The claims of {@code mine} on node a, which {@code other}'s NodeTuning holds. */
    private java.util.SortedMap<String, NodePlacement.Claim> claims(List<VideoEdge> seen) {
        return NodePlacement.place(mine, seen, List.of(A), tunings);
    }

    @Test
    void aNodeTuningWhoseOwnerIsGoneIsDeleted() {
        List<String> asked = new ArrayList<>();
        List<NodeTuning> orphans = Orphans.toDelete(claims(List.of(mine)), List.of(mine), tunings, holder -> {
            asked.add(holder);
            return false;
        });
        assertThat(orphans).containsExactly(tunings.get("a"));
        assertThat(asked).containsExactly("elsewhere/edge");
    }

    @Test
    void anOwnerOutsideTheWatchedNamespacesIsNotGone() {
        // the operator watches only "video": the older VideoEdge in "elsewhere" is not in its cache, but exists
        assertThat(Orphans.toDelete(claims(List.of(mine)), List.of(mine), tunings, holder -> true))
                .isEmpty();
    }

    @Test
    void anOwnerTheOperatorSeesIsNeitherAskedForNorGone() {
        List<VideoEdge> both = List.of(mine, other);
        assertThat(Orphans.toDelete(claims(both), both, tunings, holder -> {
                    throw new AssertionError("asked for " + holder);
                }))
                .isEmpty();
    }
}
