package io.videoedge.operator.render;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.videoedge.api.ServerSpec;
import io.videoedge.api.Toleration;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.api.VideoEdgeSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The edge server's pod template: host network, dedicated cores (Guaranteed QoS: integer CPUs,
 * requests == limits, for the kubelet's static CPU manager), the readiness gate
 * videoedge.io/node-tuned (tune before serve), the config as a mounted ConfigMap directory (so live
 * changes reach the running server), non-root. Pure. Its {@link #revision} changes exactly when a
 * running pod must be replaced: the template itself or a restart-only config field; a live config
 * field changes neither.
 */
public final class EdgeServerPod {
    public static final String CONTAINER = "edge-server";
    public static final String INIT_CACHE_DIR = "cache-dir";
    /** The volume of the origin's CA Secret (server.origin.caSecretName). */
    public static final String ORIGIN_CA_VOLUME = "origin-ca";
    /** The volume of the shared session ticket keys (the Secret the operator rotates: Names.ticketKeys). */
    public static final String TICKET_KEYS_VOLUME = "ticket-keys";
    /** The volume of the URL signing keys Secret (server.signedUrls.secretName). */
    public static final String SIGNING_KEYS_VOLUME = "signing-keys";
    /** The volume of the admin token (the Secret the operator makes: Names.adminToken). */
    public static final String ADMIN_TOKEN_VOLUME = "admin-token";
    /** Read by the image's entry point: run the server under `numactl --interleave=all`. */
    public static final String ENV_NUMA_INTERLEAVE = "VIDEOEDGE_NUMA_INTERLEAVE";
    /** Read by the `java` launcher itself, whatever the entry point. */
    public static final String ENV_JAVA_OPTIONS = "JDK_JAVA_OPTIONS";

    private EdgeServerPod() {}

    /**
     * @param image the image when the spec names none
     * @param javaOptions JDK_JAVA_OPTIONS
     * @param restartChecksum the config's restart-only fields ({@link EdgeServerConfigRenderer#restartChecksum})
     * @param originCaChecksum the origin's CA bundle ({@link #originCaChecksum}); null without one
     * @return the template, annotated with its own revision ({@link Names#POD_REVISION})
     */
    public static PodTemplateSpec template(
            VideoEdge ve, String image, String javaOptions, String restartChecksum, String originCaChecksum) {
        VideoEdgeSpec spec = ve.getSpec();
        ServerSpec server = spec.server();
        boolean https = EdgeServerConfigRenderer.servesHttps(spec);
        Map<String, Quantity> resources = new TreeMap<>(Map.of(
                "cpu", new Quantity(Integer.toString(server.cpus())),
                "memory", new Quantity(server.memory())));

        var container = new ContainerBuilder()
                .withName(CONTAINER)
                .withImage(server.image() != null && !server.image().isBlank() ? server.image() : image)
                .withImagePullPolicy("IfNotPresent")
                .withArgs("--config", EdgeServerLayout.CONFIG_FILE)
                .withEnv(env(spec, javaOptions))
                .withPorts(ports(spec))
                .withNewResources()
                .withRequests(resources)
                .withLimits(resources)
                .endResources()
                .withReadinessProbe(probe("/readyz", 5, 3))
                .withLivenessProbe(probe("/healthz", 10, 3))
                // the JVM and the config load come first: liveness starts counting after this
                .withStartupProbe(probe("/healthz", 2, 60))
                .withNewSecurityContext()
                .withRunAsNonRoot(true)
                .withRunAsUser(EdgeServerLayout.RUN_AS_USER)
                .withRunAsGroup(EdgeServerLayout.RUN_AS_USER)
                .withReadOnlyRootFilesystem(true)
                // a non-root process gets NET_BIND_SERVICE only from file capabilities on the image's java,
                // which no_new_privs would ignore: allow escalation only when a port below 1024 needs it
                .withAllowPrivilegeEscalation(needsPrivilegedPort(spec))
                .withNewCapabilities()
                .withDrop("ALL")
                .withAdd(capabilities(spec))
                .endCapabilities()
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .endSecurityContext()
                .withVolumeMounts(mounts(spec, https))
                .build();

        var pod = new PodSpecBuilder()
                .withInitContainers(cacheDirOwner(spec, container.getImage(), resources))
                .withHostNetwork(true)
                .withDnsPolicy("ClusterFirstWithHostNet")
                .withEnableServiceLinks(false)
                .withAutomountServiceAccountToken(false)
                .withNodeSelector(spec.nodeSelector())
                .withTolerations(
                        spec.tolerations() == null
                                ? List.of()
                                : spec.tolerations().stream()
                                        .map(Toleration::toPod)
                                        .toList())
                .addNewReadinessGate(VideoEdgeApi.READINESS_GATE_NODE_TUNED)
                // drainTimeout (25 s) plus the JVM's exit
                .withTerminationGracePeriodSeconds(30L)
                .withContainers(container)
                .withVolumes(volumes(ve, spec, https))
                .build();

        PodTemplateSpec template = new PodTemplateSpecBuilder()
                .withNewMetadata()
                .withLabels(Names.ownerLabels(ve, Names.COMPONENT_EDGE_SERVER))
                .addToAnnotations(Names.CONFIG_CHECKSUM, restartChecksum)
                .addToAnnotations("kubectl.kubernetes.io/default-container", CONTAINER)
                .endMetadata()
                .withSpec(pod)
                .build();
        if (originCaChecksum != null && EdgeServerConfigRenderer.originCaSecret(server) != null) {
            // the server reads origin.caFile only at start: a new bundle must be a new revision (a rollout restarts it)
            template.getMetadata().getAnnotations().put(Names.ORIGIN_CA_CHECKSUM, originCaChecksum);
        }
        template.getMetadata().getAnnotations().put(Names.POD_REVISION, revision(template));
        return template;
    }

    /**
     * SHA-256 of the CA bundle in the origin's CA Secret (its {@link EdgeServerLayout#ORIGIN_CA_KEY}, as
     * stored), for {@link Names#ORIGIN_CA_CHECKSUM}; null when the Secret has none.
     */
    public static String originCaChecksum(Secret secret) {
        String bundle = secret == null || secret.getData() == null
                ? null
                : secret.getData().get(EdgeServerLayout.ORIGIN_CA_KEY);
        return bundle == null ? null : Hashes.sha256(bundle);
    }

    /**
     * The revision of a template (without its own revision annotation): what the pods carry. Without the node
     * selector and tolerations: they decide where servers run, not how (the DaemonSet controller adds and removes
     * pods on the nodes they add and remove), so a change to them restarts no running server, nor, being a new
     * revision, lifts a paused rollout.
     */
    static String revision(PodTemplateSpec template) {
        PodTemplateSpec copy = new PodTemplateSpecBuilder(template).build();
        Map<String, String> annotations = new TreeMap<>(copy.getMetadata().getAnnotations());
        annotations.remove(Names.POD_REVISION);
        copy.getMetadata().setAnnotations(annotations);
        copy.getSpec().setNodeSelector(null);
        copy.getSpec().setTolerations(null);
        return Hashes.revision(copy, 10);
    }

    /**
     * NET_BIND_SERVICE: the image's java carries it as a file capability (a port below 1024), and exec fails
     * when it is not in the bounding set. SYS_NICE with numaInterleave: the container runtime's default
     * seccomp profile (RuntimeDefault) allows set_mempolicy/mbind only to containers that have it, so
     * `numactl --interleave=all` is refused without it. The server runs as non-root and gets neither as an
     * effective capability (no ambient capabilities); they only open the bounding set and the seccomp filter.
     */
    static List<String> capabilities(VideoEdgeSpec spec) {
        List<String> caps = new ArrayList<>(List.of("NET_BIND_SERVICE"));
        if (Boolean.TRUE.equals(spec.tuning().numaInterleave())) {
            caps.add("SYS_NICE");
        }
        return caps;
    }

    /**
     * With an origin the server writes its disk cache into the hostPath server.cache.disk.path, which the
     * kubelet creates (DirectoryOrCreate) owned by root, mode 0755: the non-root server could not write it
     * and would exit at start. This init container hands the directory (not its content: what is in it
     * was written by the server) to the server's user. Root with CHOWN only; the same resources as the
     * server, so the pod stays Guaranteed. None without an origin: nothing is written there then.
     */
    static List<Container> cacheDirOwner(VideoEdgeSpec spec, String image, Map<String, Quantity> resources) {
        if (!EdgeServerConfigRenderer.fetchesFromOrigin(spec.server())) {
            return List.of();
        }
        String owner = EdgeServerLayout.RUN_AS_USER + ":" + EdgeServerLayout.RUN_AS_USER;
        return List.of(new ContainerBuilder()
                .withName(INIT_CACHE_DIR)
                .withImage(image)
                .withImagePullPolicy("IfNotPresent")
                .withCommand("chown", owner, EdgeServerLayout.CACHE_DIR)
                .withNewResources()
                .withRequests(resources)
                .withLimits(resources)
                .endResources()
                .withNewSecurityContext()
                .withRunAsUser(0L)
                .withRunAsNonRoot(false)
                .withReadOnlyRootFilesystem(true)
                .withAllowPrivilegeEscalation(false)
                .withNewCapabilities()
                .withDrop("ALL")
                .withAdd("CHOWN")
                .endCapabilities()
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .endSecurityContext()
                .withVolumeMounts(mount("cache", EdgeServerLayout.CACHE_DIR, false, null))
                .build());
    }

    private static List<EnvVar> env(VideoEdgeSpec spec, String javaOptions) {
        List<EnvVar> env = new ArrayList<>();
        env.add(new EnvVarBuilder()
                .withName(ENV_JAVA_OPTIONS)
                .withValue(javaOptions)
                .build());
        if (Boolean.TRUE.equals(spec.tuning().numaInterleave())) {
            env.add(new EnvVarBuilder()
                    .withName(ENV_NUMA_INTERLEAVE)
                    .withValue("true")
                    .build());
        }
        env.add(fieldRef("NODE_NAME", "spec.nodeName"));
        env.add(fieldRef("POD_NAME", "metadata.name"));
        env.add(fieldRef("POD_NAMESPACE", "metadata.namespace"));
        return env;
    }

    private static EnvVar fieldRef(String name, String path) {
        return new EnvVarBuilder()
                .withName(name)
                .withNewValueFrom()
                .withNewFieldRef()
                .withApiVersion("v1")
                .withFieldPath(path)
                .endFieldRef()
                .endValueFrom()
                .build();
    }

    private static List<io.fabric8.kubernetes.api.model.ContainerPort> ports(VideoEdgeSpec spec) {
        List<io.fabric8.kubernetes.api.model.ContainerPort> ports = new ArrayList<>();
        if (EdgeServerConfigRenderer.servesHttp(spec)) {
            ports.add(port("http", spec.server().http().port()));
        }
        if (EdgeServerConfigRenderer.servesHttps(spec)) {
            ports.add(port("https", spec.server().https().port()));
        }
        ports.add(port(EdgeServerLayout.ADMIN_PORT_NAME, EdgeServerLayout.ADMIN_PORT));
        return ports;
    }

    private static io.fabric8.kubernetes.api.model.ContainerPort port(String name, int port) {
        // on the host network the host port is the container port
        return new ContainerPortBuilder()
                .withName(name)
                .withContainerPort(port)
                .withHostPort(port)
                .withProtocol("TCP")
                .build();
    }

    static boolean needsPrivilegedPort(VideoEdgeSpec spec) {
        return EdgeServerConfigRenderer.servesHttp(spec) && spec.server().http().port() < 1024
                || EdgeServerConfigRenderer.servesHttps(spec)
                        && spec.server().https().port() < 1024;
    }

    private static Probe probe(String path, int period, int failures) {
        return new ProbeBuilder()
                .withNewHttpGet()
                .withPath(path)
                .withPort(new IntOrString(EdgeServerLayout.ADMIN_PORT_NAME))
                .withScheme("HTTP")
                .endHttpGet()
                .withPeriodSeconds(period)
                .withFailureThreshold(failures)
                .withTimeoutSeconds(2)
                .build();
    }

    private static List<VolumeMount> mounts(VideoEdgeSpec spec, boolean https) {
        List<VolumeMount> mounts = new ArrayList<>();
        // the whole directory, not a subPath: the kubelet then swaps in a changed ConfigMap, and the server
        // applies its live fields without a restart
        mounts.add(mount("config", EdgeServerLayout.CONFIG_DIR, true, null));
        if (https) {
            mounts.add(mount("tls", EdgeServerLayout.TLS_DIR, true, null));
            if (Boolean.TRUE.equals(spec.tls().sessionTickets())) {
                mounts.add(mount("tickets", EdgeServerLayout.TICKET_DIR, false, null));
                // a directory: the kubelet brings a rotated key in, the server places it when its time comes
                mounts.add(mount(TICKET_KEYS_VOLUME, EdgeServerLayout.TICKET_KEYS_DIR, true, null));
            }
        }
        if (EdgeServerConfigRenderer.originCaSecret(spec.server()) != null) {
            // a directory, not a subPath, like the TLS Secret: the kubelet keeps it current (the server reads it at
            // start)
            mounts.add(mount(ORIGIN_CA_VOLUME, EdgeServerLayout.ORIGIN_CA_DIR, true, null));
        }
        if (EdgeServerConfigRenderer.signingKeysSecret(spec.server()) != null) {
            // a directory: the kubelet swaps in a changed Secret and the server reads the keys again (no restart)
            mounts.add(mount(SIGNING_KEYS_VOLUME, EdgeServerLayout.SIGNING_KEYS_DIR, true, null));
        }
        // a directory: a new token (the Secret deleted and made again) reaches the server without a restart
        mounts.add(mount(ADMIN_TOKEN_VOLUME, EdgeServerLayout.ADMIN_TOKEN_DIR, true, null));
        mounts.add(mount("content", EdgeServerLayout.CONTENT_DIR, true, null));
        mounts.add(mount("cache", EdgeServerLayout.CACHE_DIR, false, null));
        mounts.add(mount("tmp", "/tmp", false, null));
        return mounts;
    }

    private static VolumeMount mount(String name, String path, boolean readOnly, String subPath) {
        // readOnly: false is the API's zero value, dropped on write: leave it out, or every compare sees a change
        return new VolumeMountBuilder()
                .withName(name)
                .withMountPath(path)
                .withReadOnly(readOnly ? Boolean.TRUE : null)
                .withSubPath(subPath)
                .build();
    }

    private static List<Volume> volumes(VideoEdge ve, VideoEdgeSpec spec, boolean https) {
        List<Volume> volumes = new ArrayList<>();
        volumes.add(new VolumeBuilder()
                .withName("config")
                .withNewConfigMap()
                .withName(Names.edgeServer(ve))
                .endConfigMap()
                .build());
        if (https) {
            volumes.add(new VolumeBuilder()
                    .withName("tls")
                    .withNewSecret()
                    .withSecretName(spec.tls().secretName())
                    .endSecret()
                    .build());
            if (Boolean.TRUE.equals(spec.tls().sessionTickets())) {
                volumes.add(new VolumeBuilder()
                        .withName("tickets")
                        .withNewEmptyDir()
                        .withMedium("Memory")
                        .endEmptyDir()
                        .build());
                volumes.add(new VolumeBuilder()
                        .withName(TICKET_KEYS_VOLUME)
                        .withNewSecret()
                        .withSecretName(Names.ticketKeys(ve))
                        .endSecret()
                        .build());
            }
        }
        String originCa = EdgeServerConfigRenderer.originCaSecret(spec.server());
        if (originCa != null) {
            // the bundle alone: a kubernetes.io/tls Secret also holds tls.key, which the edge server has no use for
            volumes.add(new VolumeBuilder()
                    .withName(ORIGIN_CA_VOLUME)
                    .withNewSecret()
                    .withSecretName(originCa)
                    .addNewItem()
                    .withKey(EdgeServerLayout.ORIGIN_CA_KEY)
                    .withPath(EdgeServerLayout.ORIGIN_CA_KEY)
                    .endItem()
                    .endSecret()
                    .build());
        }
        String signing = EdgeServerConfigRenderer.signingKeysSecret(spec.server());
        if (signing != null) {
            volumes.add(new VolumeBuilder()
                    .withName(SIGNING_KEYS_VOLUME)
                    .withNewSecret()
                    .withSecretName(signing)
                    .endSecret()
                    .build());
        }
        volumes.add(new VolumeBuilder()
                .withName(ADMIN_TOKEN_VOLUME)
                .withNewSecret()
                .withSecretName(Names.adminToken(ve))
                .endSecret()
                .build());
        volumes.add(new VolumeBuilder()
                .withName("content")
                .withNewHostPath()
                .withPath(spec.server().contentPath())
                .withType("DirectoryOrCreate")
                .endHostPath()
                .build());
        volumes.add(new VolumeBuilder()
                .withName("cache")
                .withNewHostPath()
                .withPath(spec.server().cache().disk().path())
                .withType("DirectoryOrCreate")
                .endHostPath()
                .build());
        volumes.add(new VolumeBuilder()
                .withName("tmp")
                .withNewEmptyDir()
                .endEmptyDir()
                .build());
        return volumes;
    }
}
