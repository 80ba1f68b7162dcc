package io.videoedge.server.chaos;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * {@code make chaos}: hostile clients and a faulty origin against the real edge server process on
 * loopback, one scenario after another, with a well-behaved {@link Probe} running during each; prints a
 * table of figures per scenario and exits 1 when any verdict is bad. Sizes from the environment:
 * CHAOS_SLOWLORIS (2000), CHAOS_IDLE (10000), CHAOS_SLOW_READERS (200), CHAOS_SLOW_READ_RATE (1024
 * bytes/s each), CHAOS_TLS_SECONDS (10), CHAOS_STALLED (1000), CHAOS_GARBAGE (250 per port),
 * CHAOS_DOWNLOADS (20), CHAOS_SCENARIOS (a comma-separated subset of the names), CHAOS_MIN_SUCCESS
 * (0.99), CHAOS_RSS_LIMIT_MB (900), CHAOS_EDGE_EXTRA (config lines appended to the server's, e.g. a
 * {@code limits:} section that replaces the suite's; the scenarios still expect the default defences,
 * so weakening one makes its verdict bad).
 */
public final class ChaosMain {
    /** One scenario's row: its figures and its verdict. */
    record Row(
            String name,
            String attack,
            Figures.ProbeFigures probe,
            Figures.Snapshot before,
            Figures.Snapshot after,
            String attacker,
            List<String> problems) {}

    /** The attack itself: returns what the attacker got; adds scenario-specific problems. */
    interface Attack {
        String run(List<String> problems) throws Exception;
    }

    private final Rig rig;
    private final Figures.Limits limits;
    private final HostileClients hostile;
    private final OriginFaults faults;
    private final Restarts restarts;
    private final List<Row> rows = new ArrayList<>();
    private final Set<String> only;

    private ChaosMain(Rig rig, Figures.Limits limits, Set<String> only) {
        this.rig = rig;
        this.limits = limits;
        this.only = only;
        this.hostile = new HostileClients(rig);
        this.faults = new OriginFaults(rig);
        this.restarts = new Restarts(rig, faults);
    }

    public static void main(String[] args) throws Exception {
        Figures.Limits limits = new Figures.Limits(
                Double.parseDouble(Rig.env("CHAOS_MIN_SUCCESS", "0.99")),
                Rig.envInt("CHAOS_FD_SLACK", 32),
                // the cache's fill workers (up to origin.maxConnections, 32 here) idle out after 60 s: the
                // at-rest row at the end holds threads to the baseline
                Rig.envInt("CHAOS_THREAD_SLACK", 32 + 4),
                // direct buffers (the JDK's; the cache's memory tier is one-nio's Malloc, not among them)
                // may grow during a scenario by this much before it counts as a leak
                (32L + 16) << 20,
                (long) Rig.envInt("CHAOS_RSS_LIMIT_MB", 900) << 10);
        String filter = Rig.env("CHAOS_SCENARIOS", "");
        Set<String> only = filter.isEmpty() ? Set.of() : Set.of(filter.split(","));
        Instant started = Instant.now();
        List<Row> rows;
        try (Rig rig = new Rig(Rig.env("CHAOS_EDGE_EXTRA", ""), List.of())) {
            ChaosMain chaos = new ChaosMain(rig, limits, only);
            chaos.warmUp();
            Figures.Snapshot baseline = ProcessReadings.snapshot(rig.edge);
            chaos.all();
            chaos.atRest(baseline);
            rows = chaos.rows;
        }
        System.out.println();
        System.out.printf(
                "make chaos, %s, %d s, %d cores (%s)%n%n",
                started,
                Duration.between(started, Instant.now()).toSeconds(),
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("os.name") + " " + System.getProperty("os.version"));
        System.out.println(table(rows));
        long bad = rows.stream().filter(r -> !r.problems().isEmpty()).count();
        System.out.println(bad == 0 ? "chaos: every verdict ok" : "chaos: " + bad + " scenario(s) failed");
        System.exit(bad == 0 ? 0 : 1);
    }

