package io.videoedge.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.api.Conditions;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeStatus;
import io.videoedge.operator.reconciler.NodeTuningWriter;
import io.videoedge.testing.RealApiServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A fleet of a few hundred simulated nodes ({@link SimNodes}: Node objects with a kubelet's status,
 * re-reported every 10 s; {@link SimKubelets}; {@link SimAgents}) on an API server of its own, one
 * VideoEdge selecting them all, the operator in this JVM with the chart's RBAC. Guards what the
 * operator must not do at scale: a status that grows with the fleet, and work per agent report that
 * grows with it (a request per node, a LIST, a reconcile per node heartbeat). Every operator request
 * is counted at its HTTP client ({@link RequestLog}), so the simulated cluster's own writes do not
 * blur the figures; and none of its writes may fail, as the API server's audit log records them
 * ({@link OperatorAudit}).
 */
class ScaleIT {
    static final int N = Integer.getInteger("scale.it.nodes", 300);
    /** Agent reports measured one by one. */
    static final int REPORTS = 20;
    /** Agent reports sent as fast as one client can, to see the status writes paced. */
    static final int BURST = 60;
    /** A status, however many nodes need attention, stays under this (etcd takes 1.5 MiB). */
    static final int STATUS_BYTES = 8 * 1024;

    static RealApiServer api;
    static KubernetesClient admin;
    static OperatorHarness operator;
    static OperatorAudit audit;

    @BeforeAll
    static void start() throws IOException {
        audit = OperatorAudit.impersonating(Path.of("target", "scale-it"), OperatorHarness.USER);
        api = RealApiServer.startNew(audit.flags());
        admin = ScaleBench.bigClient(api);
        operator = new OperatorHarness(api, admin);
    }

    @AfterAll
    static void stop() {
        if (operator != null) {
            operator.close();
        }
        if (admin != null) {
            admin.close();
        }
        if (api != null) {
            api.stop();
        }
    }

