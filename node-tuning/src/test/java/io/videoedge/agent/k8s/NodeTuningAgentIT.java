package io.videoedge.agent.k8s;

import static io.videoedge.agent.testing.Specs.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.videoedge.agent.apply.ApplyEngine;
import io.videoedge.agent.metrics.AgentMetrics;
import io.videoedge.agent.testing.FakeCommands;
import io.videoedge.agent.testing.FakeNode;
import io.videoedge.agent.testing.Specs;
import io.videoedge.api.Conditions;
import io.videoedge.api.IrqAffinity;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.SettingState;
import io.videoedge.api.VideoEdgeApi;
import io.videoedge.testing.ApiOutage;
import io.videoedge.testing.RealApiServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent against a real kube-apiserver, running as a ServiceAccount bound to exactly the
 * rules in charts/videoedge/files/rbac/node-agent-rules.yaml (so the file is proven sufficient),
 * over a fake /proc and /sys tree (never the host's).
 */
class NodeTuningAgentIT {
    private static final String SA = "node-agent";
    private static RealApiServer api;
    private static KubernetesClient admin;
    /** The agent's client (built as in production), acting as the ServiceAccount. */
    private static KubernetesClient asAgent;
    /** Its configuration, for a client that reaches the API server through a relay. */
    private static Config agentConfig;

    @TempDir
    Path tmp;

    private final List<NodeTuningAgent> agents = new ArrayList<>();

    @BeforeAll
    static void apiServerWithTheAgentsRole() throws IOException {
        api = RealApiServer.shared();
        admin = api.newClient();
        String ns = api.createNamespace("agent");
        admin.serviceAccounts()
                .inNamespace(ns)
                .resource(new ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName(SA)
                        .endMetadata()
                        .build())
                .create();
        admin.rbac()
                .clusterRoles()
                .resource(new ClusterRoleBuilder()
                        .withNewMetadata()
                        .withName("videoedge-node-agent-it")
                        .endMetadata()
                        .withRules(rulesFile())
                        .build())
                .createOr(r -> r.update());
        admin.rbac()
                .clusterRoleBindings()
                .resource(new ClusterRoleBindingBuilder()
                        .withNewMetadata()
                        .withName("videoedge-node-agent-it")
                        .endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "videoedge-node-agent-it")
                        .addNewSubject()
                        .withKind("ServiceAccount")
                        .withName(SA)
                        .withNamespace(ns)
                        .endSubject()
                        .build())
                .createOr(r -> r.update());
        Config config = Config.fromKubeconfig(api.kubeconfigYaml());
        config.setImpersonateUsername("system:serviceaccount:" + ns + ":" + SA);
        config.setImpersonateGroups("system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated");
        agentConfig = config;
        asAgent = AgentClient.create(config);
    }

    /** The chart's rules file, as the chart will include it. */
    static List<PolicyRule> rulesFile() throws IOException {
        Path file = Path.of(System.getProperty("maven.multiModuleProjectDirectory", ".."))
                .resolve("charts/videoedge/files/rbac/node-agent-rules.yaml");
        if (!Files.exists(file)) {
            file = Path.of("../charts/videoedge/files/rbac/node-agent-rules.yaml");
        }
        return Arrays.asList(new ObjectMapper(new YAMLFactory()).readValue(file.toFile(), PolicyRule[].class));
    }

    @AfterAll
    static void close() {
        asAgent.close();
        admin.close();
    }

    @AfterEach
    void stopAgents() {
        agents.forEach(
                NodeTuningAgent::close); // that this changes nothing on the node: stoppingChangesNothingOnTheNode
    }

    /** One node: its fake tree, fake ethtool and an agent watching it. */
    private record Node(String name, FakeNode fs, FakeCommands cmds, AgentMetrics metrics, NodeTuningAgent agent) {}

    private Node startAgent(String name, Duration driftInterval) throws IOException {
        return startAgent(name, asAgent, driftInterval);
    }

    /** An agent on a new node (its fake tree: 8 CPUs, one 4-queue mlx5 NIC), with the given client. */
    private Node startAgent(String name, KubernetesClient client, Duration driftInterval) throws IOException {
        FakeNode fs = new FakeNode(Files.createDirectories(tmp.resolve(name)))
                .cpus(8)
                .defaultRoute("eth0")
                .nic("eth0", "mlx5_core", 4, 40, 0);
        FakeCommands cmds = new FakeCommands(fs).combined("eth0", 8, 4).coalescing("eth0", "on", 8, 16);
        return startAgent(name, fs, cmds, client, driftInterval);
    }

    /** Another agent on the same node (a restarted pod), with its own client. */
    private Node startAgent(
            String name, FakeNode fs, FakeCommands cmds, KubernetesClient client, Duration driftInterval) {
        AgentMetrics metrics = new AgentMetrics();
        NodeTuningAgent agent = new NodeTuningAgent(
                client,
                name,
                ApplyEngine.onHost(fs.root(), cmds, journal(name)),
                metrics,
                new EventRecorder(client, "default", name, Clock.systemUTC()),
                driftInterval,
                Clock.systemUTC());
        agents.add(agent);
        agent.start();
        return new Node(name, fs, cmds, metrics, agent);
    }

    private Path journal(String node) {
        return tmp.resolve(node + "-journal.json");
    }

    private static boolean event(String node, String reason) {
        return admin.v1().events().inNamespace("default").list().getItems().stream()
                .anyMatch(e -> e.getInvolvedObject().getName().equals(node)
                        && e.getReason().equals(reason));
    }

    private static String nodeName() {
        return "node-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static NodeTuning create(String name, Specs spec) {
        NodeTuning nt = new NodeTuning();
        nt.getMetadata().setName(name);
        nt.setSpec(spec.build());
        return admin.resource(nt).create();
    }

    private static NodeTuning get(String name) {
        return admin.resources(NodeTuning.class).withName(name).get();
    }

    private static Optional<Condition> condition(NodeTuning nt, String type) {
        if (nt == null || nt.getStatus() == null || nt.getStatus().conditions() == null) {
            return Optional.empty();
        }
        return nt.getStatus().conditions().stream()
                .filter(c -> c.getType().equals(type))
                .findFirst();
    }

    /** What the operator waits for: status for this generation and Applied=True. */
    private static boolean tuned(NodeTuning nt) {
        return nt.getStatus() != null
                && nt.getMetadata().getGeneration().equals(nt.getStatus().observedGeneration())
                && condition(nt, Conditions.APPLIED)
                        .map(c -> c.getStatus().equals("True"))
                        .orElse(false);
    }

    private static NodeTuningStatus.Setting setting(NodeTuning nt, String name) {
        return nt.getStatus().settings().stream()
                .filter(s -> s.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError(name + " not in status"));
    }

    private static Specs seed() {
        return spec().queues(4)
                .rfs(32768)
                .sysctls(Map.of("net.ipv4.tcp_notsent_lowat", "262144", "vm.swappiness", "0"));
    }

    private static String scrape(AgentMetrics m) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        m.write(out);
        return out.toString();
    }

    @Test
    void tunesItsOwnNodeTuningOnlyAndReportsStatusCapabilitiesAndEvents() throws IOException {
        Node n = startAgent(nodeName(), Duration.ofHours(1));
        String other = nodeName();
        create(other, seed());
        create(n.name(), seed());

        await().atMost(Duration.ofSeconds(60)).until(() -> tuned(get(n.name())));
        NodeTuning nt = get(n.name());
        assertThat(nt.getMetadata().getFinalizers()).containsExactly(VideoEdgeApi.AGENT_FINALIZER);
        assertThat(n.fs().value("proc/sys/vm/swappiness")).isEqualTo("0");
        assertThat(setting(nt, "sysctl/vm.swappiness").original()).isEqualTo("60");
        assertThat(setting(nt, "sysctl/vm.swappiness").state()).isEqualTo(SettingState.APPLIED);
        assertThat(setting(nt, "irq/eth0/42").actual()).isEqualTo("1");
        assertThat(nt.getStatus().capabilities().nics()).singleElement().satisfies(nic -> {
            assertThat(nic.driver()).isEqualTo("mlx5_core");
            assertThat(nic.irqs()).containsExactly(41, 42, 43, 44);
        });
        assertThat(nt.getStatus().capabilities().ktls()).isEqualTo("unavailable");
        assertThat(nt.getStatus().fingerprint()).hasSize(16);
        // bbr is not in the fake kernel: reported, Applied still True, Degraded says what and why
        assertThat(condition(nt, Conditions.DEGRADED).orElseThrow().getReason())
                .isEqualTo(Conditions.UNSUPPORTED_SETTINGS);
        assertThat(condition(nt, Conditions.DEGRADED).orElseThrow().getMessage())
                .contains("congestion control bbr is not available");

        NodeTuning untouched = get(other);
        assertThat(untouched.getMetadata().getFinalizers()).isNullOrEmpty();
        assertThat(untouched.getStatus()).isNull();

        await().atMost(Duration.ofSeconds(30))
                .until(() -> admin.v1().events().inNamespace("default").list().getItems().stream()
                        .anyMatch(e -> e.getInvolvedObject().getName().equals(n.name())
                                && e.getReason().equals("Applied")));
        assertThat(scrape(n.metrics()))
                .contains("videoedge_agent_settings{state=\"Applied\"}")
                .contains("videoedge_agent_last_apply_timestamp_seconds")
                // what the chart's VideoEdgeNodeTuningDegraded alert reads: bbr is unsupported here
                .contains(
                        "videoedge_agent_condition{type=\"Applied\"} 1.0",
                        "videoedge_agent_condition{type=\"Degraded\"} 1.0");
        admin.resources(NodeTuning.class).withName(other).delete();
    }

    @Test
    void writesStatusOnlyWhenItChanged() throws IOException {
        Node n = startAgent(nodeName(), Duration.ofHours(1));
        create(n.name(), seed());
        await().atMost(Duration.ofSeconds(60)).until(() -> tuned(get(n.name())));
        String version = get(n.name()).getMetadata().getResourceVersion();
        String passes = "videoedge_agent_apply_passes_total ";
        double before = counter(scrape(n.metrics()), passes);
        for (int i = 0; i < 3; i++) {
            n.agent().trigger();
            double want = before + i + 1;
            await().atMost(Duration.ofSeconds(30)).until(() -> counter(scrape(n.metrics()), passes) >= want);
        }
        assertThat(get(n.name()).getMetadata().getResourceVersion()).isEqualTo(version);
    }

    private static double counter(String text, String prefix) {
        return text.lines()
                .filter(l -> l.startsWith(prefix))
                .mapToDouble(l -> Double.parseDouble(l.substring(prefix.length())))
                .findFirst()
                .orElse(0);
    }

    @Test
    void planModeReportsTheDiffAndChangesNothing() throws IOException {
        Node n = startAgent(nodeName(), Duration.ofHours(1));
        create(n.name(), seed().plan());
        await().atMost(Duration.ofSeconds(60))
                .until(() -> condition(get(n.name()), Conditions.APPLIED)
                        .map(c -> c.getReason().equals(Conditions.PLAN_ONLY))
                        .orElse(false));
        NodeTuning nt = get(n.name());
        assertThat(condition(nt, Conditions.APPLIED).orElseThrow().getStatus()).isEqualTo("False");
        assertThat(nt.getStatus().observedGeneration())
                .isEqualTo(nt.getMetadata().getGeneration());
        NodeTuningStatus.Setting swappiness = setting(nt, "sysctl/vm.swappiness");
        assertThat(swappiness.state()).isEqualTo(SettingState.PLANNED);
        assertThat(swappiness.actual()).isEqualTo("60");
        assertThat(swappiness.desired()).isEqualTo("0");
        assertThat(n.fs().value("proc/sys/vm/swappiness")).isEqualTo("60");
        assertThat(n.cmds().log()).noneMatch(c -> c.startsWith("ethtool -C") || c.startsWith("ethtool -L"));
    }

    @Test
    void podSpecificSettingsWaitForThePodThenApplyForTheNewGeneration() throws IOException {
        Node n = startAgent(nodeName(), Duration.ofHours(1));
        n.fs().file("proc/sys/net/ipv4/tcp_available_congestion_control", "reno cubic bbr");
        create(n.name(), seed().irq(IrqAffinity.HOUSEKEEPING).relax(1));
        await().atMost(Duration.ofSeconds(60)).until(() -> tuned(get(n.name())));
        NodeTuning first = get(n.name());
        assertThat(setting(first, "irq/eth0").state()).isEqualTo(SettingState.PENDING);
        assertThat(condition(first, Conditions.DEGRADED).orElseThrow().getReason())
                .isEqualTo("WaitingForServerPod");
        assertThat(n.fs().value("proc/sys/vm/swappiness")).isEqualTo("0"); // the node is tuned before the server runs

        // the operator fills in the scheduled pod (a new generation); kubelet has made its cgroup
        n.fs().pod("uid-42", "0-7", "0-7", "6-7");
        editAsAdmin(n.name(), nt -> {
            nt.setSpec(
                    seed().irq(IrqAffinity.HOUSEKEEPING).relax(1).pod("uid-42").build());
            return nt;
        });
        await().atMost(Duration.ofSeconds(60))
                .until(() -> tuned(get(n.name())) && get(n.name()).getMetadata().getGeneration() == 2);
        NodeTuning second = get(n.name());
        assertThat(setting(second, "cpuset/sched_relax_domain_level").state()).isEqualTo(SettingState.APPLIED);
        assertThat(n.fs().value("proc/irq/41/smp_affinity_list")).isEqualTo("0"); // housekeeping: CPUs 0-5
        assertThat(n.fs().value("sys/fs/cgroup/cpuset/kubepods/poduid-42/cpuset.sched_relax_domain_level"))
                .isEqualTo("1");
        assertThat(n.fs().value("proc/sys/net/ipv4/tcp_congestion_control")).isEqualTo("bbr");
        assertThat(condition(second, Conditions.DEGRADED).orElseThrow().getStatus())
                .isEqualTo("False");
    }

    @Test
    void driftIsDetectedPeriodicallyReportedAndReapplied() throws IOException {
        Node n = startAgent(nodeName(), Duration.ofSeconds(1));
        create(n.name(), seed());
        await().atMost(Duration.ofSeconds(60)).until(() -> tuned(get(n.name())));
        n.fs().file("proc/sys/vm/swappiness", "60");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> get(n.name()).getStatus().lastDrift() != null);
        NodeTuning nt = get(n.name());
        assertThat(nt.getStatus().lastDrift().settings()).containsExactly("sysctl/vm.swappiness: found 60, want 0");
        assertThat(n.fs().value("proc/sys/vm/swappiness")).isEqualTo("0");
        assertThat(scrape(n.metrics())).contains("videoedge_agent_drift_detections_total 1.0");
    }

    /**
     * Edits a NodeTuning as an administrator or the operator would: again on a conflict with the agent's own writes
     * (its status, on every pass), which the edit's optimistic lock refuses with 409.
     */
    private void editAsAdmin(String name, java.util.function.UnaryOperator<NodeTuning> change) {
        for (int attempt = 1; ; attempt++) {
            try {
                admin.resources(NodeTuning.class).withName(name).edit(change);
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt == 10) throw e;
            }
        }
    }

    /**
     * A pass that only releases a setting no longer asked for says so in an Event: a Warning while the original cannot
     * be written back (once, though every drift check retries it), then a Normal one when it is.
     */
    @Test
    void aReleaseIsAnEventAWarningWhileItFailsAndSaidOnce() throws IOException {
        Node n = startAgent(nodeName(), Duration.ofSeconds(1));
        create(n.name(), seed());
        await().atMost(Duration.ofSeconds(60)).until(() -> tuned(get(n.name())));
        n.fs().refuseWrites("proc/sys/vm/swappiness");
        editAsAdmin(n.name(), nt -> {
            nt.setSpec(seed().sysctls(Map.of("net.ipv4.tcp_notsent_lowat", "262144"))
                    .build());
            return nt;
        });
        String failed = "sysctl/vm.swappiness: no longer asked for, restoring 60 failed";
        await().atMost(Duration.ofSeconds(60))
                .until(() -> !noteEvents(n.name(), "Warning", failed).isEmpty());
        // the drift check runs every second: three more passes retry the release and say nothing new
        await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> true);
        assertThat(noteEvents(n.name(), "Warning", failed)).hasSize(1);
        // another release beside it is said; the failure it comes with is not said again
        editAsAdmin(n.name(), nt -> {
            nt.setSpec(seed().sysctls(Map.of()).build());
            return nt;
        });
        await().atMost(Duration.ofSeconds(60))
                .until(() -> !noteEvents(n.name(), "Normal", "sysctl/net.ipv4.tcp_notsent_lowat: no longer asked for")
                        .isEmpty());
        await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).until(() -> true);
        assertThat(noteEvents(n.name(), "Warning", failed)).hasSize(1);

        // in one rename (not a delete, then a create): a pass that found the file missing would take it for gone
        n.fs().file("proc/sys/vm/swappiness", "0");
        String restored = "sysctl/vm.swappiness: no longer asked for, original 60 restored";
        await().atMost(Duration.ofSeconds(60))
                .until(() -> !noteEvents(n.name(), "Normal", restored).isEmpty());
        assertThat(n.fs().value("proc/sys/vm/swappiness")).isEqualTo("60");
        assertThat(get(n.name()).getStatus().settings()).noneMatch(s -> s.name().equals("sysctl/vm.swappiness"));
    }

    /** The node's Released Events of this type whose message starts so. */
    private static List<Event> noteEvents(String node, String type, String messageStart) {
        return admin.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> e.getInvolvedObject().getName().equals(node)
                        && e.getReason().equals("Released")
                        && e.getType().equals(type)
                        && e.getMessage().startsWith(messageStart))
                .toList();
    }

    /**
     * Stopping the agent (pod deleted, node drained, DaemonSet rolled) leaves the node as it is: no value
     * restored, no journal entry dropped, no command run, the finalizer kept, so the originals are restored only
     * when the NodeTuning is deleted, by the agent that runs then. The drift check runs every second here: an agent
     * still at work after close() would show within the wait. A check may be under way when close() is called: its
     * reads of the NIC are allowed until close() returns, nothing after.
     */
    @Test
    void stoppingChangesNothingOnTheNode() throws IOException, InterruptedException {
        Node n = startAgent(nodeName(), Duration.ofSeconds(1));
        create(n.name(), seed());
        await().atMost(Duration.ofSeconds(60)).until(() -> tuned(get(n.name())));
        assertThat(n.fs().value("proc/sys/vm/swappiness")).isEqualTo("0"); // tuned: a restore would show
        Path journal = tmp.resolve(n.name() + "-journal.json");
        Map<String, String> tree = files(n.fs().root());
        String journalBefore = Files.readString(journal);
        assertThat(journalBefore).contains("sysctl/vm.swappiness");
        List<String> commands = List.copyOf(n.cmds().log());
        NodeTuning before = get(n.name());

        n.agent().close();
        List<String> atStop = List.copyOf(n.cmds().log());
        Thread.sleep(3000); // three drift intervals

        assertThat(changes(tree, files(n.fs().root())))
                .as("files of the node's /proc and /sys changed after the agent stopped")
                .isEmpty();
        assertThat(journal).content().as("the journal of originals").isEqualTo(journalBefore);
        assertThat(atStop).as("the commands run before the stop").startsWith(commands.toArray(String[]::new));
        // a drift check may have been reading the NIC's settings when the agent was stopped: reads, no change
        assertThat(atStop.subList(commands.size(), atStop.size()))
                .as("ethtool and modprobe commands while the agent stopped")
                .allMatch(c -> c.matches("ethtool -[lck] \\S+"), "a read of channels, coalescing or features");
        assertThat(n.cmds().log())
                .as("ethtool and modprobe commands after the agent stopped")
                .isEqualTo(atStop);
        NodeTuning after = get(n.name());
        assertThat(after.getMetadata().getFinalizers()).containsExactly(VideoEdgeApi.AGENT_FINALIZER);
        assertThat(after.getStatus()).isEqualTo(before.getStatus());
    }

    /** "path: before -> after" for each file that differs (null: absent). */
    private static List<String> changes(Map<String, String> before, Map<String, String> after) {
        SortedSet<String> paths = new TreeSet<>(before.keySet());
        paths.addAll(after.keySet());
        return paths.stream()
                .filter(p -> !Objects.equals(before.get(p), after.get(p)))
                .map(p -> p + ": " + strip(before.get(p)) + " -> " + strip(after.get(p)))
                .toList();
    }

    private static String strip(String s) {
        return s == null ? null : s.strip();
    }

    /** Path (relative to the fake root) to content of every regular file; links are not followed. */
    private static Map<String, String> files(Path root) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (var paths = Files.walk(root)) {
            for (Path p : paths.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
                    .toList()) {
                out.put(root.relativize(p).toString(), Files.readString(p));
            }
        }
        return out;
    }

    @Test
    void deletionRestoresEveryOriginalThenReleasesTheFinalizer() throws IOException {
        Node n = startAgent(nodeName(), Duration.ofHours(1));
        String swappiness = n.fs().value("proc/sys/vm/swappiness");
        String irq = n.fs().value("proc/irq/41/smp_affinity_list");
        create(n.name(), seed());
        await().atMost(Duration.ofSeconds(60)).until(() -> tuned(get(n.name())));
        assertThat(n.fs().value("proc/sys/vm/swappiness")).isNotEqualTo(swappiness);

        admin.resources(NodeTuning.class).withName(n.name()).delete();

        await().atMost(Duration.ofSeconds(60)).until(() -> get(n.name()) == null);
        assertThat(n.fs().value("proc/sys/vm/swappiness")).isEqualTo(swappiness);
        assertThat(n.fs().value("proc/irq/41/smp_affinity_list")).isEqualTo(irq);
        assertThat(n.cmds().coalesce("eth0", "adaptive-rx")).isEqualTo("on");
        assertThat(tmp.resolve(n.name() + "-journal.json")).content().doesNotContain("sysctl/");
    }

    /**
     * The journal file lost while the agent was down (a wiped hostPath, a reinstalled node image): the
     * next agent finds the node tuned and no journal. Without more, every tuned value would look
     * "unchanged" and deletion would restore nothing. It takes the originals back from the last status
     * report, so deletion still restores them.
     */
    @Test
    void aJournalLostWhileTheAgentWasDownIsRebuiltFromTheLastReportAndDeletionStillRestores() throws IOException {
        Node first = startAgent(nodeName(), Duration.ofHours(1));
        String swappiness = first.fs().value("proc/sys/vm/swappiness");
        String lowat = first.fs().value("proc/sys/net/ipv4/tcp_notsent_lowat");
        create(first.name(), seed());
        await().atMost(Duration.ofSeconds(60)).until(() -> tuned(get(first.name())));
        first.agent().close();
        Files.delete(journal(first.name()));

        Node second = startAgent(first.name(), first.fs(), first.cmds(), asAgent, Duration.ofHours(1));
        await().atMost(Duration.ofSeconds(30)).until(() -> event(second.name(), Conditions.JOURNAL_RECOVERED));
        assertThat(journal(second.name()))
                .content()
                .contains("sysctl/vm.swappiness", "sysctl/net.ipv4.tcp_notsent_lowat");

        admin.resources(NodeTuning.class).withName(second.name()).delete();
        await().atMost(Duration.ofSeconds(60)).until(() -> get(second.name()) == null);
        assertThat(second.fs().value("proc/sys/vm/swappiness")).isEqualTo(swappiness);
        assertThat(second.fs().value("proc/sys/net/ipv4/tcp_notsent_lowat")).isEqualTo(lowat);
    }

    /**
     * A reboot while the agent was down: the kernel is back at its boot values (this boot's sysctl.d gives
     * swappiness 30, where the earlier boot had 60) and may have renumbered the NIC's interrupts. The journal's
     * originals are the earlier boot's: restoring them would write 60, or an IRQ number that is now another
     * device's. They are dropped, and so are the originals of a status reported under the earlier boot when the
     * journal was lost as well; deletion restores this boot's values.
     */
    @Test
    void aRebootDropsTheEarlierBootsOriginalsFromTheJournalAndFromTheLastReport() throws IOException {
        for (boolean journalLost : List.of(false, true)) {
            Node first = startAgent(nodeName(), Duration.ofHours(1));
            create(first.name(), seed());
            await().atMost(Duration.ofSeconds(60)).until(() -> tuned(get(first.name())));
            assertThat(get(first.name()).getStatus().capabilities().bootId()).isEqualTo("0b6b1f4e-boot-1");
            first.agent().close();
            if (journalLost) {
                Files.delete(journal(first.name()));
            }
            first.fs().file("proc/sys/kernel/random/boot_id", "5c0d2a77-boot-2");
            first.fs().file("proc/sys/vm/swappiness", "30");

            Node second = startAgent(first.name(), first.fs(), first.cmds(), asAgent, Duration.ofHours(1));
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> "5c0d2a77-boot-2".equals(bootOf(get(second.name()))) && tuned(get(second.name())));
            admin.resources(NodeTuning.class).withName(second.name()).delete();
            await().atMost(Duration.ofSeconds(60)).until(() -> get(second.name()) == null);
            assertThat(second.fs().value("proc/sys/vm/swappiness"))
                    .as("journal lost: " + journalLost)
                    .isEqualTo("30");
            assertThat(event(second.name(), Conditions.JOURNAL_RECOVERED))
                    .as("an Event says the reboot dropped them; none says a report's were taken, journal lost: "
                            + journalLost)
                    .isEqualTo(!journalLost);
            second.agent().close();
        }
    }

    /**
     * Deleted while the agent was down and the node rebooted: the originals of the earlier boot are not written
     * over this boot's values, and an Event says why nothing was restored before the finalizer goes.
     */
    @Test
    void aDeletionAfterARebootRestoresNothingOfTheEarlierBootAndSaysWhy() throws IOException {
        Node first = startAgent(nodeName(), Duration.ofHours(1));
        create(first.name(), seed());
        await().atMost(Duration.ofSeconds(60)).until(() -> tuned(get(first.name())));
        first.agent().close();
        first.fs().file("proc/sys/kernel/random/boot_id", "5c0d2a77-boot-2");
        first.fs().file("proc/sys/vm/swappiness", "30");
        admin.resources(NodeTuning.class).withName(first.name()).delete();

        Node second = startAgent(first.name(), first.fs(), first.cmds(), asAgent, Duration.ofHours(1));
        await().atMost(Duration.ofSeconds(60)).until(() -> get(second.name()) == null);
        assertThat(second.fs().value("proc/sys/vm/swappiness")).isEqualTo("30");
        assertThat(admin.v1().events().inNamespace("default").list().getItems().stream()
                        .filter(e -> e.getInvolvedObject().getName().equals(second.name())
                                && e.getReason().equals(Conditions.JOURNAL_RECOVERED)))
                .singleElement()
                .satisfies(e -> assertThat(e.getMessage())
                        .contains("the node rebooted", "nothing of the earlier boot is restored"));
    }

    private static String bootOf(NodeTuning nt) {
        return nt == null || nt.getStatus() == null || nt.getStatus().capabilities() == null
                ? null
                : nt.getStatus().capabilities().bootId();
    }

    @Test
    void aJournalDeletedWhileTheAgentRunsIsWrittenAgainFromMemory() throws IOException {
        Node n = startAgent(nodeName(), Duration.ofSeconds(1));
        create(n.name(), seed());
        await().atMost(Duration.ofSeconds(60)).until(() -> tuned(get(n.name())));
        String before = Files.readString(journal(n.name()));
        Files.delete(journal(n.name()));

        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(journal(n.name())));
        assertThat(journal(n.name())).content().isEqualTo(before);
        await().atMost(Duration.ofSeconds(30)).until(() -> event(n.name(), Conditions.JOURNAL_RECOVERED));
    }

    /**
     * A journal that cannot be read (a torn write by another tool, a disk error): originals are never
     * guessed. The agent changes nothing, says why in the status and an Event, and carries on once the
     * file is moved aside.
     */
    @Test
    void anUnreadableJournalStopsEveryChangeAndSaysWhyUntilItIsMovedAside() throws IOException {
        String name = nodeName();
        Files.writeString(journal(name), "{\"version\":1,\"entries\":[{\"name\":");
        Node n = startAgent(name, Duration.ofHours(1));
        Map<String, String> tree = files(n.fs().root());
        create(name, seed());

        await().atMost(Duration.ofSeconds(30))
                .until(() -> condition(get(name), Conditions.DEGRADED)
                        .map(c -> c.getReason().equals(Conditions.JOURNAL_UNREADABLE))
                        .orElse(false));
        NodeTuning nt = get(name);
        assertThat(condition(nt, Conditions.APPLIED).orElseThrow().getStatus()).isEqualTo("False");
        assertThat(condition(nt, Conditions.DEGRADED).orElseThrow().getMessage())
                .contains(journal(name).toString(), "move it aside");
        assertThat(changes(tree, files(n.fs().root()))).as("the node's files").isEmpty();
        await().atMost(Duration.ofSeconds(30)).until(() -> event(name, Conditions.JOURNAL_UNREADABLE));

        Files.move(journal(name), tmp.resolve(name + "-journal.json.broken"));
        await().atMost(Duration.ofSeconds(60)).until(() -> tuned(get(name)));
        assertThat(n.fs().value("proc/sys/vm/swappiness")).isEqualTo("0");
    }

    /**
     * A tuned node whose journal is unreadable when the agent starts again: the node keeps its tuning and
     * Applied stays True (every setting is in place) while Degraded says why. A deletion then keeps the
     * finalizer and changes nothing, since the originals cannot be read; once the journal is put right,
     * the deletion restores them and releases the finalizer.
     */
    @Test
    void aTunedNodeWithAnUnreadableJournalStaysAppliedAndItsDeletionWaitsForTheOriginals() throws IOException {
        Node first = startAgent(nodeName(), Duration.ofHours(1));
        String name = first.name();
        String swappiness = first.fs().value("proc/sys/vm/swappiness");
        create(name, seed());
        await().atMost(Duration.ofSeconds(60)).until(() -> tuned(get(name)));
        first.agent().close();
        Path good = Files.move(journal(name), tmp.resolve(name + "-journal.json.good"));
        Files.writeString(journal(name), "{\"version\":1,\"entries\":[{\"name\":");

        Node second = startAgent(name, first.fs(), first.cmds(), asAgent, Duration.ofSeconds(1));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> condition(get(name), Conditions.DEGRADED)
                        .map(c -> c.getReason().equals(Conditions.JOURNAL_UNREADABLE))
                        .orElse(false));
        assertThat(condition(get(name), Conditions.APPLIED).orElseThrow().getStatus())
                .as("Applied, every setting being in place")
                .isEqualTo("True");
        Map<String, String> tree = files(second.fs().root());

        admin.resources(NodeTuning.class).withName(name).delete();
        await().during(Duration.ofSeconds(5))
                .atMost(Duration.ofSeconds(10))
                .until(() -> get(name) != null && hasAgentFinalizer(get(name)));
        assertThat(get(name).getMetadata().getDeletionTimestamp()).isNotNull();
        assertThat(changes(tree, files(second.fs().root())))
                .as("the node's files while the originals cannot be read")
                .isEmpty();
        // an agent started on the node while it is so (its metrics fresh) says Degraded in its metrics too
        second.agent().close();
        Node third = startAgent(name, first.fs(), first.cmds(), asAgent, Duration.ofSeconds(1));
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(scrape(third.metrics()))
                        .as("what the chart's VideoEdgeNodeTuningDegraded alert reads")
                        .contains("videoedge_agent_condition{type=\"Degraded\"} 1.0"));

        Files.move(good, journal(name), StandardCopyOption.REPLACE_EXISTING);
        await().atMost(Duration.ofSeconds(60)).until(() -> get(name) == null);
        assertThat(second.fs().value("proc/sys/vm/swappiness")).isEqualTo(swappiness);
    }

    private static boolean hasAgentFinalizer(NodeTuning nt) {
        return nt.getMetadata().getFinalizers() != null
                && nt.getMetadata().getFinalizers().contains(VideoEdgeApi.AGENT_FINALIZER);
    }

    /**
     * The API server unreachable for a minute (faults.outageSeconds): the agent keeps the node as it is,
     * and the change made meanwhile is applied once it is back, without a restart.
     */
    @Test
    void anApiServerOutageOfAMinuteChangesNothingAndTheChangeMadeMeanwhileIsAppliedAfter() throws Exception {
        Duration outageFor = Duration.ofSeconds(Long.getLong("faults.outageSeconds", 60));
        try (ApiOutage outage = new ApiOutage(agentConfig.getMasterUrl())) {
            Config relayed = Config.fromKubeconfig(api.kubeconfigYaml());
            relayed.setMasterUrl(outage.server());
            relayed.setImpersonateUsername(agentConfig.getImpersonateUsername());
            relayed.setImpersonateGroups(agentConfig.getImpersonateGroups());
            try (KubernetesClient client = AgentClient.create(relayed)) {
                String name = nodeName();
                Node n = startAgent(name, client, Duration.ofSeconds(5));
                FakeNode fs = n.fs();
                create(name, seed());
                await().atMost(Duration.ofSeconds(60)).until(() -> tuned(get(name)));
                Map<String, String> tree = files(fs.root());

                outage.cut();
                admin.resources(NodeTuning.class).withName(name).edit(nt -> {
                    nt.setSpec(seed().sysctls(Map.of("net.ipv4.tcp_notsent_lowat", "131072", "vm.swappiness", "0"))
                            .build());
                    return nt;
                });
                Thread.sleep(outageFor.toMillis());
                assertThat(changes(tree, files(fs.root())))
                        .as("the node's files during the outage")
                        .isEmpty();
                assertThat(outage.refused())
                        .as("the agent tried to reach the API server")
                        .isPositive();
                outage.restore();

                await().atMost(Duration.ofMinutes(2)).until(() -> tuned(get(name)));
                assertThat(fs.value("proc/sys/net/ipv4/tcp_notsent_lowat")).isEqualTo("131072");
            }
        }
    }

    @Test
    void agentsRoleGrantsNothingBeyondItsNodeTuningsAndEvents() {
        assertThatThrownBy(() -> asAgent.pods().inAnyNamespace().list())
                .isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("403");
        assertThatThrownBy(() -> asAgent.secrets().inNamespace("default").list())
                .isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("403");
        assertThatThrownBy(() -> asAgent.resources(NodeTuning.class)
                        .resource(nodeTuning(nodeName()))
                        .create())
                .isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("403");
        assertThatThrownBy(() ->
                        asAgent.resources(NodeTuning.class).withName("any").delete())
                .isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("403");
    }

    private static NodeTuning nodeTuning(String name) {
        NodeTuning nt = new NodeTuning();
        nt.getMetadata().setName(name);
        nt.setSpec(seed().build());
        return nt;
    }
}
