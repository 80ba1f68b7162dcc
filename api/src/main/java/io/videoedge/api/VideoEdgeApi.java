package io.videoedge.api;

/** Names shared by the operator, the node agent and the edge server's pod: one place, written once. */
public final class VideoEdgeApi {
    public static final String GROUP = "videoedge.io";
    public static final String VERSION = "v1alpha1";

    /** Finalizer the node agent puts on its NodeTuning: released only after the originals are restored. */
    public static final String AGENT_FINALIZER = GROUP + "/restore-originals";

    /** Labels on objects the operator owns. */
    public static final String LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";

    public static final String MANAGED_BY = "videoedge-operator";
    public static final String LABEL_OWNER_NAME = GROUP + "/videoedge";
    public static final String LABEL_OWNER_NAMESPACE = GROUP + "/videoedge-namespace";
    public static final String LABEL_NODE = GROUP + "/node";
    public static final String LABEL_COMPONENT = "app.kubernetes.io/component";

    /**
     * Readiness gate of an edge-server pod: true once its node is tuned as its NodeTuning asks with this
     * pod named in it; false while the pod drains before its node is re-tuned or it is restarted, and while
     * the node is re-tuned.
     */
    public static final String READINESS_GATE_NODE_TUNED = GROUP + "/node-tuned";

    /**
     * Node label the operator sets on every node it tunes and removes only after that node's NodeTuning
     * is gone (its agent restored the originals first): the node agent's DaemonSet selects it, so an
     * agent outlives its node's membership in a VideoEdge.
     */
    public static final String LABEL_NODE_AGENT = GROUP + "/node-agent";

    /** The edge server's admin listener (metrics, probes) on the node's host network; no acceptor may take it. */
    /**
     * A label key as Kubernetes takes it: an optional DNS-subdomain prefix (at most 253 characters) and '/', then a
     * name of up to 63 letters, digits, '-', '_' and '.', starting and ending alphanumeric.
     */
    public static final String LABEL_KEY_PATTERN =
            "^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$";
    /** A label value as Kubernetes takes it: empty, or up to 63 characters starting and ending alphanumeric. */
    public static final String LABEL_VALUE_PATTERN = "^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$";

    public static final int EDGE_ADMIN_PORT = 9400;
    /** The node agent's metrics port on the host network (the chart's nodeAgent.metricsPort default). */
    public static final int NODE_AGENT_METRICS_PORT = 9401;

    private VideoEdgeApi() {}
}