    @Test
    void aFleetOfHundredsHasASmallStatusAndAnAgentReportCostsTheOperatorTheSameAtAnySize() throws Exception {
        ScaleBench.benchNamespace(admin);
        // every check runs and reports: one broken guard does not hide another
        SoftAssertions softly = new SoftAssertions();
        WriteCounter sims = new WriteCounter();
        SimNodes nodes = new SimNodes(admin, sims).statusEvery(Duration.ofSeconds(10));
        List<String> names = nodes.register("edge", N, Map.of(ScaleBench.FLEET_LABEL, ScaleBench.NAME), 8);
        try (nodes;
                SimKubelets kubelets = new SimKubelets(
                        admin, sims, Duration.ofMillis(200), Duration.ofMillis(200), Duration.ofMillis(200), 4);
                SimAgents agents = new SimAgents(admin, sims, Duration.ofMillis(50), 4);
                ScaleBench.StatusWatch watch = new ScaleBench.StatusWatch(admin, N).agents(agents)) {
            operator.start();
            Instant created = Instant.now();
            admin.resource(ScaleBench.videoEdge()).create();
            await().atMost(Duration.ofMinutes(5))
                    .pollInterval(Duration.ofMillis(500))
                    .until(watch::settled);
            log(
                    "%d nodes: settled (Ready, %d/%d tuned, serving, updated) %d s after the VideoEdge was created",
                    N, N, N, Duration.between(created, Instant.now()).toSeconds());

            // 1. bounded status: while all N nodes waited for their agents, at most a few were listed
            log(
                    "status: at most %d nodes listed, at most %d bytes; settled: %d bytes",
                    watch.peakListed(), watch.peakStatusBytes(), bytes(watch.latest()));
            softly.assertThat(watch.peakListed()).isEqualTo(VideoEdgeStatus.MAX_LISTED_NODES);
            softly.assertThat(watch.peakStatusBytes()).isLessThan(STATUS_BYTES);
            VideoEdgeStatus settled = watch.latest().getStatus();
            softly.assertThat(settled.nodes()).isEqualTo(new VideoEdgeStatus.NodeCounts(N, N, N, N, 0, 0, 0));
            softly.assertThat(settled.nodesNeedingAttention()).isEmpty();

            // 2. the fleet idles: every node's status heartbeat (N every 10 s) wakes no reconcile
            RequestLog requests = operator.requests();
            softly.assertThat(quiet(requests))
                    .as("operator quiet for 3 s after settling")
                    .isTrue();
            Map<String, Long> idleFrom = requests.snapshot();
            double idleReconciles = reconciles();
            long heartbeats = sims.sent().getOrDefault("nodes/status PATCH", 0L);
            Thread.sleep(12_000);
            heartbeats = sims.sent().getOrDefault("nodes/status PATCH", 0L) - heartbeats;
            Map<String, Long> idle = requests.since(idleFrom);
            double idleReconciled = reconciles() - idleReconciles;
            log(
                    "idle 12 s, %d node heartbeats: %.0f reconciles, operator requests %s",
                    heartbeats, idleReconciled, idle);
            softly.assertThat(heartbeats).as("node heartbeats sent").isGreaterThanOrEqualTo(N);
            softly.assertThat(idleReconciled)
                    .as("reconciles while only heartbeats came")
                    .isZero();
            softly.assertThat(idle.keySet())
                    .as("operator requests while idle (a watch may reconnect)")
                    .allMatch(k -> k.startsWith("WATCH "));

            // 3. agents report, one at a time: each costs a reconcile and a few requests, none per node
            Map<String, Long> from = requests.snapshot();
            double reconcilesFrom = reconciles();
            long comparedFrom = NodeTuningWriter.comparisons();
            List<Duration> latencies = new ArrayList<>();
            for (int k = 0; k < REPORTS; k++) {
                String node = names.get(k * (N / REPORTS));
                Instant reported = Instant.now();
                reportDegraded(node, "NIC firmware " + k + " ignores rx-usecs");
                int degraded = k + 1;
                // the status reflects the report within 10 s (the goal)
                boolean reflected = within(
                        Duration.ofSeconds(10),
                        () -> watch.latest().getStatus().nodes().needingAttention() == degraded);
                softly.assertThat(reflected)
                        .as("report %d on %s in the status within 10 s", k, node)
                        .isTrue();
                latencies.add(Duration.between(reported, Instant.now()));
            }
            softly.assertThat(quiet(requests))
                    .as("operator quiet for 3 s after the reports")
                    .isTrue();
            Map<String, Long> perReports = requests.since(from);
            perReports.keySet().removeIf(k -> k.startsWith("WATCH "));
            double reconciled = reconciles() - reconcilesFrom;
            long compared = NodeTuningWriter.comparisons() - comparedFrom;
            log(
                    "%d agent reports: %.0f reconciles, %d NodeTuning comparisons, operator requests %s, status"
                            + " reflected each within %s",
                    REPORTS,
                    reconciled,
                    compared,
                    perReports,
                    latencies.stream().max(Duration::compareTo).orElseThrow());
            // a report within a second of the last status write costs a second pass (the paced write)
            softly.assertThat(reconciled)
                    .as("reconciles for %d reports", REPORTS)
                    .isBetween((double) REPORTS, 3.0 * REPORTS);
            // a NodeTuning is compared with its desired state again only when its spec or metadata, or its desired
            // state, changed: an agent's status report changes neither (it moves the resourceVersion only), so it
            // costs no comparison; comparing them all is N per pass (11,700 here when the remembered matches never
            // held)
            softly.assertThat(compared)
                    .as("server-side apply comparisons of NodeTunings for %d reports", REPORTS)
                    .isLessThanOrEqualTo(REPORTS);
            // a status patch and an Event per report, and one read of the VideoEdge's own Secret (its admin token,
            // not watched) per pass; a request per node would be N (300) per report. Seen: 20 patches, 1 Event
            // and 39 Secret reads for 39 passes, so the Secret reads are bounded by the passes, not by the reports
            long secretReads = perReports.getOrDefault("GET secrets", 0L);
            softly.assertThat(secretReads)
                    .as("Secret reads for %.0f reconciles: %s", reconciled, perReports)
                    .isLessThanOrEqualTo((long) reconciled);
            softly.assertThat(RequestLog.total(perReports) - secretReads)
                    .as("operator requests but Secret reads for %d reports: %s", REPORTS, perReports)
                    .isLessThanOrEqualTo(3L * REPORTS);
            softly.assertThat(perReports.keySet())
                    .as("no LIST, and no read or write of nodes, pods or NodeTunings")
                    .noneMatch(k -> k.startsWith("LIST ")
                            || k.endsWith(" nodes")
                            || k.contains(" pods")
                            || k.contains(" nodetunings"));
            softly.assertThat(perReports.getOrDefault("PATCH videoedges/status", 0L))
                    .as("status writes: at most one per report")
                    .isBetween(1L, (long) REPORTS);

            // the status lists the first few of them, counts them all, and stays small
            VideoEdgeStatus s = watch.latest().getStatus();
            softly.assertThat(s.nodes().needingAttention()).isEqualTo(REPORTS);
            softly.assertThat(s.nodesNeedingAttention())
                    .hasSize(VideoEdgeStatus.MAX_LISTED_NODES)
                    .allSatisfy(n -> assertThat(n.tuning()).isEqualTo("Degraded"));
            softly.assertThat(bytes(watch.latest())).isLessThan(STATUS_BYTES);
            softly.assertThat(s.conditions())
                    .anySatisfy(c ->
                            assertThat(c.getType() + " " + c.getStatus()).isEqualTo(Conditions.DEGRADED + " True"));

            // 4. churn: a burst of reports moves only counts; the status is written at most about once a
            // second (StatusPacing), and the last report still shows
            Map<String, Long> burstFrom = requests.snapshot();
            Instant burstStart = Instant.now();
            for (int k = 0; k < BURST; k++) {
                reportDegraded(names.get(k * (N / BURST) + 1), "burst " + k);
            }
            Duration burst = Duration.between(burstStart, Instant.now());
            boolean burstShown = within(
                    Duration.ofSeconds(10),
                    () -> watch.latest().getStatus().nodes().needingAttention() == REPORTS + BURST);
            Duration shown = Duration.between(burstStart, Instant.now());
            long burstWrites = requests.since(burstFrom).getOrDefault("PATCH videoedges/status", 0L);
            log(
                    "a burst of %d reports in %d ms: %d status writes, all shown %d ms after the first",
                    BURST, burst.toMillis(), burstWrites, shown.toMillis());
            softly.assertThat(burstShown)
                    .as("the burst's last report in the status within 10 s")
                    .isTrue();
            softly.assertThat(burstWrites)
                    .as("status writes for %d reports in %d ms", BURST, shown.toMillis())
                    .isBetween(1L, shown.toSeconds() + 2);
        }
        // 5. the operator's writes never failed (a conflict, a rejected patch, a timeout): the API server's word
        OperatorAudit.Writes writes = audit.since();
        log("the operator's writes (audit log): %s; failed: %s", writes.all(), writes.failed());
        softly.assertThat(writes.total())
                .as("the operator's writes in the audit log")
                .isGreaterThan(2L * N);
        softly.assertThat(writes.failed()).as("the operator's failed writes").isEmpty();
        softly.assertAll();
    }

