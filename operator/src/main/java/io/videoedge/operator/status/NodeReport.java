package io.videoedge.operator.status;

import io.fabric8.kubernetes.api.model.Pod;
import io.videoedge.api.NodeCapabilities;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.TlsMode;
import io.videoedge.api.VideoEdgeStatus.NodeSummary;
import io.videoedge.operator.health.NodeHealth;
import io.videoedge.operator.health.NodeHealth.Server;
import io.videoedge.operator.health.NodeHealth.Tuning;
import io.videoedge.operator.health.NodeHealth.TuningVerdict;
import io.videoedge.operator.render.Names;
import io.videoedge.operator.rollout.NodeDecision;
import java.util.List;
import java.util.Objects;

/**
 * Where one node stands for the status: its tuning (from the NodeTuning its agent reports on), its
 * edge server (from the pod there) and its place in the rollout. Pure.
 *
 * @param tuning the agent's verdict on the tuning the node's NodeTuning carries
 * @param current whether that tuning is the current spec's (false while the node waits for its turn,
 *     or was reverted)
 * @param phase its rollout phase (null when nothing was rolled out: an invalid spec, a conflict)
 */
public record NodeReport(
        String node,
        Tuning tuning,
        boolean current,
        Server server,
        NodeDecision.Phase phase,
        String tuningMessage,
        String serverMessage,
        NodeSummary summary) {
    public static final String KTLS_NOT_REQUESTED = "not-requested";
    public static final String KTLS_UNAVAILABLE = "unavailable";
    static final String KTLS_SENTENCE = "kernel TLS unavailable: the server uses userspace OpenSSL";
    /** A node's message in the status is cut to this length. */
    static final int MAX_NODE_MESSAGE = 256;

    /**
     * Why a node needs a person's attention, the most pressing first: the status lists the first few
     * nodes in this order (then by name) and counts the rest. NONE: healthy, not listed.
     */
    public enum Attention {
        /** It failed the current revision (the rollout paused on it), or its agent reports a failed tuning. */
        FAILED,
        /** Another VideoEdge keeps it, or its NodeTuning is still someone else's (or being restored). */
        NOT_OURS,
        /** Its edge server does not serve, outside a rollout turn (or in a stalled one). */
        NOT_SERVING,
        /** Not tuned as its NodeTuning asks, outside a rollout turn (or in a stalled one). */
        NOT_TUNED,
        /** Tuned, but its agent reports problems, or kernel TLS is asked for and the kernel has none. */
        DEGRADED,
        /** In its rollout turn: being re-tuned, drained, restarted or soaking (a stalled turn excuses nothing). */
        IN_TURN,
        /** Serves untuned by request (tuning.mode Plan). */
        PLANNED,
        NONE
    }

    /**
     * @param decision the rollout's decision for the node (null when nothing was rolled out)
     * @param targetRevision the current spec's tuning revision (null: judge the node by what it was given)
     * @param https the TLS mode the server serves HTTPS with, null when it serves no HTTPS
     * @param interfaces the interfaces the VideoEdge tunes (null: the agent's default)
     * @param untoleratedTaint a taint of the node that keeps an edge-server pod off it, null for none
     */
    public static NodeReport of(
            String node,
            NodeTuning nt,
            Pod pod,
            NodeDecision decision,
            String targetRevision,
            TlsMode https,
            List<String> interfaces,
            String untoleratedTaint) {
        boolean kernelTls = https != null && https.usesKernelTls();
        TuningVerdict t = NodeHealth.tuning(nt);
        boolean current = targetRevision == null
                || nt != null
                        && nt.getMetadata().getAnnotations() != null
                        && Objects.equals(nt.getMetadata().getAnnotations().get(Names.TUNING_REVISION), targetRevision);
        Server server = NodeHealth.server(pod);
        NodeCapabilities caps =
                nt == null || nt.getStatus() == null ? null : nt.getStatus().capabilities();
        String served = ServedTls.onNode(
                https,
                caps,
                nt == null || nt.getStatus() == null ? null : nt.getStatus().settings());
        String ktls = !kernelTls ? KTLS_NOT_REQUESTED : caps == null || caps.ktls() == null ? null : caps.ktls();
        String serverMessage = server == Server.READY ? null : NodeHealth.serverMessage(server, pod, untoleratedTaint);
        // the summary says the most pressing thing: the rollout (it decides the rest), a tuning not
        // applied (it gates the server), then kTLS (ahead of the agent's Degraded message, which reports
        // the missing module too and can be cut at its end), then the server
        String message = decision == null || decision.phase() == NodeDecision.Phase.UPDATED ? null : decision.message();
        if (message == null && !t.state().tuned()) {
            message = t.message();
        }
        if (message == null && kernelTls && KTLS_UNAVAILABLE.equals(ktls)) {
            message = t.message() == null ? KTLS_SENTENCE : KTLS_SENTENCE + "; " + t.message();
        }
        if (message == null) {
            message = t.message();
        }
        if (message == null) {
            message = serverMessage;
        }
        NodeDecision.Phase phase = decision == null ? null : decision.phase();
        NodeSummary summary = new NodeSummary(
                node,
                t.state().label,
                server.label,
                phase == null ? null : phase.label,
                caps == null ? null : caps.kernel(),
                ktls,
                served,
                nic(caps, interfaces),
                cut(message));
        return new NodeReport(node, t.state(), current, server, phase, t.message(), serverMessage, summary);
    }

    /** A node an older VideoEdge keeps (or whose NodeTuning another one still holds). */
    public static NodeReport notOurs(String node, Tuning state, String message) {
        return new NodeReport(
                node,
                state,
                false,
                null,
                null,
                message,
                null,
                new NodeSummary(node, state.label, null, null, null, null, null, null, cut(message)));
    }

    /** What the summary says about this node. */
    public String message() {
        return summary.message();
    }

    /** Tuned as the current spec asks: its NodeTuning carries the current tuning, and its agent applied it. */
    public boolean tuned() {
        return current && tuning.tuned();
    }

    public boolean serving() {
        return server == Server.READY;
    }

    public boolean updated() {
        return phase == NodeDecision.Phase.UPDATED;
    }

    /** In its rollout turn past the deadline without ever having run healthily (see {@link NodeDecision.Phase#STALLED}). */
    public boolean stalled() {
        return phase == NodeDecision.Phase.STALLED;
    }

    /** Carries the current spec's tuning, which its agent planned and did not apply (tuning.mode Plan). */
    public boolean planned() {
        return current && tuning == Tuning.PLANNED;
    }

    public boolean kernelTlsUnavailable() {
        return KTLS_UNAVAILABLE.equals(summary.ktls());
    }

    /** Whether, and why, this node needs attention (see {@link Attention} for the order). */
    public Attention attention() {
        boolean inTurn = phase != null && phase.inTurn();
        // a turn excuses a node that does not serve or is not tuned yet, unless it stalled
        boolean excused = inTurn && !stalled();
        if (phase == NodeDecision.Phase.FAILED || phase == NodeDecision.Phase.REVERTED || tuning == Tuning.FAILED) {
            return Attention.FAILED;
        }
        if (server == null) {
            return Attention.NOT_OURS;
        }
        if (!serving() && !excused) {
            return Attention.NOT_SERVING;
        }
        if (tuning == Tuning.PENDING && !excused) {
            return Attention.NOT_TUNED;
        }
        if (tuning == Tuning.DEGRADED || kernelTlsUnavailable()) {
            return Attention.DEGRADED;
        }
        if (inTurn) {
            return Attention.IN_TURN;
        }
        return tuning == Tuning.PLANNED ? Attention.PLANNED : Attention.NONE;
    }

    static String cut(String message) {
        return message == null || message.length() <= MAX_NODE_MESSAGE
                ? message
                : message.substring(0, MAX_NODE_MESSAGE - 3) + "...";
    }

    private static String nic(NodeCapabilities caps, List<String> interfaces) {
        if (caps == null || caps.nics() == null || caps.nics().isEmpty()) {
            return null;
        }
        NodeCapabilities.Nic nic = caps.nics().stream()
                .filter(n -> interfaces == null || interfaces.isEmpty() || interfaces.contains(n.name()))
                .findFirst()
                .orElse(caps.nics().getFirst());
        return nic.driver() == null ? nic.name() : nic.name() + " (" + nic.driver() + ")";
    }
}
