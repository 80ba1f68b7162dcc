package io.videoedge.operator.status;

import io.videoedge.api.Conditions;
import io.videoedge.operator.health.NodeHealth.Tuning;
import io.videoedge.operator.rollout.NodeDecision.Phase;
import io.videoedge.operator.rollout.RolloutPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The words of the status: turns the per-node reports, the conflicts and the rollout into the
 * findings of a {@link StatusAggregator} (which condition is False or Degraded, for what reason, with
 * which nodes named). Pure.
 */
public final class NodeFindings {
    private NodeFindings() {}

    /**
     * @param reports one per node the VideoEdge counts (owned, or awaiting another's release), by node
     * @param conflicts nodes an older VideoEdge keeps, with that VideoEdge (namespace/name)
     * @param contested nodes this VideoEdge holds though an older one selects them too, with that VideoEdge
     * @param heldByNewer nodes a newer VideoEdge holds and still selects (this one, older, takes them once it no
     *     longer does), with that VideoEdge
     * @param planMode whether the spec asks for Plan mode
     * @param valid whether the spec was rolled out (an invalid one is not: the nodes keep what they had)
     * @param rollout the rollout of the current spec, null when it was not rolled out
     */
    public static void report(
            StatusAggregator status,
            List<NodeReport> reports,
            SortedMap<String, String> conflicts,
            SortedMap<String, String> contested,
            SortedMap<String, String> heldByNewer,
            boolean planMode,
            boolean valid,
            RolloutPlan rollout) {
        conflicts.forEach((node, holder) -> status.node(
                NodeReport.notOurs(
                        node, Tuning.CONFLICT, "selected by the older VideoEdge " + holder + ", which keeps this node"),
                false));
        heldByNewer.forEach((node, holder) -> status.node(
                NodeReport.notOurs(
                        node,
                        Tuning.CONFLICT,
                        "held by the newer VideoEdge " + holder
                                + ", which selects it too and keeps it until it no longer" + " does"),
                false));
        reports.forEach(r -> status.node(r, true));
        conflicts(status, conflicts, contested, heldByNewer, reports.isEmpty());

        List<NodeReport> notTuned = select(reports, r -> !r.tuned() && !(planMode && r.tuning() == Tuning.PLANNED));
        List<NodeReport> planned = select(reports, r -> planMode && r.tuning() == Tuning.PLANNED);
        if (!notTuned.isEmpty()) {
            String nodes = describe(notTuned, NodeReport::message);
            if (rollout != null && rollout.paused()) {
                status.notReady(
                        Conditions.TUNING_APPLIED,
                        Conditions.ROLLOUT_PAUSED,
                        "not tuned as the current spec asks on " + nodes);
            } else if (rollout != null && replacing(rollout)) {
                status.notReady(
                        Conditions.TUNING_APPLIED,
                        Conditions.ROLLING_OUT,
                        "rolling out: not yet tuned as the current spec asks on " + nodes);
            } else {
                // an invalid spec was not rolled out: the nodes are judged by the tuning they were given
                status.notReady(
                        Conditions.TUNING_APPLIED,
                        Conditions.NODE_NOT_TUNED,
                        (valid ? "not tuned on " : "not tuned (as last rolled out) on ")
                                + describe(notTuned, NodeReport::tuningMessage));
            }
        }
        if (!planned.isEmpty()) {
            String names =
                    StatusAggregator.list(planned.stream().map(NodeReport::node).toList());
            status.byRequest(
                    Conditions.TUNING_APPLIED,
                    Conditions.PLAN_ONLY,
                    "tuning.mode is Plan: nothing applied on " + names + "; the agents report what they would change");
            status.warning(Conditions.PLAN_ONLY, "nodes serve untuned by request (tuning.mode Plan): " + names);
        }
        List<NodeReport> failed = select(reports, r -> r.tuning() == Tuning.FAILED);
        if (!failed.isEmpty()) {
            status.warning(Conditions.APPLY_FAILED, "tuning failed on " + describe(failed, NodeReport::tuningMessage));
        }
        // before the nodes' Degraded tuning: a kernel without TLS is also reported by its agent as an unsupported
        // setting (module/tls), and the specific reason is the one to lead with
        List<String> noKernelTls = reports.stream()
                .filter(NodeReport::kernelTlsUnavailable)
                .map(NodeReport::node)
                .toList();
        if (!noKernelTls.isEmpty()) {
            status.warning(
                    Conditions.KERNEL_TLS_UNAVAILABLE,
                    "kernel TLS is unavailable on " + StatusAggregator.list(noKernelTls)
                            + ": the edge server falls back to userspace OpenSSL there (no sendfile over TLS)");
        }
        List<NodeReport> degraded = select(reports, r -> r.tuning() == Tuning.DEGRADED);
        if (!degraded.isEmpty()) {
            status.warning(
                    Conditions.DEGRADED,
                    "tuning applied with problems on " + describe(degraded, NodeReport::tuningMessage));
        }
        List<NodeReport> notServing = select(reports, r -> !r.serving());
        if (!notServing.isEmpty()) {
            status.notReady(
                    Conditions.SERVER_AVAILABLE,
                    Conditions.SERVER_NOT_READY,
                    "edge server not ready on " + describe(notServing, NodeReport::serverMessage));
        }
        if (rollout != null) {
            status.rollout(rollout);
            if (rollout.paused()) {
                status.warning(
                        Conditions.ROLLOUT_PAUSED,
                        "rollout paused: node " + rollout.pausedNode() + " failed revision "
                                + rollout.target().key() + ": " + rollout.pausedReason());
                status.pending(Conditions.ROLLOUT_PAUSED, "the rollout of the current spec is paused");
            } else if (!rollout.complete()) {
                status.pending(
                        Conditions.ROLLING_OUT,
                        "rolling out the current spec: " + rollout.updated() + "/"
                                + rollout.nodes().size() + " nodes updated");
            }
        }
    }