    /** What a node's agent writes when it applied the tuning but the node refused a setting. */
    private static void reportDegraded(String node, String message) {
        NodeTuning nt = admin.resources(NodeTuning.class).withName(node).get();
        NodeTuningStatus st = nt.getStatus();
        List<Condition> conditions = new ArrayList<>();
        for (Condition c : st.conditions()) {
            conditions.add(
                    Conditions.DEGRADED.equals(c.getType())
                            ? FakeAgent.cond(Conditions.DEGRADED, "True", "SettingsUnsupported", message)
                            : c);
        }
        nt.setStatus(new NodeTuningStatus(
                st.observedGeneration(),
                conditions,
                st.message(),
                st.fingerprint(),
                st.lastAppliedTime(),
                st.settings(),
                st.capabilities(),
                st.lastDrift()));
        admin.resource(nt).updateStatus();
    }

    /** Whether the operator sends nothing (Lease renewals aside) for 3 s within 30 s. */
    private static boolean quiet(RequestLog requests) throws InterruptedException {
        AtomicReference<Map<String, Long>> last = new AtomicReference<>(requests.snapshot());
        AtomicReference<Instant> since = new AtomicReference<>(Instant.now());
        return within(Duration.ofSeconds(30), () -> {
            if (!requests.since(last.get()).isEmpty()) {
                last.set(requests.snapshot());
                since.set(Instant.now());
            }
            return Duration.between(since.get(), Instant.now()).toMillis() >= 3_000;
        });
    }

    /** Whether {@code done} holds within {@code timeout} (polled every 50 ms). */
    static boolean within(Duration timeout, BooleanSupplier done) throws InterruptedException {
        Instant end = Instant.now().plus(timeout);
        while (Instant.now().isBefore(end)) {
            if (done.getAsBoolean()) {
                return true;
            }
            Thread.sleep(50);
        }
        return done.getAsBoolean();
    }

    private static double reconciles() {
        return operator.successfulReconciles(ScaleBench.NS, ScaleBench.NAME);
    }

    private static int bytes(VideoEdge ve) {
        return Serialization.asJson(ve.getStatus()).getBytes(StandardCharsets.UTF_8).length;
    }

    private static void log(String format, Object... args) {
        System.out.printf("[ScaleIT] %s%n", String.format(format, args));
    }
}
