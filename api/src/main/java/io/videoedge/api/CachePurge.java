package io.videoedge.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A purge of one path or one prefix from the caches of every edge server of a {@link VideoEdge}
 * (same namespace). The operator calls each node's edge server (its admin port, with the VideoEdge's
 * admin token) and counts the acknowledgements in the status until every node has acknowledged
 * (Complete). Nodes not reached by the deadline make it Failed (DeadlineExceeded) and still get it when
 * they come back, while the CachePurge exists (then Complete, AcknowledgedAfterDeadline). The spec
 * cannot be changed: create another CachePurge.
 */
@Group(VideoEdgeApi.GROUP)
@Version(VideoEdgeApi.VERSION)
@ShortNames("purge")
@AdditionalPrinterColumn(name = "VideoEdge", jsonPath = ".spec.videoEdge", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Path", jsonPath = ".spec.path", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Prefix", jsonPath = ".spec.prefix", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Acknowledged",
        jsonPath = ".status.acknowledged",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Complete",
        jsonPath = ".status.conditions[?(@.type==\"Complete\")].status",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Failed",
        jsonPath = ".status.conditions[?(@.type==\"Failed\")].status",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
public class CachePurge extends CustomResource<CachePurgeSpec, CachePurgeStatus> implements Namespaced {
    /** Condition: every targeted node acknowledged the purge. */
    public static final String COMPLETE = "Complete";
    /**
     * Condition: the deadline passed with nodes that had not acknowledged (stays True as the record of it,
     * also once they acknowledged late), or the purge cannot run.
     */
    public static final String FAILED = "Failed";

    // reasons
    public static final String ALL_ACKNOWLEDGED = "AllNodesAcknowledged";
    /** Complete=True after Failed=True DeadlineExceeded: the nodes that missed the deadline have it now. */
    public static final String ACKNOWLEDGED_AFTER_DEADLINE = "AcknowledgedAfterDeadline";

    public static final String PENDING = "NodesPending";
    public static final String DEADLINE_EXCEEDED = "DeadlineExceeded";
    public static final String VIDEO_EDGE_NOT_FOUND = "VideoEdgeNotFound";
    public static final String IN_PROGRESS = "InProgress";

    // reasons of a pending node
    public static final String UNREACHABLE = "Unreachable";
    public static final String REFUSED = "Refused";
    public static final String NO_ADMIN_TOKEN = "NoAdminToken";
    public static final String NO_ADDRESS = "NoAddress";
    public static final String NOT_TRIED = "NotTriedYet";
}
