package io.videoedge.operator.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.operator.dependent.EdgeServerDaemonSet;
import io.videoedge.operator.render.EdgeServerConfigRenderer;
import io.videoedge.operator.render.EdgeServerPod;
import io.videoedge.operator.render.Names;
import io.videoedge.operator.render.NodeTuningRenderer;
import io.videoedge.operator.render.ServerMemory;
import io.videoedge.operator.render.TuningInputs;
import io.videoedge.operator.testing.TestFiles;
import io.videoedge.server.config.ConfigException;
import io.videoedge.server.config.ConfigLoader;
import io.videoedge.server.config.EdgeServerConfig;
import io.videoedge.testing.RealApiServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Admitted means it runs: VideoEdges generated at and around every boundary of the CRD's schema (each
 * numeric minimum and maximum and one past them, each enum value, each pattern's edge forms, TLS modes
 * against NIC types and acceptor switches), each sent to a real kube-apiserver (server-side dry run, so
 * the CRD's schema, defaults and CEL rules decide); every one it admits is rendered by the operator and
 * its config loaded by the edge server's own loader. None may be refused or fail to render. A
 * counterexample is printed with the one change (or pair) from the example that makes it.
 */
class AdmittedRunsIT {
    static RealApiServer api;
    static KubernetesClient client;
    static String namespace;

    @BeforeAll
    static void start() {
        api = RealApiServer.shared();
        client = api.newClient();
        namespace = api.createNamespace("admitted");
    }

    /** Sets of changes to the example's spec: dotted path under spec to the value (null removes). */
    record Candidate(String description, Map<String, Object> changes) {}

    @Test
    void everyAdmittedVideoEdgeRendersAConfigTheEdgeServerLoads() throws Exception {
        Map<String, Object> spec = specSchema();
        List<Candidate> candidates = new ArrayList<>();
        leaves("", spec, candidates);
        combinations(candidates);

        int admitted = 0;
        Set<String> admittedRuns = new LinkedHashSet<>();
        List<String> counterexamples = new ArrayList<>();
        for (Candidate c : candidates) {
            GenericKubernetesResource ve = example("admit-" + Integer.toHexString(c.hashCode() & 0xfffffff));
            c.changes().forEach((path, value) -> set(ve, "spec." + path, value));
            GenericKubernetesResource stored;
            try {
                stored = client.resource(ve).inNamespace(namespace).dryRun().create();
            } catch (KubernetesClientException e) {
                if (e.getCode() == 422 || e.getCode() == 400) {
                    continue; // refused at admission, with its message: fine
                }
                throw e;
            }
            admitted++;
            VideoEdge typed = Serialization.unmarshal(Serialization.asJson(stored), VideoEdge.class);
            typed.getMetadata().setNamespace(namespace);
            try {
                String text = EdgeServerConfigRenderer.render(namespace + "/edge", typed.getSpec());
                EdgeServerConfig config = ConfigLoader.parse(text, c.description());
                // the rest of what the operator renders from it must not fail either
                PodTemplateSpec template = EdgeServerPod.template(
                        typed,
                        "videoedge/edge-server:it",
                        "",
                        EdgeServerConfigRenderer.restartChecksum("x", typed.getSpec()),
                        "0".repeat(64));
                // a CA bundle the server loads is in a volume of its container (the loader above does not look at
                // files)
                if (config.origin != null
                        && config.origin.caFile != null
                        && template.getSpec().getContainers().getFirst().getVolumeMounts().stream()
                                .noneMatch(m -> config.origin.caFile.startsWith(m.getMountPath() + "/"))) {
                    counterexamples.add(c.description() + " " + c.changes() + ": origin.caFile " + config.origin.caFile
                            + " is in no volume of the pod");
                }
                // the shared ticket keys the server reads are in a volume of its container
                if (config.ticketKeys.source != null
                        && template.getSpec().getContainers().getFirst().getVolumeMounts().stream()
                                .noneMatch(m -> m.getMountPath().equals(config.ticketKeys.source))) {
                    counterexamples.add(c.description() + " " + c.changes() + ": ticketKeys.source "
                            + config.ticketKeys.source + " is no volume of the pod");
                }
                // the signing keys the server reads are in a volume of its container
                if (config.signedUrls != null
                        && template.getSpec().getContainers().getFirst().getVolumeMounts().stream()
                                .noneMatch(m -> m.getMountPath().equals(config.signedUrls.keyDir))) {
                    counterexamples.add(c.description() + " " + c.changes() + ": signedUrls.keyDir "
                            + config.signedUrls.keyDir + " is no volume of the pod");
                }
                // no acceptor on the node agent's port: both are on every tuned node's host network
                for (var a : config.acceptors) {
                    if (a.port == VideoEdgeApi.NODE_AGENT_METRICS_PORT) {
                        counterexamples.add(c.description() + " " + c.changes() + ": port " + a.port
                                + " is the node agent's metrics port");
                    }
                }
                // the DaemonSet of the servers is one the API server admits (tolerations, node selector, image)
                DaemonSet ds = EdgeServerDaemonSet.of(typed, template);
                try {
                    client.resource(ds).dryRun().create();
                } catch (KubernetesClientException e) {
                    counterexamples.add(c.description() + " " + c.changes() + ": the API server refuses its DaemonSet: "
                            + e.getStatus().getMessage());
                }
                // the NodeTuning the operator writes for a node is one the API server admits
                TuningInputs tuning = TuningInputs.of(typed.getSpec());
                NodeTuning nt = NodeTuningRenderer.render(
                        typed, "node-1", tuning, Map.of(Names.TUNING_REVISION, tuning.revision()), null);
                try {
                    client.resource(nt).dryRun().create();
                } catch (KubernetesClientException e) {
                    counterexamples.add(
                            c.description() + " " + c.changes() + ": the API server refuses its NodeTuning: "
                                    + e.getStatus().getMessage());
                }
                // a pod of the template is one the API server admits (it checks more of a pod than of a template)
                Pod pod = new PodBuilder()
                        .withMetadata(template.getMetadata())
                        .editMetadata()
                        .withName("edge-server-" + Integer.toHexString(c.hashCode() & 0xfffffff))
                        .withNamespace(namespace)
                        .endMetadata()
                        .withSpec(template.getSpec())
                        .build();
                try {
                    client.resource(pod).dryRun().create();
                } catch (KubernetesClientException e) {
                    counterexamples.add(c.description() + " " + c.changes() + ": the API server refuses its pods: "
                            + e.getStatus().getMessage());
                }
                // what the operator checks before rolling a spec out (the config read back as the server reads it)
                EdgeServerConfigRenderer.problems(typed.getSpec())
                        .forEach(problem -> counterexamples.add(
                                c.description() + " " + c.changes() + ": the operator refuses it: " + problem));
                admittedRuns.add(c.description());
                tuning.revision();
                ServerMemory.of(typed.getSpec())
                        .problem()
                        .ifPresent(problem -> counterexamples.add(
                                c.description() + " " + c.changes() + ": the operator refuses it: " + problem));
            } catch (ConfigException e) {
                counterexamples.add(c.description() + " " + c.changes()
                        + ": the edge server refuses the rendered config: " + e.problems());
            } catch (RuntimeException e) {
                counterexamples.add(c.description() + " " + c.changes() + ": the operator cannot render it: " + e);
            }
        }
        String report = "admitted => runs: " + candidates.size() + " VideoEdges tried, " + admitted + " admitted, "
                + (candidates.size() - admitted) + " refused at admission, " + counterexamples.size()
                + " counterexamples";
        System.out.println(report);
        Files.createDirectories(Path.of("target"));
        Files.writeString(
                Path.of("target", "admitted-runs.txt"), report + "\n" + String.join("\n", counterexamples) + "\n");
        assertThat(counterexamples).as(report).isEmpty();
        assertThat(admitted).as("enough admitted VideoEdges to mean something").isGreaterThan(100);
        assertThat(admittedRuns)
                .as("the origin's buffer pool counts against the cache's room")
                .contains(
                        "memory 1Gi, cache 544Mi, 248 origin connections",
                        "memory 1Gi, cache 450Mi, 1000 origin connections")
                .doesNotContain(
                        "memory 1Gi, cache 544Mi, 249 origin connections",
                        "memory 1Gi, cache 451Mi, 1000 origin connections",
                        "memory 1Gi, cache 0, 65535 origin connections");
        assertThat(admittedRuns)
                .as(
                        "the boundaries of acceptor threads, kernel modules and the memory tier: admitted on the side that runs")
                .contains(
                        "two acceptor threads, reusePort true",
                        "15 kernel modules, tls.mode ktls",
                        "16 kernel modules, tls.mode openssl",
                        "memory 2Gi, small cache 1Mi",
                        "origin connect timeout 1ms")
                .doesNotContain(
                        "two acceptor threads, reusePort false",
                        "16 kernel modules, tls.mode ktls",
                        "memory 2Gi, small cache 1023Ki",
                        "the node agent's port");
        assertThat(admittedRuns)
                .as("tolerations and node selectors as a pod template takes them")
                .contains(
                        "tolerations [{operator=Exists}]",
                        "node selector {videoedge.io/role=edge}",
                        "node selector {role=" + "v".repeat(63) + "}",
                        "node selector {role=}",
                        "image 'registry.example/edge:1'")
                .doesNotContain(
                        "tolerations [{}]",
                        "node selector {bad key=x}",
                        "node selector {role=" + "v".repeat(64) + "}",
                        "node selector {role=-edge}");
        assertThat(admittedRuns)
                .as("images, host paths, failover origins and signed-URL prefixes: admitted only as they run")
                .contains(
                        "image 'registry.example:5000/video/edge-server:2.1@sha256:" + "a".repeat(64) + "'",
                        "content /srv/video, cache /var/cache/videoedge",
                        "content /srv/video, cache /srv/videos",
                        "signed URLs /hls/live required")
                .doesNotContain(
                        "image 'registry.example/edge:1\n'",
                        "image 'Registry/Edge:1'",
                        "content /srv/video, cache /srv/video/cache",
                        "content /srv/video/, cache /srv",
                        "content /var/lib/kubelet/pods, cache /var/cache/videoedge",
                        "content /var, cache /var/cache/videoedge",
                        "content /srv/video, cache /etc",
                        "content /./etc, cache /var/cache/videoedge",
                        "content /srv/video, cache /srv/./video/cache",
                        "signed URLs /live\u3000 required");
        assertThat(admittedRuns)
                .as("an https origin with its CA Secret is admitted and runs; with http it is refused")
                .contains(
                        "origin https://origin.example:8443/video with CA Secret origin-ca",
                        "origin https://10.0.0.1 with CA Secret " + "a".repeat(253))
                .doesNotContain(
                        "origin http://origin:8080 with CA Secret origin-ca",
                        "origin https://origin.example:8443/video with CA Secret " + "a".repeat(254),
                        "origin https://origin.example:8443/video with CA Secret Origin-CA");
    }

    // ---------------------------------------------------------------- generation from the CRD's schema

    @SuppressWarnings("unchecked")
    static Map<String, Object> specSchema() throws Exception {
        Map<String, Object> crd = Serialization.unmarshal(
                Files.readString(TestFiles.ROOT.resolve("crds/videoedge.io_videoedges.yaml")), Map.class);
        Map<String, Object> version =
                ((List<Map<String, Object>>) ((Map<String, Object>) crd.get("spec")).get("versions")).getFirst();
        Map<String, Object> schema =
                (Map<String, Object>) ((Map<String, Object>) version.get("schema")).get("openAPIV3Schema");
        return (Map<String, Object>) ((Map<String, Object>) schema.get("properties")).get("spec");
    }

    @SuppressWarnings("unchecked")
    static void leaves(String path, Map<String, Object> schema, List<Candidate> out) {
        String type = (String) schema.get("type");
        if ("object".equals(type) && schema.get("properties") instanceof Map<?, ?> props) {
            ((Map<String, Map<String, Object>>) props)
                    .forEach((name, child) -> leaves(path.isEmpty() ? name : path + "." + name, child, out));
            return;
        }
        for (Object value : values(path, schema)) {
            out.add(new Candidate(path + " = " + value, single(path, value)));
        }
    }

    /** The boundary values of one leaf: its bounds and one past them, its enum, its pattern's edge forms. */
    @SuppressWarnings("unchecked")
    static Set<Object> values(String path, Map<String, Object> schema) {
        Set<Object> values = new LinkedHashSet<>();
        String type = String.valueOf(schema.get("type"));
        switch (type) {
            case "integer" -> {
                Long min = schema.get("minimum") instanceof Number n ? n.longValue() : null;
                Long max = schema.get("maximum") instanceof Number n ? n.longValue() : null;
                for (Long bound : new Long[] {min, max}) {
                    if (bound != null) {
                        values.add(bound - 1);
                        values.add(bound);
                        values.add(bound + 1);
                    }
                }
                values.addAll(List.of(0L, 1L, 2L, -1L));
            }
            case "boolean" -> values.addAll(List.of(true, false));
            case "string" -> {
                if (schema.get("enum") instanceof List<?> e) {
                    values.addAll(e);
                    values.add("bogus");
                } else {
                    values.addAll(patternForms(path, (String) schema.get("pattern")));
                }
            }
            case "array" -> {
                Map<String, Object> items = (Map<String, Object>) schema.get("items");
                if (items != null && items.get("enum") instanceof List<?> e) {
                    values.add(List.of());
                    e.forEach(v -> values.add(List.of(v)));
                    values.add(new ArrayList<>(e));
                } else if (path.equals("server.signedUrls.rules")) {
                    for (Object prefix : List.of(
                            "/", "/vod/", "/vod", "/a b/", "/vod/../x/", "/./", "/%2e%2e/", "vod/", "//", "/vod?x")) {
                        values.add(List.of(Map.of("prefix", prefix)));
                        values.add(List.of(
                                Map.of("prefix", prefix, "mode", "optional"),
                                Map.of("prefix", "/free/", "mode", "off")));
                    }
                    values.add(List.of(Map.of("prefix", "/", "mode", "off")));
                } else if (path.equals("server.origin.failover")) {
                    values.add(List.of());
                    for (Object url : patternForms("server.origin.url", null)) {
                        values.add(List.of(Map.of("url", url)));
                    }
                    values.add(List.of(Map.of("url", "http://b:8080"), Map.of("url", "https://c.example/v")));
                    // the server's config lists them separated by commas
                    values.add(List.of(Map.of("url", "http://backup.example/vod,hls")));
                    values.add(List.of(Map.of("url", "http://b.example/x,http://c.example")));
                    values.add(List.of(Map.of("url", "http://b:8080"), Map.of("url", "http://b:8080")));
                    values.add(List.of(Map.of("url", "http://origin.video.svc:8080")));
                    List<Object> eight = new ArrayList<>();
                    for (int i = 0; i < 8; i++) eight.add(Map.of("url", "http://o" + i));
                    values.add(eight);
                    values.add(eight.subList(0, 7));
                } else if (items != null && "string".equals(items.get("type"))) {
                    values.addAll(List.of(
                            List.of(),
                            List.of("eth0"),
                            List.of("tls"),
                            List.of("eth0", "eth1"),
                            List.of("a".repeat(15)),
                            List.of("Bad Name")));
                }
            }
            case "object" -> {
                if (path.equals("tuning.sysctls")) {
                    for (String[] kv : new String[][] {
                        {"net.ipv4.tcp_notsent_lowat", "0"},
                        {"net.ipv4.tcp_notsent_lowat", "-1"},
                        {"net.ipv4.tcp_notsent_lowat", " 131072 "},
                        {"net.ipv4.tcp_mem", "1 2 3"},
                        {"net.ipv4.tcp_mem", "3 2 1"},
                        {"net.ipv4.tcp_rmem", "4096 87380 6291456"},
                        {"vm.swappiness", "100"},
                        {"vm.swappiness", "x"},
                        {"net.core.default_qdisc", "fq"},
                        {"kernel.sched_migration_cost_ns", "5000000"},
                        {"net.ipv4.tcp_available_congestion_control", "a b c"},
                        {"net.core.somaxconn", "~"}
                    }) {
                        values.add(Map.of(kv[0], kv[1]));
                    }
                } else if (path.equals("nodeSelector")) {
                    values.addAll(List.of(Map.of("videoedge.io/role", "edge"), Map.of("a", "b", "c", "d")));
                }
            }
            default -> {}
        }
        return values;
    }

    /** Edge forms of a pattern the CRD uses (recognised by its text), and of free text where the path says what it is. */
    static List<Object> patternForms(String path, String pattern) {
        if (path.equals("server.origin.caSecretName")) {
            return List.of(
                    "origin-ca", "a".repeat(254), "Bad_Name", ""); // without a URL: refused (combinations add one)
        }
        if (path.equals("server.cache.slice")) {
            return List.of(
                    "0", "4Mi", "64Ki", "63Ki", "65535", "1Gi", "1025Mi", "1.5Mi", "0.5", "1e6", "-4Mi", "4m", "");
        }
        if (path.equals("server.origin.url")) {
            return List.of(
                    "http://origin:8080",
                    "https://origin.example",
                    "https://10.0.0.1:8443/base/path",
                    "http://o",
                    "ftp://origin",
                    "origin:8080",
                    "http://origin:8080/a b",
                    "http://" + "a".repeat(2040));
        }
        if (pattern == null) {
            return List.of("x", "edge-tls", "a".repeat(63), "registry.local/edge:2");
        }
        if (pattern.contains("kKmMgG")) {
            return List.of(
                    "0",
                    "1",
                    "1023",
                    "64k",
                    "4m",
                    "2047m",
                    "2048m",
                    "1g",
                    "2g",
                    "2097151k",
                    "2097152k",
                    "2147483647",
                    "2147483648",
                    "9999999999",
                    "999999999g",
                    "0k",
                    "1K",
                    "1M",
                    "1G",
                    "4 m",
                    "-1",
                    "");
        }
        if (pattern.contains("(ms|s|m|h|d)")) {
            return List.of(
                    "0ms",
                    "1ms",
                    "500ms",
                    "1s",
                    "10s",
                    "1m",
                    "1h",
                    "24d",
                    "25d",
                    "2147483647ms",
                    "2147483648ms",
                    "999999999d",
                    "1",
                    "1x",
                    "");
        }
        if (pattern.contains("Ki|Mi")) {
            return List.of(
                    "0",
                    "1",
                    "64Mi",
                    "256Mi",
                    "319Mi",
                    "320Mi",
                    "1Gi",
                    "1.5Gi",
                    "100G",
                    "1023Pi",
                    "999999999999999Pi",
                    "0.5",
                    "1e3",
                    "-1Gi",
                    "");
        }
        if (pattern.contains("%")) {
            return List.of("0", "1", "3", "999999", "0%", "1%", "50%", "99%", "100%", "101%", "x");
        }
        if (pattern.startsWith("^(/")) {
            return List.of(
                    "/", "/var/cache/videoedge", "/a/b/", "relative", "/a/../b", "/" + "a".repeat(255), "/with space");
        }
        return List.of("x", "bbr", "cubic", "", "a".repeat(17));
    }

    /** TLS modes against NIC types and acceptor switches, ports, memory against the cache: where two fields meet. */
    static void combinations(List<Candidate> out) {
        for (String mode : List.of("none", "openssl", "ktls", "ktls-offload")) {
            for (String nic : List.of("auto", "mlx5", "virtio", "ena")) {
                out.add(new Candidate("tls.mode " + mode + " on " + nic, pair("tls.mode", mode, "nic.type", nic)));
            }
            out.add(new Candidate(
                    "tls.mode " + mode + ", https disabled", pair("tls.mode", mode, "server.https.enabled", false)));
            out.add(new Candidate(
                    "tls.mode " + mode + ", http disabled", pair("tls.mode", mode, "server.http.enabled", false)));
            out.add(new Candidate(
                    "tls.mode " + mode + ", no tickets, early data",
                    pair("tls.mode", mode, "tls.sessionTickets", false)));
        }
        out.add(new Candidate("same port twice", pair("server.http.port", 8443, "server.https.port", 8443)));
        out.add(new Candidate("the node agent's port", pair("server.http.port", 9401, "tls.mode", "none")));
        for (boolean reusePort : List.of(true, false)) {
            out.add(new Candidate(
                    "two acceptor threads, reusePort " + reusePort,
                    pair("server.socket.reusePort", reusePort, "server.socket.acceptorThreads", 2)));
        }
        // kernel TLS adds the tls module to the NodeTuning's list, which holds 16
        for (int n : List.of(15, 16)) {
            for (String mode : List.of("openssl", "ktls")) {
                out.add(new Candidate(
                        n + " kernel modules, tls.mode " + mode,
                        pair(
                                "tuning.kernelModules",
                                java.util.stream.IntStream.range(0, n)
                                        .mapToObj(i -> "mod" + i)
                                        .toList(),
                                "tls.mode",
                                mode)));
            }
        }
        // what goes into the pod template as it is: tolerations, the node selector, the image
        List<Object> tolerations = List.of(
                List.of(Map.of()),
                List.of(Map.of("operator", "Exists")),
                List.of(Map.of("operator", "Exists", "value", "x")),
                List.of(Map.of("key", "k", "operator", "Equal", "value", "v", "effect", "NoSchedule")),
                List.of(Map.of(
                        "key", "k", "operator", "Equal", "value", "v", "effect", "NoSchedule", "tolerationSeconds", 5)),
                List.of(Map.of("key", "k", "operator", "Exists", "effect", "NoExecute", "tolerationSeconds", 5)),
                List.of(Map.of("key", "bad key", "operator", "Exists")),
                List.of(Map.of("key", "k", "operator", "Equal", "value", "v".repeat(64))),
                List.of(Map.of("key", "k", "operator", "Above")),
                List.of(Map.of("key", "k", "operator", "Exists", "effect", "Sometimes")));
        for (Object t : tolerations) {
            out.add(new Candidate("tolerations " + t, single("tolerations", t)));
        }
        for (Map<String, String> selector : List.of(
                Map.of("videoedge.io/role", "edge"),
                Map.of("bad key", "x"),
                Map.of("role", "v".repeat(63)),
                Map.of("role", "v".repeat(64)),
                Map.of("role", "-edge"),
                Map.of("role", ""),
                Map.of("a".repeat(254) + "/role", "edge"))) {
            out.add(new Candidate("node selector " + selector, single("nodeSelector", selector)));
        }
        for (String image : List.of(
                "registry.example/edge:1",
                "registry.example:5000/video/edge-server:2.1@sha256:" + "a".repeat(64),
                " registry.example/edge:1",
                "registry.example/edge:1\n",
                "Registry/Edge:1",
                "edge server")) {
            out.add(new Candidate("image '" + image + "'", single("server.image", image)));
        }
        for (String cache : List.of("1", "1023Ki", "1Mi", "1500000000.5")) {
            out.add(new Candidate(
                    "memory 2Gi, small cache " + cache, pair("server.memory", "2Gi", "server.cache.memory", cache)));
        }
        for (String timeout : List.of("0s", "0ms", "1ms")) {
            out.add(new Candidate(
                    "origin connect timeout " + timeout,
                    pair("server.origin.url", "http://origin:8080", "server.origin.connectTimeout", timeout)));
            out.add(new Candidate(
                    "origin read timeout " + timeout,
                    pair("server.origin.url", "http://origin:8080", "server.origin.readTimeout", timeout)));
        }
        out.add(new Candidate("the admin port", pair("server.http.port", 9400, "tls.mode", "none")));
        for (String memory : List.of("320Mi", "512Mi", "1Gi", "64Gi")) {
            for (String cache : List.of("0", "16Mi", "256Mi", "1Gi", "63Gi")) {
                out.add(new Candidate(
                        "memory " + memory + ", cache " + cache,
                        pair("server.memory", memory, "server.cache.memory", cache)));
            }
        }
        // either side of the JVM budget: 2Gi holds 1312Mi; a 4Gi heap from 16Gi up; whole-Mi heaps below
        for (List<String> pair : List.of(
                List.of("2Gi", "1312Mi"),
                List.of("2Gi", "1313Mi"),
                List.of("20Gi", "16160Mi"),
                List.of("20Gi", "16161Mi"),
                List.of("333Mi", "26Mi"),
                List.of("333Mi", "27Mi"),
                List.of("1.5Gi", "0.5"))) {
            out.add(new Candidate(
                    "memory " + pair.get(0) + ", cache " + pair.get(1),
                    pair("server.memory", pair.get(0), "server.cache.memory", pair.get(1))));
        }
        // the origin's buffer pool (a 128Ki chunk per connection and 8 spare, at least 32Mi) beside the cache: 1Gi
        // leaves 576Mi of direct memory; the last candidate wants an 8Gi pool
        for (String[] t :
                new String[][] {{"544Mi", "248"}, {"544Mi", "249"}, {"450Mi", "1000"}, {"451Mi", "1000"}, {"0", "65535"}
                }) {
            Map<String, Object> changes = pair("server.memory", "1Gi", "server.cache.memory", t[0]);
            changes.put("server.origin.url", "http://origin:8080");
            changes.put("server.origin.maxConnections", Integer.parseInt(t[1]));
            out.add(new Candidate("memory 1Gi, cache " + t[0] + ", " + t[1] + " origin connections", changes));
        }
        // the host paths: apart from each other and from the node's system directories
        for (String[] paths : List.of(
                new String[] {"/srv/video", "/var/cache/videoedge"},
                new String[] {"/var/cache/videoedge", "/var/cache/videoedge/"},
                new String[] {"/srv/video", "/srv/video/cache"},
                new String[] {"/srv/video/", "/srv"},
                new String[] {"/srv/video", "/srv/videos"},
                new String[] {"/var/lib/kubelet/pods", "/var/cache/videoedge"},
                new String[] {"/var", "/var/cache/videoedge"},
                new String[] {"/srv/video", "/etc"},
                new String[] {"/./etc", "/var/cache/videoedge"},
                new String[] {"/srv/video", "/srv/./video/cache"})) {
            out.add(new Candidate(
                    "content " + paths[0] + ", cache " + paths[1],
                    pair("server.contentPath", paths[0], "server.cache.disk.path", paths[1])));
        }
        // signed-URL rules with their key Secret: the prefixes the CRD admits are ones the server takes
        for (Object prefix : List.of(
                "/",
                "/vod/",
                "/hls/live",
                "/a b/",
                "/vod/../x/",
                "/./",
                "/%2e%2e/",
                "/v\\x/",
                "vod/",
                "//",
                "/é/",
                "/live\u3000",
                "/live\u2028/")) {
            for (String mode : List.of("required", "optional", "off")) {
                out.add(new Candidate(
                        "signed URLs " + prefix + " " + mode,
                        pair(
                                "server.signedUrls.secretName",
                                "url-keys",
                                "server.signedUrls.rules",
                                List.of(Map.of("prefix", prefix, "mode", mode)))));
            }
        }
        for (String url : List.of(
                "http://origin",
                "https://origin.example:8443/video/",
                "http://10.0.0.1:65535/p%20q",
                "http://origin/a b",
                "http://origin/v?k=1",
                "http://origin/v#f",
                "http://user@origin/",
                "http://[::1]:8080",
                "http://my_origin",
                "http://origin:0",
                "http://origin:65536",
                "http://origin.1x",
                "http://300.1.1.1",
                "http://origin/%zz")) {
            out.add(new Candidate("origin " + url, single("server.origin.url", url)));
        }
        for (int max : List.of(1, 64, 248, 249, 1000, 65535)) {
            out.add(new Candidate(
                    "origin with " + max + " connections",
                    pair("server.origin.url", "http://origin:8080", "server.origin.maxConnections", max)));
        }
        out.add(new Candidate(
                "https origin",
                pair("server.origin.url", "https://origin.example:8443", "server.origin.readTimeout", "24d")));
        // failover origins beside the url: their forms, duplicates, counts, and downFor at its edges
        for (Object failover : values("server.origin.failover", Map.of("type", "array"))) {
            out.add(new Candidate(
                    "origin http://origin:8080 with failover " + failover,
                    pair("server.origin.url", "http://origin:8080", "server.origin.failover", failover)));
        }
        for (String downFor : List.of("0ms", "99ms", "100ms", "5s", "24d", "25d", "0s")) {
            out.add(new Candidate(
                    "origin with failover and downFor " + downFor,
                    Map.of(
                            "server.origin.url",
                            "https://origin.example",
                            "server.origin.failover",
                            List.of(Map.of("url", "http://backup:8080")),
                            "server.origin.downFor",
                            downFor)));
        }
        // the origin's CA Secret: names at and past the edges of a Secret's name, with https (admitted) and http
        // (refused)
        for (String name : List.of(
                "origin-ca",
                "ca.example.com",
                "a",
                "a".repeat(253),
                "a".repeat(254),
                "Origin-CA",
                "-ca",
                "ca_bundle",
                "ca/crt",
                "")) {
            for (String url : List.of("https://origin.example:8443/video", "https://10.0.0.1", "http://origin:8080")) {
                out.add(new Candidate(
                        "origin " + url + " with CA Secret " + name,
                        pair("server.origin.url", url, "server.origin.caSecretName", name)));
            }
        }
        out.add(new Candidate(
                "early data on TLS 1.3 only",
                pair("tls.protocols", List.of("TLSv1.3"), "tls.earlyData", Map.of("enabled", true, "maxSize", 16384))));
    }

    static Map<String, Object> single(String path, Object value) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(path, value);
        return m;
    }

    static Map<String, Object> pair(String p1, Object v1, String p2, Object v2) {
        Map<String, Object> m = new TreeMap<>();
        m.put(p1, v1);
        m.put(p2, v2);
        return m;
    }

    static GenericKubernetesResource example(String name) throws Exception {
        GenericKubernetesResource ve =
                Serialization.unmarshal(TestFiles.read("examples/videoedge.yaml"), GenericKubernetesResource.class);
        ve.getMetadata().setName(name);
        ve.getMetadata().setNamespace(namespace);
        return ve;
    }

    @SuppressWarnings("unchecked")
    static void set(GenericKubernetesResource r, String path, Object value) {
        String[] keys = path.split("\\.");
        Map<String, Object> node = r.getAdditionalProperties();
        for (int i = 0; i < keys.length - 1; i++) {
            node = (Map<String, Object>) node.computeIfAbsent(keys[i], k -> new LinkedHashMap<String, Object>());
        }
        if (value == null) {
            node.remove(keys[keys.length - 1]);
        } else {
            node.put(keys[keys.length - 1], value);
        }
    }
}