    /** A rollout replaces something that ran: a node that was tuned and serving before waits or is in its turn. */
    private static boolean replacing(RolloutPlan rollout) {
        return rollout.nodes().values().stream()
                .anyMatch(d -> d.state() != null
                        && d.state().lastGood() != null
                        && (d.phase() == Phase.WAITING || d.phase().inTurn()));
    }

    private static void conflicts(
            StatusAggregator status,
            SortedMap<String, String> conflicts,
            SortedMap<String, String> contested,
            SortedMap<String, String> heldByNewer,
            boolean noneCounted) {
        if (conflicts.isEmpty() && contested.isEmpty() && heldByNewer.isEmpty()) {
            return;
        }
        List<String> parts = Stream.concat(
                        byOther(conflicts)
                                .map(e -> "node " + StatusAggregator.list(e.getValue())
                                        + " is also selected by the older VideoEdge " + e.getKey()
                                        + ", which keeps it"),
                        byOther(contested)
                                .map(e -> "node " + StatusAggregator.list(e.getValue())
                                        + " is also selected by the older VideoEdge " + e.getKey()
                                        + ": this one keeps serving it until it no longer selects it (handing nodes over"
                                        + " would take their servers out together)"))
                .collect(Collectors.toCollection(ArrayList::new));
        byOther(heldByNewer)
                .map(e -> "node " + StatusAggregator.list(e.getValue()) + " is held by the newer VideoEdge "
                        + e.getKey() + ", which selects it too: this one takes it once that one no longer selects it")
                .forEach(parts::add);
        String message = String.join("; ", parts);
        status.warning(Conditions.CONFLICT, message);
        if (noneCounted && !(conflicts.isEmpty() && heldByNewer.isEmpty())) {
            status.notReady(Conditions.TUNING_APPLIED, Conditions.CONFLICT, message);
            status.notReady(Conditions.SERVER_AVAILABLE, Conditions.CONFLICT, message);
        }
    }

    /** The nodes of each other VideoEdge (namespace/name), in order. */
    private static Stream<Map.Entry<String, List<String>>> byOther(SortedMap<String, String> nodes) {
        return nodes.entrySet().stream()
                .collect(Collectors.groupingBy(
                        Map.Entry::getValue, TreeMap::new, Collectors.mapping(Map.Entry::getKey, Collectors.toList())))
                .entrySet()
                .stream();
    }

    private static List<NodeReport> select(List<NodeReport> reports, Predicate<NodeReport> which) {
        return reports.stream().filter(which).toList();
    }

    /** The first few nodes, each with why, then how many more: words only for the nodes named. */
    private static String describe(List<NodeReport> reports, Function<NodeReport, String> why) {
        List<String> named = reports.stream()
                .limit(StatusAggregator.LISTED_NODES)
                .map(r -> why.apply(r) == null ? r.node() : r.node() + " (" + why.apply(r) + ")")
                .toList();
        return StatusAggregator.list(named, reports.size());
    }
}
