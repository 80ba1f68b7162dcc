package io.videoedge.operator.dependent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.videoedge.api.ServerSpec;
import io.videoedge.api.SignedUrlMode;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.api.VideoEdgeSpec;
import io.videoedge.operator.config.OperatorSettings;
import io.videoedge.operator.render.EdgeServerConfigRenderer;
import io.videoedge.operator.render.EdgeServerLayout;
import io.videoedge.operator.render.EdgeServerPod;
import io.videoedge.operator.render.Hashes;
import io.videoedge.operator.render.Names;
import io.videoedge.operator.render.TuningInputs;
import io.videoedge.operator.rollout.NodeView;
import io.videoedge.operator.rollout.RolloutPlan;
import io.videoedge.operator.rollout.RolloutPlanner;
import io.videoedge.operator.rollout.RolloutPolicy;
import io.videoedge.operator.rollout.RolloutTarget;
import io.videoedge.operator.testing.TestFiles;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Each dependent's desired state, from the reference VideoEdge (examples/videoedge.yaml, defaulted). */
class DependentsTest {
    static final OperatorSettings SETTINGS =
            new OperatorSettings("videoedge/edge-server:1.0", "-XX:+UseZGC", Duration.ofSeconds(30), "op-0");

    /** Two new nodes, edge-1 with its pod scheduled, edge-2 without one yet. */
    static EdgePlan plan(VideoEdge ve, String... excluded) {
        return plan(ve, Optional.empty(), excluded);
    }

    static EdgePlan plan(VideoEdge ve, Optional<Secret> originCa, String... excluded) {
        var pod = new PodBuilder()
                .withNewMetadata()
                .withName("edge-edge-server-x")
                .withNamespace("video")
                .withUid("u1")
                .endMetadata()
                .withNewSpec()
                .withNodeName("edge-1")
                .endSpec()
                .build();
        EdgePlan.Server server = EdgePlan.Server.of(ve, SETTINGS, originCa);
        RolloutTarget target = RolloutTarget.of(TuningInputs.of(ve.getSpec()), server.podRevision());
        RolloutPlan rollout = RolloutPlanner.plan(
                target,
                RolloutPolicy.of(ve.getSpec(), 2),
                List.of(new NodeView("edge-1", null, pod), new NodeView("edge-2", null, null)),
                Instant.parse("2026-11-01T00:00:00Z"));
        return server.with(rollout.nodes(), new TreeSet<>(List.of(excluded)), Map.of("edge-1", pod));
    }

    static VideoEdge example() {
        return TestFiles.exampleVideoEdge("video", 1);
    }

    @Test
    void configMapCarriesTheRenderedConfigAndItsChecksum() {
        VideoEdge ve = example();
        EdgePlan plan = plan(ve);
        var cm = EdgeConfigMap.desired(ve, plan);
        assertThat(cm.getMetadata().getName()).isEqualTo("edge-edge-server");
        assertThat(cm.getMetadata().getNamespace()).isEqualTo("video");
        assertThat(cm.getData())
                .containsExactly(
                        Map.entry("edge-server.yaml", EdgeServerConfigRenderer.render("video/edge", ve.getSpec())));
        assertThat(cm.getMetadata().getAnnotations()).containsEntry(Names.CONFIG_CHECKSUM, plan.configChecksum());
    }

