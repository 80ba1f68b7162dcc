package io.videoedge.operator.it;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.api.NodeTuning;
import io.videoedge.operator.render.Names;
import io.videoedge.testing.ApiOutage;
import io.videoedge.testing.RealApiServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * The operator under faults, as it runs in a cluster: its own process (the jar, the chart's JVM
 * options and memory, leader election on) authenticated as its ServiceAccount, reaching a real API
 * server through a relay the test can cut ({@link ApiOutage}); simulated nodes, kubelets and agents
 * ({@link SimNodes}, {@link SimKubelets}, {@link SimAgents}) talk to the API server directly. The test
 * plays the kubelet for the operator: when the process exits it is started again.
 *
 * <ol>
 *   <li>The API server unreachable for a minute (faults.outageSeconds) in the middle of a rollout: the
 *       spec changes, and once the operator has begun the first node's turn (its NodeTuning re-tuned, its
 *       server drained) the relay is cut and the spec changes again behind the operator's back. The
 *       operator either rides the outage out or exits on its lost Lease, and once the API server is back
 *       (and the operator restarted when it exited) the latest change rolls out with never more than
 *       maxUnavailable nodes out of service, the node whose turn the outage interrupted included. That no
 *       NodeTuning moved during the outage is checked too, but it checks the test's own cut (the operator
 *       cannot reach the API server then), not the operator: it makes sure what follows is a recovery.
 *   <li>A NodeTuning edited by hand: the operator puts back what the VideoEdge asks.
 * </ol>
 */
class OperatorFaultsIT {
    static final int N = 6;
    /** maxUnavailable 10% of 6 nodes, rounded up. */
    static final int MAX_UNAVAILABLE = 1;

    static final Duration OUTAGE = Duration.ofSeconds(Long.getLong("faults.outageSeconds", 60));