    static String table(List<Row> rows) {
        StringBuilder b = new StringBuilder();
        b.append(
                "| scenario | attack | probe ok | p99 ms | RSS MiB | fds | direct MiB | threads | attacker got | verdict |\n");
        b.append("|---|---|---|---|---|---|---|---|---|---|\n");
        for (Row r : rows) {
            Figures.ProbeFigures p = r.probe();
            b.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n"
                    .formatted(
                            r.name(),
                            r.attack(),
                            p == null ? "-" : p.success(),
                            p == null ? "-" : p.p99(),
                            r.before().rssKiB() / 1024 + "→" + r.after().rssKiB() / 1024,
                            r.before().fds() + "→" + r.after().fds(),
                            Figures.mib(r.before().directBytes()) + "→"
                                    + Figures.mib(r.after().directBytes()),
                            r.before().threads() + "→" + r.after().threads(),
                            r.attacker(),
                            r.problems().isEmpty() ? "ok" : "**BAD**: " + String.join("; ", r.problems())));
        }
        return b.toString();
    }

    private void warmUp() throws Exception {
        // the probe's cached object, the buffer pool and the JIT: the baseline is a server that has worked
        for (int i = 0; i < 3; i++) {
            check(rig.get(rig.http(Rig.PROBE_OBJECT)), Rig.PROBE_OBJECT);
            rig.get(rig.http("/bench/seg-16m.m4s"));
            rig.get(rig.edge.https("/bench/seg-16m.m4s"));
        }
        try (Probe p = probe()) {
            Thread.sleep(3000);
        }
    }

    /**
     * The whole run's leak check: once the fill workers have idled out (60 s), the server process must
     * be back within 4 threads, the descriptor slack and the cache slack of the first baseline.
     */
    private void atRest(Figures.Snapshot baseline) throws Exception {
        Figures.Limits strict = new Figures.Limits(
                limits.minSuccess(), limits.fdSlack(), 4, limits.directSlackBytes(), limits.rssLimitKiB());
        Figures.Snapshot now = ProcessReadings.snapshot(rig.edge);
        long start = System.nanoTime();
        while (!Figures.problems(strict, null, baseline, now).isEmpty() && System.nanoTime() - start < 75e9) {
            Thread.sleep(2000);
            now = ProcessReadings.snapshot(rig.edge);
        }
        List<String> problems = new ArrayList<>();
        if (!rig.edge.process.isAlive()) problems.add("the server process died");
        else problems.addAll(Figures.problems(strict, null, baseline, now));
        rows.add(new Row(
                "at-rest",
                "none: the end against the start",
                null,
                baseline,
                now,
                "waited %.0f s for idle pools to shrink".formatted((System.nanoTime() - start) / 1e9),
                problems));
    }

    private Probe probe() throws IOException {
        return new Probe(rig.edge.httpPort, rig.edge.httpsPort, rig.probeTargets(), 50);
    }

    private void all() throws Exception {
        int slowloris = Rig.envInt("CHAOS_SLOWLORIS", 2000);
        scenario("slowloris", slowloris + " trickling heads", problems -> hostile.slowloris(slowloris, problems));
        int idle = Rig.envInt("CHAOS_IDLE", 10_000);
        scenario("idle-keepalive", idle + " idle conns", problems -> hostile.idle(idle));
        int readers = Rig.envInt("CHAOS_SLOW_READERS", 200);
        int rate = Rig.envInt("CHAOS_SLOW_READ_RATE", 1024);
        scenario(
                "slow-readers",
                readers + " x 16 MiB at " + rate + " B/s",
                problems -> hostile.slowReaders(readers, rate, problems));
        int seconds = Rig.envInt("CHAOS_TLS_SECONDS", 10);
        scenario(
                "tls-flood",
                "2 x openssl s_time -new, " + seconds + " s",
                problems -> hostile.tlsFlood(seconds, problems));
        int stalled = Rig.envInt("CHAOS_STALLED", 1000);
        scenario("tls-stalled", stalled + " stalled handshakes", problems -> hostile.stalled(stalled, problems));
        int garbage = Rig.envInt("CHAOS_GARBAGE", 250);
        scenario("garbage", garbage + " per port x 4 KiB random", problems -> hostile.garbage(garbage, problems));
        scenario("origin-down", "port closed, 16 misses", faults::originDown);
        scenario("origin-slow", "2 s to headers, 640 KiB/s", problems -> faults.originFault("slow", 1024, problems));
        scenario("origin-truncated", "half the body, close", problems -> faults.originFault("trunc", 1024, problems));
        scenario(
                "origin-long",
                "body + a 2nd unasked response",
                problems -> faults.originFault("long", 512, problems) + "; after: " + faults.afterPoison(problems));
        scenario("origin-stall", "half the body, silence", problems -> faults.originFault("stall", 1024, problems));
        scenario("origin-validators", "new ETag each fetch, slow", problems -> faults.validators(problems));
        scenario("disk-corrupt", "cache files damaged, restart", restarts::diskCorrupt);
        int downloads = Rig.envInt("CHAOS_DOWNLOADS", 20);
        scenario(
                "sigterm",
                "SIGTERM, " + downloads + " x 16 MiB running",
                problems -> restarts.sigterm(downloads, problems));
    }

    private void scenario(String name, String attack, Attack body) throws Exception {
        if (!only.isEmpty() && !only.contains(name)) return;
        System.out.printf("%s chaos: %s (%s)%n", Instant.now(), name, attack);
        boolean restarts = name.equals("disk-corrupt") || name.equals("sigterm");
        Figures.Snapshot before = ProcessReadings.snapshot(rig.edge);
        Probe probe = restarts ? null : probe();
        List<String> problems = new ArrayList<>();
        String attacker;
        try {
            attacker = body.run(problems);
        } catch (Exception e) {
            attacker = "harness error: " + e;
            problems.add("the scenario could not run: " + e);
        }
        Figures.ProbeFigures seen = probe == null ? null : probe.stop();
        if (probe != null && !probe.wrongPaths().isEmpty()) problems.add("wrong bodies at " + probe.wrongPaths());
        Figures.Snapshot after = Figures.Snapshot.NONE;
        if (!rig.edge.process.isAlive()) {
            problems.add("the server process died: exit " + rig.edge.process.exitValue());
        } else {
            after = settle(before);
            problems.addAll(Figures.problems(limits, seen, before, after));
        }
        if (!problems.isEmpty()) {
            System.out.println("the server's log, last lines (" + rig.edge.processLog + "):");
            List<String> log = Files.readAllLines(rig.edge.processLog);
            log.subList(Math.max(0, log.size() - 20), log.size()).forEach(System.out::println);
        }
        Row row = new Row(name, attack, seen, before, after, attacker, problems);
        rows.add(row);
        System.out.println(table(List.of(row)).lines().skip(2).findFirst().orElse(""));
    }

    /** Readings once the attack's connections are gone: polled up to 30 s until within the limits. */
    private Figures.Snapshot settle(Figures.Snapshot before) throws Exception {
        Figures.Snapshot now = ProcessReadings.snapshot(rig.edge);
        for (int i = 0; i < 30 && !Figures.problems(limits, null, before, now).isEmpty(); i++) {
            Thread.sleep(1000);
            now = ProcessReadings.snapshot(rig.edge);
        }
        return now;
    }

    static void check(HttpResponse<byte[]> r, String path) {
        if (r.statusCode() != 200 || !Arrays.equals(r.body(), FaultyOrigin.body(path, 0)))
            throw new IllegalStateException("warm-up: " + path + " answered " + r.statusCode());
    }
}
