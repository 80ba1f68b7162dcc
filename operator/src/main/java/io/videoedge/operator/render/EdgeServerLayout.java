package io.videoedge.operator.render;

import io.videoedge.api.VideoEdgeApi;

/**
 * Where things are inside the edge-server pod: the config renderer writes these paths into the
 * config, the DaemonSet mounts the volumes there. One place, so the two cannot disagree.
 */
public final class EdgeServerLayout {
    /** The ConfigMap, mounted as a directory: the kubelet swaps a changed one in, the server reloads it. */
    public static final String CONFIG_DIR = "/etc/videoedge/config";

    public static final String CONFIG_FILE_NAME = "edge-server.yaml";
    public static final String CONFIG_FILE = CONFIG_DIR + "/" + CONFIG_FILE_NAME;
    public static final String TLS_DIR = "/etc/videoedge/tls";
    public static final String TLS_CERT = TLS_DIR + "/tls.crt";
    public static final String TLS_KEY = TLS_DIR + "/tls.key";
    /**
     * The origin's CA bundle (server.origin.caSecretName): that Secret's key {@link #ORIGIN_CA_KEY} alone,
     * mounted as a directory (no subPath), read-only; the config's origin.caFile names the file.
     */
    public static final String ORIGIN_CA_DIR = "/etc/videoedge/origin-ca";
    /** The key of the CA bundle in its Secret, as cert-manager and kubernetes.io/tls Secrets name it; also the file name. */
    public static final String ORIGIN_CA_KEY = "ca.crt";

    public static final String ORIGIN_CA_FILE = ORIGIN_CA_DIR + "/" + ORIGIN_CA_KEY;
    /**
     * The URL signing keys (server.signedUrls.secretName): the whole Secret as a directory (no subPath),
     * read-only; the server reads current and previous there and again when the kubelet updates them.
     */
    public static final String SIGNING_KEYS_DIR = "/etc/videoedge/url-signing";

    /** The admin token (the Secret {@code <name>-admin-token}) as a directory; the server reads {@link #ADMIN_TOKEN_FILE}. */
    public static final String ADMIN_TOKEN_DIR = "/etc/videoedge/admin-token";

    public static final String ADMIN_TOKEN_FILE = ADMIN_TOKEN_DIR + "/token";

    /**
     * The session ticket keys every node shares: the Secret {@code <name>-ticket-keys} the operator
     * rotates, as a directory; the server places the keys in effect into {@link #TICKET_DIR}.
     */
    public static final String TICKET_KEYS_DIR = "/etc/videoedge/ticket-keys";

    /** Session ticket keys: an emptyDir, the server generates a key when it is empty. */
    public static final String TICKET_DIR = "/var/run/videoedge/tickets";

    public static final String CONTENT_DIR = "/var/lib/videoedge/content";
    public static final String CACHE_DIR = "/var/cache/videoedge";

    /** The admin listener (/metrics, /healthz, /readyz): plain HTTP on the host network. */
    public static final int ADMIN_PORT = VideoEdgeApi.EDGE_ADMIN_PORT;

    public static final String ADMIN_PORT_NAME = "admin";

    /** The image's non-root user (distroless "nonroot"). */
    public static final long RUN_AS_USER = 65532;

    private EdgeServerLayout() {}
}
