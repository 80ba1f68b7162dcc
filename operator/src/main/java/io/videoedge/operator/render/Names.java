package io.videoedge.operator.render;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeApi;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** Names, labels and annotations of the objects the operator makes for one VideoEdge. */
public final class Names {
    public static final String COMPONENT_EDGE_SERVER = "edge-server";
    public static final String COMPONENT_NODE_TUNING = "node-tuning";
    /** The component label of the Secret with a VideoEdge's shared session ticket keys. */
    public static final String COMPONENT_TICKET_KEYS = "ticket-keys";
    /** The component label of the Secret with a VideoEdge's admin token (POST /admin/purge). */
    public static final String COMPONENT_ADMIN_TOKEN = "admin-token";

    public static final String LABEL_NAME = "app.kubernetes.io/name";
    public static final String LABEL_INSTANCE = "app.kubernetes.io/instance";
    public static final String APP_NAME = "videoedge";
    /** ConfigMap annotation: SHA-256 of the whole config (live fields included). */
    public static final String CONFIG_CHECKSUM = VideoEdgeApi.GROUP + "/config-checksum";
    /**
     * Pod template annotation: the revision of the edge-server pod (its template, with the config's
     * restart-only fields). A pod whose revision differs is replaced in its node's turn of a rollout.
     */
    public static final String POD_REVISION = VideoEdgeApi.GROUP + "/pod-revision";
    /**
     * Pod template annotation: SHA-256 of the origin's CA bundle (ca.crt of server.origin.caSecretName).
     * The server reads that file once, when it starts: a new bundle is a new pod revision, rolled out.
     */
    public static final String ORIGIN_CA_CHECKSUM = VideoEdgeApi.GROUP + "/origin-ca-checksum";
    /** NodeTuning annotation: the revision of the tuning it carries ({@link TuningInputs#revision()}). */
    public static final String TUNING_REVISION = VideoEdgeApi.GROUP + "/tuning-revision";
    /** NodeTuning annotation: the rollout's memory of this node (JSON, NodeRolloutState). */
    public static final String ROLLOUT_STATE = VideoEdgeApi.GROUP + "/rollout";
    /** Label selector of everything the operator manages (informers watch only these). */
    public static final String MANAGED_SELECTOR = VideoEdgeApi.LABEL_MANAGED_BY + "=" + VideoEdgeApi.MANAGED_BY;

    public static final String EDGE_SERVER_SELECTOR =
            MANAGED_SELECTOR + "," + VideoEdgeApi.LABEL_COMPONENT + "=" + COMPONENT_EDGE_SERVER;

    private Names() {}

    public static String edgeServer(VideoEdge ve) {
        return ve.getMetadata().getName() + "-edge-server";
    }

    /** The Secret with the session ticket keys every edge server of the VideoEdge shares ({@link TicketKeyRing}). */
    public static String ticketKeys(VideoEdge ve) {
        return ve.getMetadata().getName() + "-ticket-keys";
    }

    /** The Secret with the bearer token of the edge servers' admin endpoint (cache purges). */
    public static String adminToken(VideoEdge ve) {
        return ve.getMetadata().getName() + "-admin-token";
    }

    public static String namespacedName(HasMetadata r) {
        String ns = r.getMetadata().getNamespace();
        return ns == null
                ? r.getMetadata().getName()
                : ns + "/" + r.getMetadata().getName();
    }

    /** Labels of every object made for this VideoEdge: the owner by name and namespace, for mapping back. */
    public static Map<String, String> ownerLabels(VideoEdge ve, String component) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(LABEL_NAME, APP_NAME);
        labels.put(LABEL_INSTANCE, ve.getMetadata().getName());
        labels.put(VideoEdgeApi.LABEL_COMPONENT, component);
        labels.put(VideoEdgeApi.LABEL_MANAGED_BY, VideoEdgeApi.MANAGED_BY);
        labels.put(VideoEdgeApi.LABEL_OWNER_NAME, ve.getMetadata().getName());
        labels.put(VideoEdgeApi.LABEL_OWNER_NAMESPACE, ve.getMetadata().getNamespace());
        return labels;
    }

    /** The pod selector of the edge-server DaemonSet (immutable once created: keep it small and stable). */
    public static Map<String, String> edgeServerSelector(VideoEdge ve) {
        return Map.of(
                VideoEdgeApi.LABEL_COMPONENT,
                COMPONENT_EDGE_SERVER,
                VideoEdgeApi.LABEL_OWNER_NAME,
                ve.getMetadata().getName());
    }

    /** The owner (namespace/name) recorded in an object's labels, if it has one. */
    public static Optional<String> ownerOf(HasMetadata r) {
        Map<String, String> labels = r.getMetadata().getLabels();
        if (labels == null) {
            return Optional.empty();
        }
        String name = labels.get(VideoEdgeApi.LABEL_OWNER_NAME);
        String ns = labels.get(VideoEdgeApi.LABEL_OWNER_NAMESPACE);
        return name == null || ns == null ? Optional.empty() : Optional.of(ns + "/" + name);
    }

    public static boolean ownedBy(HasMetadata r, VideoEdge ve) {
        return ownerOf(r).map(o -> o.equals(namespacedName(ve))).orElse(false);
    }
}