    @Test
    void daemonSetRunsAHostNetworkedGuaranteedServerGatedOnTuning() {
        VideoEdge ve = example();
        EdgePlan plan = plan(ve);
        DaemonSet ds = EdgeServerDaemonSet.desired(ve, plan);
        PodSpec pod = ds.getSpec().getTemplate().getSpec();
        Container c = pod.getContainers().getFirst();

        assertThat(pod.getHostNetwork()).isTrue();
        assertThat(pod.getDnsPolicy()).isEqualTo("ClusterFirstWithHostNet");
        assertThat(pod.getNodeSelector()).isEqualTo(Map.of("videoedge.io/role", "edge"));
        assertThat(pod.getReadinessGates())
                .extracting(g -> g.getConditionType())
                .containsExactly(VideoEdgeApi.READINESS_GATE_NODE_TUNED);
        assertThat(pod.getAffinity()).isNull();
        // Guaranteed QoS with whole CPUs: the static CPU manager pins them
        assertThat(c.getResources().getRequests())
                .isEqualTo(c.getResources().getLimits())
                .containsEntry("cpu", new Quantity("1"))
                .containsEntry("memory", new Quantity("1Gi"));
        assertThat(c.getImage()).isEqualTo("videoedge/edge-server:1.0");
        assertThat(c.getArgs()).containsExactly("--config", "/etc/videoedge/config/edge-server.yaml");
        assertThat(c.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("JDK_JAVA_OPTIONS");
            assertThat(e.getValue())
                    .startsWith("-Xms256m -Xmx256m -XX:MaxDirectMemorySize=576m")
                    .endsWith("-XX:+UseZGC");
        });
        assertThat(c.getEnv())
                .anySatisfy(
                        e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("VIDEOEDGE_NUMA_INTERLEAVE=true"));
        // non-root, NET_BIND_SERVICE only; no escalation needed above port 1024
        var sc = c.getSecurityContext();
        assertThat(sc.getRunAsUser()).isEqualTo(65532L);
        assertThat(sc.getRunAsNonRoot()).isTrue();
        assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
        // NET_BIND_SERVICE for the image's file capability; SYS_NICE for numaInterleave (RuntimeDefault seccomp)
        assertThat(sc.getCapabilities().getAdd()).containsExactly("NET_BIND_SERVICE", "SYS_NICE");
        assertThat(sc.getAllowPrivilegeEscalation()).isFalse();
        // no origin: nothing writes the disk cache, no init container
        assertThat(pod.getInitContainers()).isEmpty();
        assertThat(sc.getReadOnlyRootFilesystem()).isTrue();
        // probes on the admin port; ports named for Prometheus
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(c.getReadinessProbe().getHttpGet().getPort()).isEqualTo(new IntOrString("admin"));
        assertThat(c.getPorts())
                .extracting(p -> p.getName() + ":" + p.getContainerPort())
                .containsExactly("http:8080", "https:8443", "admin:9400");
        // config, TLS, tickets (one-nio's directory and the shared keys), the admin token (purges), content
        // (read-only), cache
        // the config as a directory (no subPath): the kubelet swaps a changed ConfigMap in, live fields apply
        assertThat(c.getVolumeMounts())
                .extracting(VolumeMount::getMountPath)
                .containsExactly(
                        "/etc/videoedge/config",
                        "/etc/videoedge/tls",
                        "/var/run/videoedge/tickets",
                        "/etc/videoedge/ticket-keys",
                        "/etc/videoedge/admin-token",
                        "/var/lib/videoedge/content",
                        "/var/cache/videoedge",
                        "/tmp");
        assertThat(pod.getVolumes())
                .filteredOn(v -> v.getName().equals("admin-token"))
                .singleElement()
                .satisfies(v -> assertThat(v.getSecret().getSecretName()).isEqualTo("edge-admin-token"));
        assertThat(c.getVolumeMounts())
                .allSatisfy(m -> assertThat(m.getSubPath()).isNull());
        assertThat(c.getVolumeMounts())
                .filteredOn(m -> m.getMountPath().equals("/var/lib/videoedge/content"))
                .singleElement()
                .satisfies(m -> assertThat(m.getReadOnly()).isTrue());
        assertThat(pod.getVolumes())
                .filteredOn(v -> v.getName().equals("tls"))
                .singleElement()
                .satisfies(v -> assertThat(v.getSecret().getSecretName()).isEqualTo("edge-tls"));
        assertThat(pod.getVolumes())
                .filteredOn(v -> v.getName().equals("cache"))
                .singleElement()
                .satisfies(v -> assertThat(v.getHostPath().getPath()).isEqualTo("/var/cache/videoedge"));
        // the pods carry their revision; the rollout replaces them (OnDelete: never the controller on its own)
        assertThat(ds.getSpec().getTemplate().getMetadata().getAnnotations())
                .containsEntry(
                        Names.POD_REVISION,
                        plan.podTemplate().getMetadata().getAnnotations().get(Names.POD_REVISION))
                .containsEntry(
                        Names.CONFIG_CHECKSUM, EdgeServerConfigRenderer.restartChecksum("video/edge", ve.getSpec()));
        assertThat(ds.getSpec().getUpdateStrategy().getType()).isEqualTo("OnDelete");
        assertThat(ds.getSpec().getUpdateStrategy().getRollingUpdate()).isNull();
        assertThat(ds.getSpec().getSelector().getMatchLabels()).isEqualTo(Names.edgeServerSelector(ve));
    }

    @Test
    void nodesOfOtherVideoEdgesAreExcludedByName() {
        VideoEdge ve = example();
        DaemonSet ds = EdgeServerDaemonSet.desired(ve, plan(ve, "edge-3", "edge-4"));
        var term = ds.getSpec()
                .getTemplate()
                .getSpec()
                .getAffinity()
                .getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms()
                .getFirst();
        assertThat(term.getMatchFields()).singleElement().satisfies(r -> {
            assertThat(r.getKey()).isEqualTo("metadata.name");
            assertThat(r.getOperator()).isEqualTo("NotIn");
            assertThat(r.getValues()).containsExactly("edge-3", "edge-4");
        });
    }

    @Test
    void withoutTlsNoSecretNoHttpsAndAPrivilegedPortAllowsEscalationForFileCapabilities() {
        VideoEdge ve = example();
        VideoEdgeSpec s = ve.getSpec();
        ServerSpec sv = s.server();
        ve.setSpec(s.withServer(sv.withHttp(new ServerSpec.Port(80, true))
                        .withImage("registry.local/edge:2")
                        .withMaxUnavailable("25%")
                        .withAccessLog(null))
                .withTls(new io.videoedge.api.TlsSpec(io.videoedge.api.TlsMode.NONE, null, null, null, null))
                .withTuning(withoutNumaInterleave(s.tuning())));
        DaemonSet ds = EdgeServerDaemonSet.desired(ve, plan(ve));
        PodSpec pod = ds.getSpec().getTemplate().getSpec();
        assertThat(pod.getVolumes()).extracting(Volume::getName).doesNotContain("tls", "tickets");
        assertThat(pod.getContainers().getFirst().getPorts())
                .extracting(p -> p.getName())
                .containsExactly("http", "admin");
        assertThat(pod.getContainers().getFirst().getSecurityContext().getAllowPrivilegeEscalation())
                .isTrue();
        assertThat(pod.getContainers()
                        .getFirst()
                        .getSecurityContext()
                        .getCapabilities()
                        .getAdd())
                .containsExactly("NET_BIND_SERVICE");
        assertThat(pod.getContainers().getFirst().getImage()).isEqualTo("registry.local/edge:2");
    }

    static io.videoedge.api.TuningSpec withoutNumaInterleave(io.videoedge.api.TuningSpec t) {
        return new io.videoedge.api.TuningSpec(
                t.mode(), t.congestionControl(), t.sysctls(), t.cpusetRelaxDomainLevel(), false, t.kernelModules());
    }

    @Test
    void withAnOriginAnInitContainerHandsTheRootOwnedCacheHostPathToTheServersUser() {
        VideoEdge ve = example();
        VideoEdgeSpec s = ve.getSpec();
        ServerSpec sv = s.server();
        ve.setSpec(s.withServer(
                sv.withOrigin(new ServerSpec.Origin("http://origin.video.svc:8080", null, "1s", "10s", 64))));
        PodSpec pod = EdgeServerDaemonSet.desired(ve, plan(ve))
                .getSpec()
                .getTemplate()
                .getSpec();
        Container main = pod.getContainers().getFirst();

        assertThat(pod.getInitContainers()).singleElement().satisfies(init -> {
            assertThat(init.getName()).isEqualTo("cache-dir");
            assertThat(init.getImage()).isEqualTo(main.getImage());
            assertThat(init.getCommand()).containsExactly("chown", "65532:65532", "/var/cache/videoedge");
            assertThat(init.getVolumeMounts()).singleElement().satisfies(m -> {
                assertThat(m.getName()).isEqualTo("cache");
                assertThat(m.getMountPath()).isEqualTo("/var/cache/videoedge");
            });
            // root for chown(2), with that capability only
            assertThat(init.getSecurityContext().getRunAsUser()).isZero();
            assertThat(init.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
            assertThat(init.getSecurityContext().getCapabilities().getAdd()).containsExactly("CHOWN");
            assertThat(init.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
            assertThat(init.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
            // Guaranteed QoS counts init containers too
            assertThat(init.getResources()).isEqualTo(main.getResources());
        });
        assertThat(main.getSecurityContext().getRunAsUser()).isEqualTo(65532L);
    }

    static Secret caSecret(String pem) {
        return new SecretBuilder()
                .withNewMetadata()
                .withName("origin-ca")
                .withNamespace("video")
                .endMetadata()
                .withType("kubernetes.io/tls")
                .addToData("ca.crt", Base64.getEncoder().encodeToString(pem.getBytes()))
                .addToData("tls.crt", "Y3J0")
                .addToData("tls.key", "a2V5")
                .build();
    }

    @Test
    void anHttpsOriginsCaSecretIsMountedReadOnlyItsBundleAloneAndTheBundleIsInThePodRevision() {
        VideoEdge ve = example();
        ServerSpec sv = ve.getSpec().server();
        ve.setSpec(ve.getSpec()
                .withServer(
                        sv.withOrigin(new ServerSpec.Origin("https://origin.example", "origin-ca", "1s", "10s", 64))));
        Secret ca = caSecret("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
        EdgePlan plan = plan(ve, Optional.of(ca));
        PodTemplateSpec template =
                EdgeServerDaemonSet.desired(ve, plan).getSpec().getTemplate();
        PodSpec pod = template.getSpec();

        // ca.crt only (not the tls.key a kubernetes.io/tls Secret also holds), where the config's caFile points
        assertThat(pod.getVolumes())
                .filteredOn(v -> v.getName().equals("origin-ca"))
                .singleElement()
                .satisfies(v -> {
                    assertThat(v.getSecret().getSecretName()).isEqualTo("origin-ca");
                    assertThat(v.getSecret().getItems()).singleElement().satisfies(i -> {
                        assertThat(i.getKey()).isEqualTo("ca.crt");
                        assertThat(i.getPath()).isEqualTo("ca.crt");
                    });
                });
        assertThat(pod.getContainers().getFirst().getVolumeMounts())
                .filteredOn(m -> m.getName().equals("origin-ca"))
                .singleElement()
                .satisfies(m -> {
                    assertThat(m.getMountPath()).isEqualTo("/etc/videoedge/origin-ca");
                    assertThat(m.getReadOnly()).isTrue();
                    assertThat(m.getSubPath()).isNull();
                });
        assertThat(plan.config()).contains("caFile: " + EdgeServerLayout.ORIGIN_CA_FILE);
        assertThat(EdgeServerLayout.ORIGIN_CA_FILE).isEqualTo("/etc/videoedge/origin-ca/ca.crt");
        assertThat(pod.getInitContainers())
                .singleElement()
                .satisfies(init -> assertThat(init.getVolumeMounts())
                        .extracting(VolumeMount::getName)
                        .containsExactly("cache"));

        // the server reads the bundle only at start: a new bundle is a new pod revision (the rollout restarts the
        // servers)
        assertThat(template.getMetadata().getAnnotations())
                .containsEntry(
                        Names.ORIGIN_CA_CHECKSUM, Hashes.sha256(ca.getData().get("ca.crt")));
        Secret rotated = caSecret("-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n");
        assertThat(revision(plan(ve, Optional.of(rotated)))).isNotEqualTo(revision(plan));
        assertThat(plan(ve, Optional.of(rotated)).config()).isEqualTo(plan.config());
        // its other keys do not count
        Secret relabelled =
                new SecretBuilder(ca).addToData("tls.crt", "b3RoZXI=").build();
        assertThat(revision(plan(ve, Optional.of(relabelled)))).isEqualTo(revision(plan));
    }

    @Test
    void signedUrlsMountTheWholeKeySecretAsADirectoryAndAKeyChangeIsNoNewRevision() {
        VideoEdge ve = example();
        String before = revision(plan(ve));
        ServerSpec sv = ve.getSpec().server();
        ve.setSpec(ve.getSpec()
                .withServer(sv.withSignedUrls(new ServerSpec.SignedUrls(
                        "url-keys",
                        List.of(
                                new ServerSpec.SignedUrlRule("/vod/", SignedUrlMode.REQUIRED),
                                new ServerSpec.SignedUrlRule("/vod/free/", SignedUrlMode.OFF))))));
        EdgePlan plan = plan(ve);
        PodSpec pod =
                EdgeServerDaemonSet.desired(ve, plan).getSpec().getTemplate().getSpec();

        assertThat(pod.getVolumes())
                .filteredOn(v -> v.getName().equals(EdgeServerPod.SIGNING_KEYS_VOLUME))
                .singleElement()
                .satisfies(v -> {
                    assertThat(v.getSecret().getSecretName()).isEqualTo("url-keys");
                    assertThat(v.getSecret().getItems())
                            .as("current and previous, whichever exist")
                            .isEmpty();
                });
        assertThat(pod.getContainers().getFirst().getVolumeMounts())
                .filteredOn(m -> m.getName().equals(EdgeServerPod.SIGNING_KEYS_VOLUME))
                .singleElement()
                .satisfies(m -> {
                    assertThat(m.getMountPath()).isEqualTo(EdgeServerLayout.SIGNING_KEYS_DIR);
                    assertThat(m.getReadOnly()).isTrue();
                    assertThat(m.getSubPath())
                            .as("a subPath is never updated by the kubelet")
                            .isNull();
                });
        assertThat(plan.config())
                .contains("signedUrls:\n  keyDir: " + EdgeServerLayout.SIGNING_KEYS_DIR + "\n")
                .contains("  - prefix: /vod/\n")
                .contains("  - prefix: /vod/free/\n    mode: off\n");
        assertThat(revision(plan)).as("the rules are read at start").isNotEqualTo(before);
        // the keys are read again by the server: nothing of the Secret's content is in the pod template, whose
        // annotations are the ones a VideoEdge without signed URLs gets (the config checksum changed, no key added)
        assertThat(plan.podTemplate().getMetadata().getAnnotations().keySet())
                .noneMatch(k -> k.contains("signing"))
                .containsExactlyInAnyOrderElementsOf(plan(example())
                        .podTemplate()
                        .getMetadata()
                        .getAnnotations()
                        .keySet());

        VideoEdge allOff = example();
        allOff.setSpec(allOff.getSpec()
                .withServer(sv.withSignedUrls(new ServerSpec.SignedUrls(
                        null, List.of(new ServerSpec.SignedUrlRule("/", SignedUrlMode.OFF))))));
        assertThat(plan(allOff).config()).doesNotContain("signedUrls");
        assertThat(revision(plan(allOff))).isEqualTo(before);
    }

    @Test
    void withTicketsEveryPodMountsTheVideoEdgesSharedTicketKeysAndTheServerTakesItsKeysFromThere() throws Exception {
        VideoEdge ve = example();
        EdgePlan plan = plan(ve);
        PodSpec pod =
                EdgeServerDaemonSet.desired(ve, plan).getSpec().getTemplate().getSpec();
        assertThat(pod.getVolumes())
                .filteredOn(v -> v.getName().equals(EdgeServerPod.TICKET_KEYS_VOLUME))
                .singleElement()
                .satisfies(v -> assertThat(v.getSecret().getSecretName()).isEqualTo("edge-ticket-keys"));
        assertThat(pod.getContainers().getFirst().getVolumeMounts())
                .filteredOn(m -> m.getName().equals(EdgeServerPod.TICKET_KEYS_VOLUME))
                .singleElement()
                .satisfies(m -> {
                    assertThat(m.getMountPath()).isEqualTo(EdgeServerLayout.TICKET_KEYS_DIR);
                    assertThat(m.getReadOnly()).isTrue();
                    assertThat(m.getSubPath()).isNull();
                });
        var config = io.videoedge.server.config.ConfigLoader.parse(plan.config(), "rendered");
        assertThat(config.ticketKeys.source).isEqualTo(EdgeServerLayout.TICKET_KEYS_DIR);
        assertThat(config.ticketKeys.rotation)
                .as("the operator rotates the shared keys")
                .isZero();
        assertThat(config.acceptors[1].ssl.refreshInterval).isEqualTo(10_000);

        VideoEdge noTickets = example();
        noTickets.setSpec(noTickets
                .getSpec()
                .withTls(new io.videoedge.api.TlsSpec(
                        io.videoedge.api.TlsMode.OPENSSL, "edge-tls", List.of("TLSv1.3"), false, null)));
        PodSpec without = EdgeServerDaemonSet.desired(noTickets, plan(noTickets))
                .getSpec()
                .getTemplate()
                .getSpec();
        assertThat(without.getVolumes()).extracting(Volume::getName).doesNotContain(EdgeServerPod.TICKET_KEYS_VOLUME);
        assertThat(plan(noTickets).config()).doesNotContain("ticketKeys");
    }

    @Test
    void withoutACaSecretNoOriginCaVolumeMountOrChecksum() {
        VideoEdge ve = example();
        ServerSpec sv = ve.getSpec().server();
        ve.setSpec(ve.getSpec()
                .withServer(sv.withOrigin(new ServerSpec.Origin("https://origin.example", null, "1s", "10s", 64))));
        // a Secret handed over without the spec naming one changes nothing
        PodTemplateSpec template = EdgeServerDaemonSet.desired(
                        ve, plan(ve, Optional.of(caSecret("-----BEGIN CERTIFICATE-----"))))
                .getSpec()
                .getTemplate();
        assertThat(template.getSpec().getVolumes()).extracting(Volume::getName).doesNotContain("origin-ca");
        assertThat(template.getSpec().getContainers().getFirst().getVolumeMounts())
                .extracting(VolumeMount::getMountPath)
                .doesNotContain("/etc/videoedge/origin-ca");
        assertThat(template.getMetadata().getAnnotations()).doesNotContainKey(Names.ORIGIN_CA_CHECKSUM);
        assertThat(template).isEqualTo(plan(ve).podTemplate());
        assertThat(plan(ve).config()).doesNotContain("caFile");
    }

    @Test
    void nodeTuningsOnePerOwnedNodeWithThePodWhereThereIsOneAndTheRolloutsAnnotations() {
        VideoEdge ve = example();
        EdgePlan plan = plan(ve);
        var desired = NodeTunings.desired(ve, plan);
        assertThat(desired).containsOnlyKeys("edge-1", "edge-2");
        assertThat(desired.get("edge-1").getSpec().server().podUid()).isEqualTo("u1");
        assertThat(desired.get("edge-2").getSpec().server().podUid()).isNull();
        String revision = TuningInputs.of(ve.getSpec()).revision();
        assertThat(desired.get("edge-2").getMetadata().getAnnotations())
                .containsEntry(Names.TUNING_REVISION, revision)
                .containsEntry(
                        Names.ROLLOUT_STATE,
                        plan.tunings().get("edge-2").state().toJson());
        assertThat(plan.tunings().get("edge-2").state().target()).startsWith(revision + "-");
    }

    @Test
    void aRememberedMatchHoldsWhileNeitherTheNodeTuningsSpecAndMetadataNorTheDesiredContentChanged() {
        VideoEdge ve = example();
        var desired = NodeTunings.desired(ve, plan(ve));
        var actual = NodeTunings.desired(ve, plan(ve)).get("edge-1");
        actual.getMetadata().setGeneration(3L);
        actual.getMetadata().setResourceVersion("41");
        var memo = NodeTunings.Matched.of(actual, desired.get("edge-1"));
        // rendered again, equal content: still matched
        assertThat(memo.still(actual, NodeTunings.desired(ve, plan(ve)).get("edge-1")))
                .isTrue();
        // the agent wrote its status: a new version, the same generation: still matched
        var reported = NodeTunings.desired(ve, plan(ve)).get("edge-1");
        reported.getMetadata().setGeneration(3L);
        reported.getMetadata().setResourceVersion("42");
        assertThat(memo.still(reported, desired.get("edge-1"))).isTrue();
        // someone changed its spec (a new generation), or a label or an annotation of it: compared again
        var edited = NodeTunings.desired(ve, plan(ve)).get("edge-1");
        edited.getMetadata().setGeneration(4L);
        assertThat(memo.still(edited, desired.get("edge-1"))).isFalse();
        var relabelled = NodeTunings.desired(ve, plan(ve)).get("edge-1");
        relabelled.getMetadata().setGeneration(3L);
        relabelled.getMetadata().getLabels().put("team", "video");
        assertThat(memo.still(relabelled, desired.get("edge-1"))).isFalse();
        var annotated = NodeTunings.desired(ve, plan(ve)).get("edge-1");
        annotated.getMetadata().setGeneration(3L);
        annotated.getMetadata().getAnnotations().remove(Names.ROLLOUT_STATE);
        assertThat(memo.still(annotated, desired.get("edge-1"))).isFalse();
        // another node's desired content (no pod: another server placement), or another rollout annotation
        assertThat(memo.still(actual, desired.get("edge-2"))).isFalse();
        var moved = NodeTunings.desired(ve, plan(ve)).get("edge-1");
        moved.getMetadata().getAnnotations().put(Names.ROLLOUT_STATE, "{}");
        assertThat(memo.still(actual, moved)).isFalse();
        // a new tuning
        VideoEdge changed = example();
        changed.getSpec().tuning().sysctls().put("vm.swappiness", "7");
        assertThat(memo.still(
                        actual, NodeTunings.desired(changed, plan(changed)).get("edge-1")))
                .isFalse();
        // no generation known (never read from the API server): never taken as matched
        var unsaved = NodeTunings.desired(ve, plan(ve)).get("edge-1");
        assertThat(NodeTunings.Matched.of(unsaved, desired.get("edge-1")).still(unsaved, desired.get("edge-1")))
                .isFalse();
    }

    @Test
    void theChangesCreateTheMissingUpdateTheDifferentAndDeleteTheNodeTuningsOfNodesThatLeft() {
        VideoEdge ve = example();
        var desired = NodeTunings.desired(ve, plan(ve)); // edge-1, edge-2
        var stale = NodeTunings.desired(ve, plan(ve)).get("edge-1");
        var gone = NodeTunings.desired(ve, plan(ve)).get("edge-2");
        gone.getMetadata().setName("edge-9");
        var actual = Map.of("edge-1", stale, "edge-9", gone);

        var changes = NodeTunings.changes(desired, actual, (a, d) -> false);
        assertThat(changes.applies())
                .extracting(NodeTunings.Apply::node, NodeTunings.Apply::creates)
                .containsExactly(tuple("edge-1", false), tuple("edge-2", true));
        assertThat(changes.applies().getFirst().actual()).isSameAs(stale);
        assertThat(changes.deletes()).containsExactly(gone);

        // what matches is left alone; with everything in place, nothing to do
        var matching = NodeTunings.changes(desired, actual, (a, d) -> true);
        assertThat(matching.applies()).extracting(NodeTunings.Apply::node).containsExactly("edge-2");
        assertThat(NodeTunings.changes(desired, desired, (a, d) -> true).none()).isTrue();
    }

    @Test
    void aLiveFieldChangesTheConfigButNeitherThePodRevisionNorTheTuning() {
        VideoEdge ve = example();
        EdgePlan before = plan(ve);
        VideoEdgeSpec s = ve.getSpec();
        ServerSpec.Socket k = s.server().socket();
        ve.setSpec(s.withServer(s.server()
                .withSocket(
                        new ServerSpec.Socket("128k", "1m", "256k", k.reusePort(), k.acceptorThreads(), k.backlog()))));
        EdgePlan after = plan(ve);
        assertThat(after.config()).isNotEqualTo(before.config()).contains("sendBuf: 1m");
        assertThat(after.configChecksum()).isNotEqualTo(before.configChecksum());
        assertThat(after.podTemplate()).isEqualTo(before.podTemplate());
        assertThat(after.tunings().get("edge-1").tuningRevision())
                .isEqualTo(before.tunings().get("edge-1").tuningRevision());

        // a restart-only field (the backlog is fixed when the socket listens) changes the pod revision
        ve.setSpec(s.withServer(s.server()
                .withSocket(new ServerSpec.Socket(
                        k.recvBuf(), k.sendBuf(), k.notsentLowat(), k.reusePort(), k.acceptorThreads(), 4096))));
        assertThat(revision(plan(ve))).isNotEqualTo(revision(before));
        assertThat(plan(ve).tunings().get("edge-1").tuningRevision())
                .isEqualTo(before.tunings().get("edge-1").tuningRevision());
    }

    @Test
    void whereServersRunIsNoNewPodRevision() {
        VideoEdge ve = example();
        EdgePlan before = plan(ve);
        VideoEdgeSpec s = ve.getSpec();
        ve.setSpec(new VideoEdgeSpec(
                Map.of("videoedge.io/role", "edge", "topology.kubernetes.io/zone", "a"),
                List.of(new io.videoedge.api.Toleration("edge", "Exists", null, "NoSchedule", null)),
                s.nic(),
                s.server(),
                s.tls(),
                s.tuning(),
                s.rollout()));
        EdgePlan after = plan(ve);
        assertThat(after.podTemplate().getSpec().getNodeSelector()).containsEntry("topology.kubernetes.io/zone", "a");
        assertThat(after.podTemplate().getSpec().getTolerations()).hasSize(1);
        assertThat(revision(after)).as("no running server restarts").isEqualTo(revision(before));
    }

    @Test
    void theDefencesAreLiveFromTheirDefaultsToo() {
        VideoEdge ve = example();
        VideoEdgeSpec s = ve.getSpec();
        ve.setSpec(s.withServer(s.server().withLimits(null)));
        EdgePlan defaults = plan(ve);
        ve.setSpec(s.withServer(s.server().withLimits(new ServerSpec.Limits("5s", "2s", 50, "1m", "5s", 8, 200, 400))));
        EdgePlan set = plan(ve);
        assertThat(set.config()).isNotEqualTo(defaults.config()).contains("maxRequestRate: 200");
        assertThat(set.podTemplate()).as("no restart").isEqualTo(defaults.podTemplate());
        ve.setSpec(
                s.withServer(s.server().withLimits(new ServerSpec.Limits("10s", "2s", 50, "1m", "5s", 8, 100, 400))));
        assertThat(plan(ve).podTemplate()).isEqualTo(defaults.podTemplate());
    }

    static String revision(EdgePlan plan) {
        return plan.podTemplate().getMetadata().getAnnotations().get(Names.POD_REVISION);
    }

    @Test
    void podMonitorScrapesTheAdminPortOfThisVideoEdgesPods() {
        VideoEdge ve = example();
        PodMonitor pm = EdgePodMonitor.desired(
                ve, Map.of("release", "kube-prometheus", VideoEdgeApi.LABEL_OWNER_NAME, "not-this-one"));
        assertThat(pm.getMetadata().getName()).isEqualTo("edge-edge-server");
        // the operator's extra labels (what a Prometheus selects PodMonitors by) beside its own, which win
        assertThat(pm.getMetadata().getLabels())
                .containsEntry("release", "kube-prometheus")
                .containsAllEntriesOf(Names.ownerLabels(ve, Names.COMPONENT_EDGE_SERVER));
        assertThat(pm.getSpec().selector().getMatchLabels()).isEqualTo(Names.edgeServerSelector(ve));
        assertThat(pm.getSpec().podMetricsEndpoints())
                .containsExactly(new PodMonitor.Endpoint("admin", "/metrics", "15s"));
    }
}
