package io.videoedge.operator.placement;

import io.fabric8.kubernetes.api.model.Node;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.VideoEdge;
import io.videoedge.operator.render.Names;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Which of the nodes a VideoEdge selects are its own. A node nobody holds belongs to the oldest
 * VideoEdge that selects it (creationTimestamp, then namespace/name); a newer one reports a Conflict
 * naming it and neither tunes it nor runs a server there. A node a VideoEdge already holds (its
 * NodeTuning is there) stays its own when an older VideoEdge comes to select it too (a label added to
 * the nodes, a selector widened): handing every such node over at once would take their servers out
 * together, past both VideoEdges' maxUnavailable. The holder reports the Conflict (a contested node:
 * {@link Claim#holder} names the older one); the older one neither counts nor serves it ({@code HELD_BY_NEWER})
 * until the holder no longer selects it, then awaits its release. A node whose NodeTuning still belongs to someone else (a VideoEdge
 * being deleted or no longer selecting it, whose agent has not restored the node yet) is awaited:
 * nothing is merged into another owner's NodeTuning. Pure.
 */
public final class NodePlacement {
    public enum State {
        /** Ours: our NodeTuning and our server go there. */
        OWNED,
        /** Ours, once the NodeTuning another VideoEdge left behind is gone (its agent restores the node first). */
        AWAITING_RELEASE,
        /** An older VideoEdge selects it too: it keeps the node. */
        CONFLICT,
        /**
         * Ours by age, but a newer VideoEdge holds it (its NodeTuning) and still selects it: that one keeps serving
         * it until it no longer selects it. Neither counted nor served here, as a CONFLICT.
         */
        HELD_BY_NEWER
    }

    /**
     * @param holder for AWAITING_RELEASE, CONFLICT and HELD_BY_NEWER: the other VideoEdge (namespace/name); for OWNED, the
     *     older VideoEdge that also selects the node (a contested node this one holds), else null
     */
    public record Claim(String node, State state, String holder) {
        /** Ours, held, though an older VideoEdge selects it too. */
        public boolean contested() {
            return state == State.OWNED && holder != null;
        }
    }

    /** Older first; ties broken by namespace/name so that every VideoEdge agrees on the order. */
    static final Comparator<VideoEdge> AGE =
            Comparator.comparing((VideoEdge ve) -> creation(ve)).thenComparing(Names::namespacedName);

    private NodePlacement() {}

    /**
     * @param ve the VideoEdge placed
     * @param all every VideoEdge in the cluster (ve included or not)
     * @param nodes every node
     * @param tunings every NodeTuning, by node name
     * @return a claim per node that ve's selector matches, by node name
     */
    public static SortedMap<String, Claim> place(
            VideoEdge ve, Collection<VideoEdge> all, Collection<Node> nodes, Map<String, NodeTuning> tunings) {
        SortedMap<String, Claim> claims = new TreeMap<>();
        String self = Names.namespacedName(ve);
        for (Node node : nodes) {
            if (!selects(ve, node)) {
                continue;
            }
            String name = node.getMetadata().getName();
            Optional<VideoEdge> older = all.stream()
                    .filter(other -> !Names.namespacedName(other).equals(self))
                    .filter(other -> other.getMetadata().getDeletionTimestamp() == null)
                    .filter(other -> selects(other, node))
                    .filter(other -> AGE.compare(other, ve) < 0)
                    .min(AGE);
            NodeTuning nt = tunings.get(name);
            boolean live = nt != null && nt.getMetadata().getDeletionTimestamp() == null;
            boolean held = live && Names.ownedBy(nt, ve);
            // another VideoEdge that holds the node and still selects it
            Optional<VideoEdge> holder = live && !held
                    ? all.stream()
                            .filter(other -> !Names.namespacedName(other).equals(self))
                            .filter(other -> other.getMetadata().getDeletionTimestamp() == null)
                            .filter(other -> Names.ownedBy(nt, other))
                            .filter(other -> selects(other, node))
                            .findFirst()
                    : Optional.empty();
            if (older.isPresent() && held) {
                claims.put(name, new Claim(name, State.OWNED, Names.namespacedName(older.get())));
            } else if (older.isPresent()) {
                // the one that keeps it: an older holder, else the oldest
                VideoEdge keeper = holder.filter(h -> AGE.compare(h, ve) < 0).orElse(older.get());
                claims.put(name, new Claim(name, State.CONFLICT, Names.namespacedName(keeper)));
            } else if (holder.isPresent()) {
                claims.put(name, new Claim(name, State.HELD_BY_NEWER, Names.namespacedName(holder.get())));
            } else if (nt != null && !Names.ownedBy(nt, ve)) {
                claims.put(
                        name,
                        new Claim(
                                name, State.AWAITING_RELEASE, Names.ownerOf(nt).orElse("(no owner label)")));
            } else {
                claims.put(name, new Claim(name, State.OWNED, null));
            }
        }
        return claims;
    }

    /** Whether the VideoEdge's nodeSelector matches the node's labels (every pair present). */
    public static boolean selects(VideoEdge ve, Node node) {
        Map<String, String> selector =
                ve.getSpec() == null ? null : ve.getSpec().nodeSelector();
        if (selector == null || selector.isEmpty() || node.getMetadata().getDeletionTimestamp() != null) {
            return false;
        }
        Map<String, String> labels = node.getMetadata().getLabels();
        return labels != null
                && selector.entrySet().stream().allMatch(e -> Objects.equals(labels.get(e.getKey()), e.getValue()));
    }

    private static Instant creation(VideoEdge ve) {
        String ts = ve.getMetadata().getCreationTimestamp();
        return ts == null ? Instant.MAX : Instant.parse(ts);
    }
}