    @Test
    void anApiServerOutageOfAMinuteDuringAChangeThenAHandEditedNodeTuning() throws Exception {
        SoftAssertions softly = new SoftAssertions();
        RealApiServer api = RealApiServer.startNew();
        Path work = Files.createDirectories(Path.of("target", "operator-faults"));
        try (KubernetesClient admin = ScaleBench.bigClient(api);
                ApiOutage outage = new ApiOutage(admin.getConfiguration().getMasterUrl())) {
            OperatorHarness.installRbac(admin);
            ScaleBench.benchNamespace(admin);
            Path kubeconfig = ScaleBench.operatorKubeconfig(admin, api, outage.server());
            OperatorProcess.ChartDefaults chart = OperatorProcess.ChartDefaults.read();
            WriteCounter sims = new WriteCounter();
            SimNodes nodes = new SimNodes(admin, sims).statusEvery(Duration.ofSeconds(10));
            List<String> names = nodes.register("edge", N, Map.of(ScaleBench.FLEET_LABEL, ScaleBench.NAME), 4);
            OperatorProcess operator = null;
            try (nodes;
                    SimKubelets kubelets = new SimKubelets(
                            admin, sims, Duration.ofMillis(200), Duration.ofMillis(200), Duration.ofMillis(200), 4);
                    SimAgents agents = new SimAgents(admin, sims, Duration.ofMillis(100), 4);
                    ScaleBench.StatusWatch watch = new ScaleBench.StatusWatch(admin, N).agents(agents)) {
                operator = start(kubeconfig, chart, work.resolve("first"));
                admin.resource(ScaleBench.videoEdge()).create();
                await().atMost(Duration.ofMinutes(3))
                        .pollInterval(Duration.ofMillis(250))
                        .until(watch::settled);
                log("%d nodes settled: %s", N, watch.summary());

                // 1. the spec changes; the API server goes away in the first node's turn; the spec changes again
                Map<String, String> settledRevisions = revisions(admin);
                kubelets.resetFewest();
                long first = ScaleBench.edit(admin, "8192");
                boolean turnBegun = ScaleIT.within(
                        Duration.ofSeconds(60), () -> !revisions(admin).equals(settledRevisions));
                softly.assertThat(turnBegun)
                        .as("a node's turn began for generation %d", first)
                        .isTrue();
                outage.cut();
                Instant cutAt = Instant.now();
                Map<String, String> revisions = revisions(admin);
                int servingAtCut = kubelets.servingNow();
                long generation = ScaleBench.edit(admin, "4096");
                log(
                        "API server cut in a turn (%d of %d nodes serving, %d re-tuned); spec changed to generation %d"
                                + " behind the operator's back",
                        servingAtCut,
                        N,
                        revisions.entrySet().stream()
                                .filter(e -> !e.getValue().equals(settledRevisions.get(e.getKey())))
                                .count(),
                        generation);
                boolean exited = false;
                while (Duration.between(cutAt, Instant.now()).compareTo(OUTAGE) < 0) {
                    Thread.sleep(1_000);
                    if (!exited && !operator.alive()) {
                        exited = true;
                        log(
                                "the operator exited %d s into the outage: %s",
                                Duration.between(cutAt, Instant.now()).toSeconds(), lastLines(operator.log(), "Lease"));
                    }
                }
                softly.assertThat(revisions(admin))
                        .as("NodeTunings during the outage (the cut holds)")
                        .isEqualTo(revisions);
                softly.assertThat(kubelets.fewestServing())
                        .as("nodes serving up to the outage's end")
                        .isGreaterThanOrEqualTo(N - MAX_UNAVAILABLE);
                log(
                        "outage over after %d s: %d connections refused meanwhile, operator %s",
                        OUTAGE.toSeconds(), outage.refused(), operator.alive() ? "still running" : "exited");
                outage.restore();
                if (!operator.alive()) {
                    operator.close();
                    operator = start(kubeconfig, chart, work.resolve("restarted")); // what the kubelet does
                }
                Instant back = Instant.now();
                boolean rolled = ScaleIT.within(Duration.ofMinutes(3), () -> watch.rolledOut(generation));
                log(
                        "after the outage the change rolled out in %d s: %s; fewest serving %d of %d",
                        Duration.between(back, Instant.now()).toSeconds(),
                        watch.summary(),
                        kubelets.fewestServing(),
                        N);
                softly.assertThat(rolled)
                        .as("the change rolled out after the outage")
                        .isTrue();
                softly.assertThat(kubelets.fewestServing())
                        .as("nodes serving, outage and rollout included")
                        .isGreaterThanOrEqualTo(N - MAX_UNAVAILABLE);

                // 2. a NodeTuning edited by hand: the operator restores what the VideoEdge asks
                String node = names.getFirst();
                String asked = specOf(admin, node);
                NodeTuning handEdited = admin.resources(NodeTuning.class)
                        .withName(node)
                        .patch(
                                PatchContext.of(PatchType.JSON_MERGE),
                                "{\"spec\":{\"tuning\":{\"sysctls\":{\"net.core.somaxconn\":\"1\"}}}}");
                // what the patch stored (a read after it may already see the operator's restore)
                softly.assertThat(Serialization.asJson(handEdited.getSpec()))
                        .as("the hand edit took")
                        .isNotEqualTo(asked);
                Instant edited = Instant.now();
                boolean restored = ScaleIT.within(Duration.ofSeconds(30), () -> asked.equals(specOf(admin, node)));
                log(
                        "NodeTuning %s edited by hand: %s after %d ms",
                        node,
                        restored ? "restored" : "NOT restored",
                        Duration.between(edited, Instant.now()).toMillis());
                softly.assertThat(restored)
                        .as("the hand-edited NodeTuning restored within 30 s")
                        .isTrue();
                softly.assertThat(operator.alive())
                        .as("the operator runs at the end")
                        .isTrue();
            } finally {
                if (operator != null) {
                    operator.close();
                }
            }
        } finally {
            api.stop();
        }
        softly.assertAll();
    }

    private static OperatorProcess start(Path kubeconfig, OperatorProcess.ChartDefaults chart, Path work)
            throws Exception {
        OperatorProcess p = new OperatorProcess(
                kubeconfig, OperatorHarness.NAMESPACE, chart, chart.maxRam(), Files.createDirectories(work), List.of());
        p.awaitReady(Duration.ofMinutes(2));
        return p;
    }

    /** Each NodeTuning's rollout revision. */
    private static Map<String, String> revisions(KubernetesClient admin) {
        return admin.resources(NodeTuning.class).list().getItems().stream()
                .collect(Collectors.toMap(
                        nt -> nt.getMetadata().getName(),
                        nt -> nt.getMetadata().getAnnotations().getOrDefault(Names.TUNING_REVISION, "-"),
                        (a, b) -> a,
                        TreeMap::new));
    }

    private static String specOf(KubernetesClient admin, String node) {
        return Serialization.asJson(
                admin.resources(NodeTuning.class).withName(node).get().getSpec());
    }

    private static String lastLines(Path log, String containing) throws java.io.IOException {
        return Files.readAllLines(log).stream()
                .filter(l -> l.contains(containing))
                .reduce((a, b) -> b)
                .orElse("(no line with '" + containing + "')");
    }

    private static void log(String format, Object... args) {
        System.out.printf("[OperatorFaultsIT %s] %s%n", Instant.now(), String.format(format, args));
    }
}
