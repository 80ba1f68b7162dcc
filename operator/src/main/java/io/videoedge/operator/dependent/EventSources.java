package io.videoedge.operator.dependent;

/** Names of the reconciler's event sources, which dependents look up by name. */
public final class EventSources {
    public static final String NODES = "nodes";
    public static final String NODE_TUNINGS = "nodetunings";
    public static final String PODS = "edge-server-pods";
    public static final String MONITORING_CRD = "monitoring-crd";

    private EventSources() {}
}
