package io.videoedge.server.chaos;

import io.videoedge.server.config.LimitsConfig;
import io.videoedge.server.testing.Metrics;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code make chaos}: hostile clients and a faulty origin against the real edge server process on
 * loopback, one scenario after another, with a well-behaved {@link Probe} running during each; prints a
 * table of figures per scenario and exits 1 when any verdict is bad. Sizes from the environment:
 * CHAOS_SLOWLORIS (2000), CHAOS_IDLE (10000), CHAOS_SLOW_READERS (200), CHAOS_SLOW_READ_RATE (1024
 * bytes/s each), CHAOS_TLS_SECONDS (10), CHAOS_STALLED (1000), CHAOS_GARBAGE (250 per port),
 * CHAOS_DOWNLOADS (20), CHAOS_SCENARIOS (a comma-separated subset of the names), CHAOS_MIN_SUCCESS
 * (0.99), CHAOS_RSS_LIMIT_MB (900).
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
    private final LimitsConfig defences = new LimitsConfig();
    private final List<Row> rows = new ArrayList<>();
    private final Set<String> only;
    private int unique;

    private ChaosMain(Rig rig, Figures.Limits limits, Set<String> only) {
        this.rig = rig;
        this.limits = limits;
        this.only = only;
    }

    public static void main(String[] args) throws Exception {
        Figures.Limits limits = new Figures.Limits(
                Double.parseDouble(Rig.env("CHAOS_MIN_SUCCESS", "0.99")),
                Rig.envInt("CHAOS_FD_SLACK", 32),
                // the cache's fill workers (up to origin.maxConnections, 32 here) idle out after 60 s: the
                // at-rest row at the end holds threads to the baseline
                Rig.envInt("CHAOS_THREAD_SLACK", 32 + 4),
                // the memory tier of the cache (32m) may fill during a scenario: that is not a leak
                (32L + 16) << 20,
                (long) Rig.envInt("CHAOS_RSS_LIMIT_MB", 900) << 10);
        String filter = Rig.env("CHAOS_SCENARIOS", "");
        Set<String> only = filter.isEmpty() ? Set.of() : Set.of(filter.split(","));
        Instant started = Instant.now();
        List<Row> rows;
        try (Rig rig = new Rig("", List.of())) {
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
        scenario("slowloris", slowloris + " trickling heads", problems -> slowloris(slowloris, problems));
        int idle = Rig.envInt("CHAOS_IDLE", 10_000);
        scenario("idle-keepalive", idle + " idle conns", problems -> idle(idle));
        int readers = Rig.envInt("CHAOS_SLOW_READERS", 200);
        int rate = Rig.envInt("CHAOS_SLOW_READ_RATE", 1024);
        scenario(
                "slow-readers",
                readers + " x 16 MiB at " + rate + " B/s",
                problems -> slowReaders(readers, rate, problems));
        int seconds = Rig.envInt("CHAOS_TLS_SECONDS", 10);
        scenario("tls-flood", "2 x openssl s_time -new, " + seconds + " s", problems -> tlsFlood(seconds, problems));
        int stalled = Rig.envInt("CHAOS_STALLED", 1000);
        scenario("tls-stalled", stalled + " stalled handshakes", problems -> stalled(stalled, problems));
        int garbage = Rig.envInt("CHAOS_GARBAGE", 250);
        scenario("garbage", garbage + " per port x 4 KiB random", problems -> garbage(garbage, problems));
        scenario("origin-down", "port closed, 16 misses", this::originDown);
        scenario("origin-slow", "2 s to headers, 640 KiB/s", problems -> originFault("slow", 1024, problems));
        scenario("origin-truncated", "half the body, close", problems -> originFault("trunc", 1024, problems));
        scenario(
                "origin-long",
                "body + a 2nd unasked response",
                problems -> originFault("long", 512, problems) + "; after: " + afterPoison(problems));
        scenario("origin-stall", "half the body, silence", problems -> originFault("stall", 1024, problems));
        scenario("origin-validators", "new ETag each fetch, slow", problems -> validators(problems));
        scenario("disk-corrupt", "cache files damaged, restart", this::diskCorrupt);
        int downloads = Rig.envInt("CHAOS_DOWNLOADS", 20);
        scenario("sigterm", "SIGTERM, " + downloads + " x 16 MiB running", problems -> sigterm(downloads, problems));
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

    // ---- hostile clients ----

    private String slowloris(int count, List<String> problems) throws Exception {
        double deadline = defences.headerTimeout / 1000.0;
        try (Crowd crowd = Crowd.open(rig.edge.httpPort, count, 10, 1000, 0)) {
            crowd.sendAll("GET /hls/playlist.m3u8 HTTP/1.1\r\n".getBytes(StandardCharsets.ISO_8859_1));
            long start = System.nanoTime();
            while (crowd.stillOpen() > 0 && (System.nanoTime() - start) / 1e9 < deadline + 15) {
                crowd.drain(5);
                crowd.sendAll("X-Trickle: 1\r\n".getBytes(StandardCharsets.ISO_8859_1));
            }
            if (crowd.stillOpen() > 0)
                problems.add(crowd.stillOpen() + " trickling heads outlived the header deadline");
            return "%d conns (%d not connected); longest held %.0f s (deadline %.0f s); %d still open"
                    .formatted(
                            crowd.size(),
                            crowd.failedToConnect(),
                            crowd.longestHeldSeconds(),
                            deadline,
                            crowd.stillOpen());
        }
    }

    private String idle(int count) throws Exception {
        try (Crowd crowd = Crowd.open(rig.edge.httpPort, count, 30, 1000, 0)) {
            crowd.sendAll(
                    "GET /hls/playlist.m3u8 HTTP/1.1\r\nHost: edge\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            crowd.drain(10);
            Figures.Snapshot peak = ProcessReadings.snapshot(rig.edge);
            return "%d of %d conns held idle after 10 s (%.0f KiB of answers read); server at peak: %d fds, RSS %d MiB, %d threads"
                    .formatted(
                            crowd.stillOpen(),
                            crowd.size(),
                            crowd.bytesIn() / 1024.0,
                            peak.fds(),
                            peak.rssKiB() / 1024,
                            peak.threads());
        }
    }

    private String slowReaders(int count, int bytesPerSecond, List<String> problems) throws Exception {
        double period = defences.minSendPeriod / 1000.0;
        long peakDirect = 0;
        try (Crowd crowd = Crowd.open(rig.edge.httpPort, count, 50, 1000, 16 * 1024)) {
            crowd.sendAll(
                    "GET /bench/seg-16m.m4s HTTP/1.1\r\nHost: edge\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            long start = System.nanoTime();
            while (crowd.stillOpen() > 0 && (System.nanoTime() - start) / 1e9 < 2 * period + 20) {
                crowd.read(bytesPerSecond);
                peakDirect =
                        Math.max(peakDirect, ProcessReadings.snapshot(rig.edge).directBytes());
                Thread.sleep(1000);
            }
            if (crowd.stillOpen() > 0)
                problems.add(crowd.stillOpen() + " slow readers were not dropped within 2 x minSendPeriod + 20 s");
            return "%d conns, %.1f MiB read in all; longest held %.0f s (rule: %d KiB per %.0f s); peak direct %s MiB"
                    .formatted(
                            crowd.size(),
                            crowd.bytesIn() / 1048576.0,
                            crowd.longestHeldSeconds(),
                            defences.minSendBytes / 1024,
                            period,
                            Figures.mib(peakDirect));
        }
    }

    private String tlsFlood(int seconds, List<String> problems) throws Exception {
        double handshakesBefore = Metrics.value(rig.edge.metrics(), "videoedge_tls_handshakes_total");
        double failuresBefore = Metrics.value(rig.edge.metrics(), "videoedge_tls_handshake_failures_total");
        List<Process> floods = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            floods.add(new ProcessBuilder(
                            "openssl",
                            "s_time",
                            "-connect",
                            "127.0.0.1:" + rig.edge.httpsPort,
                            "-new",
                            "-time",
                            Integer.toString(seconds))
                    .redirectErrorStream(true)
                    .start());
        }
        int connections = 0;
        Pattern done = Pattern.compile("(\\d+) connections in");
        for (Process p : floods) {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            Matcher m = done.matcher(out);
            if (m.find()) connections += Integer.parseInt(m.group(1));
            else
                problems.add("openssl s_time said: "
                        + out.strip().lines().reduce((a, b) -> b).orElse(""));
        }
        String metrics = rig.edge.metrics();
        double handshakes = Metrics.value(metrics, "videoedge_tls_handshakes_total") - handshakesBefore;
        double failures = Metrics.value(metrics, "videoedge_tls_handshake_failures_total") - failuresBefore;
        return "s_time: %d connections (%.0f/s); server: %.0f handshakes done, %.0f failed"
                .formatted(connections, connections / (double) seconds, handshakes, failures);
    }

    private String stalled(int count, List<String> problems) throws Exception {
        double deadline = defences.handshakeTimeout / 1000.0;
        try (Crowd crowd = Crowd.open(rig.edge.httpsPort, count, 60, 1000, 0)) {
            // a TLS record header announcing a ClientHello that never comes
            crowd.sendAll(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01});
            long start = System.nanoTime();
            while (crowd.stillOpen() > 0 && (System.nanoTime() - start) / 1e9 < deadline + 15) crowd.drain(1);
            if (crowd.stillOpen() > 0) problems.add(crowd.stillOpen() + " stalled handshakes outlived the deadline");
            return "%d conns; longest held %.0f s (deadline %.0f s); %d still open"
                    .formatted(crowd.size(), crowd.longestHeldSeconds(), deadline, crowd.stillOpen());
        }
    }

    private String garbage(int count, List<String> problems) throws Exception {
        byte[] noise = new byte[4096];
        new SplittableRandom(19).nextBytes(noise);
        StringBuilder got = new StringBuilder();
        int first = 70;
        for (int port : new int[] {rig.edge.httpPort, rig.edge.httpsPort}) {
            try (Crowd crowd = Crowd.open(port, count, first++, 1000, 0)) {
                crowd.sendAll(noise);
                long start = System.nanoTime();
                double limit = defences.headerTimeout / 1000.0 + 10;
                while (crowd.stillOpen() > 0 && (System.nanoTime() - start) / 1e9 < limit) crowd.drain(1);
                String scheme = port == rig.edge.httpPort ? "http" : "https";
                if (crowd.stillOpen() > 0) problems.add(crowd.stillOpen() + " " + scheme + " garbage conns left open");
                got.append("%s%s: %d/%d closed, longest %.1f s, %d bytes back"
                        .formatted(
                                got.isEmpty() ? "" : "; ",
                                scheme,
                                crowd.size() - crowd.stillOpen(),
                                crowd.size(),
                                crowd.longestHeldSeconds(),
                                crowd.bytesIn()));
            }
        }
        return got.toString();
    }

    // ---- a faulty origin ----

    /** Outcomes of requests: status counts, cut bodies, wrong bodies (any wrong one is a problem). */
    private final class Outcomes {
        final Map<String, Integer> counts = new TreeMap<>();
        final List<Long> millis = new ArrayList<>();
        int wrong;

        synchronized void add(String outcome, long nanos) {
            counts.merge(outcome, 1, Integer::sum);
            millis.add(nanos / 1_000_000);
        }

        String summary() {
            long[] sorted = millis.stream().mapToLong(Long::longValue).sorted().toArray();
            return counts + String.format(" max %d ms", sorted.length == 0 ? 0 : sorted[sorted.length - 1]);
        }
    }

    /** GETs {@code path} {@code count} times at once; checks every 200 body against the ETag it came with. */
    private Outcomes fetch(String path, int count, List<String> problems) throws Exception {
        Outcomes o = new Outcomes();
        try (ExecutorService pool = Executors.newFixedThreadPool(Math.min(count, 16))) {
            List<Future<?>> all = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                all.add(pool.submit(() -> {
                    long start = System.nanoTime();
                    try {
                        HttpResponse<byte[]> r = rig.get(rig.http(path));
                        String outcome = Integer.toString(r.statusCode());
                        if (r.statusCode() == 200) {
                            byte[] want = FaultyOrigin.expected(
                                    path, r.headers().firstValue("ETag").orElse(null));
                            if (want == null || !Arrays.equals(want, r.body())) {
                                synchronized (o) {
                                    o.wrong++;
                                }
                                outcome = "200-WRONG";
                                problems.add("wrong body for " + path + " ("
                                        + r.headers().firstValue("X-Cache").orElse("?") + ", "
                                        + r.body().length + " bytes)");
                            } else {
                                outcome = "200-"
                                        + r.headers().firstValue("X-Cache").orElse("?");
                            }
                        }
                        o.add(outcome, System.nanoTime() - start);
                    } catch (IOException e) {
                        o.add("cut", System.nanoTime() - start);
                    }
                    return null;
                }));
            }
            for (Future<?> f : all) f.get();
        }
        return o;
    }

    /**
     * Seconds until a new miss is fetched from the origin (200), polled every 100 ms, up to {@code limit};
     * -1 when it never was.
     */
    private double secondsUntilOriginServes(double limit) throws Exception {
        long start = System.nanoTime();
        while ((System.nanoTime() - start) / 1e9 < limit) {
            String path = "/o/health-" + (++unique) + "-4k.m4s";
            if (rig.get(rig.http(path)).statusCode() == 200) return (System.nanoTime() - start) / 1e9;
            Thread.sleep(100);
        }
        return -1;
    }

    /** Each origin scenario starts with an origin the edge reaches (not one its breaker still avoids). */
    private void originHealthy(List<String> problems) throws Exception {
        if (secondsUntilOriginServes(10) < 0) problems.add("the origin was not served for 10 s before the scenario");
    }

    private String originFault(String kind, int kib, List<String> problems) throws Exception {
        originHealthy(problems);
        String path = "/" + kind + "/obj-" + (++unique) + "-" + kib + "k.m4s";
        Outcomes first = fetch(path, 8, problems);
        // and again, once the first fill is over: nothing wrong may have been kept
        Outcomes again = fetch(path, 4, problems);
        return "8 at once: %s; then 4: %s; origin asked %d times"
                .formatted(first.summary(), again.summary(), rig.origin.requests(path));
    }

    /** After a response with extra bytes: objects fetched next (perhaps on that origin connection) must be theirs. */
    private String afterPoison(List<String> problems) throws Exception {
        Outcomes o = new Outcomes();
        for (int i = 0; i < 16; i++) {
            Outcomes one = fetch("/o/after-long-" + (++unique) + "-64k.m4s", 1, problems);
            one.counts.forEach((k, v) -> o.add(k, 0));
        }
        return "16 other misses: " + o.counts;
    }

    private String originDown(List<String> problems) throws Exception {
        originHealthy(problems);
        rig.origin.stop();
        try {
            Outcomes misses = fetch("/o/down-" + (++unique) + "-64k.m4s", 16, problems);
            Outcomes hit = fetch(Rig.PROBE_OBJECT, 4, problems);
            if (!hit.counts.containsKey("200-hit-memory") && !hit.counts.containsKey("200-hit-disk"))
                problems.add("a cached object was not served from the cache while the origin was down: " + hit.counts);
            rig.origin.start();
            // back: the breaker's cooldown is 1 s; the pooled connections the stop closed must not matter
            double recovered = secondsUntilOriginServes(30);
            if (recovered < 0 || recovered > 5)
                problems.add("misses not fetched again %s after the origin came back"
                        .formatted(recovered < 0 ? "within 30 s" : "for %.1f s".formatted(recovered)));
            return "misses: %s; cached: %s; origin back: first miss fetched after %.1f s"
                    .formatted(misses.summary(), hit.counts, recovered);
        } finally {
            rig.origin.start();
        }
    }

    private String validators(List<String> problems) throws Exception {
        originHealthy(problems);
        String path = "/chg/obj-" + (++unique) + "-1024k.m4s";
        Outcomes o = new Outcomes();
        for (int round = 0; round < 4; round++) {
            fetch(path, 6, problems).counts.forEach((k, v) -> {
                for (int i = 0; i < v; i++) o.add(k, 0);
            });
            Thread.sleep(1200); // past max-age=1: the next round revalidates or refetches
        }
        return "24 GETs, 4 rounds 1.2 s apart: %s; origin asked %d times"
                .formatted(o.counts, rig.origin.requests(path));
    }

    private String diskCorrupt(List<String> problems) throws Exception {
        int objects = 12;
        List<String> paths = new ArrayList<>();
        for (int i = 0; i < objects; i++) {
            String path = "/o/disk-" + (++unique) + "-2048k.m4s";
            paths.add(path);
            fetch(path, 1, problems);
        }
        Thread.sleep(2000); // disk writes finish
        int code = rig.edge.stopProcess(Duration.ofSeconds(30));
        List<Path> files;
        try (Stream<Path> s = Files.walk(rig.cacheDir)) {
            files = s.filter(Files::isRegularFile).sorted().toList();
        }
        int damaged = 0;
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < files.size(); i++) {
            Path f = files.get(i);
            long size = Files.size(f);
            switch (i % 4) {
                case 0 -> { // bytes flipped in the middle
                    try (var ch = Files.newByteChannel(f, StandardOpenOption.WRITE)) {
                        byte[] junk = new byte[512];
                        random.nextBytes(junk);
                        ch.position(size / 2);
                        ch.write(java.nio.ByteBuffer.wrap(junk));
                    }
                    damaged++;
                }
                case 1 -> { // cut short
                    try (var ch = Files.newByteChannel(f, StandardOpenOption.WRITE)) {
                        ch.truncate(size / 3);
                    }
                    damaged++;
                }
                case 2 -> { // the start overwritten
                    try (var ch = Files.newByteChannel(f, StandardOpenOption.WRITE)) {
                        ch.write(java.nio.ByteBuffer.wrap(new byte[(int) Math.min(size, 4096)]));
                    }
                    damaged++;
                }
                default -> {}
            }
        }
        Files.write(rig.cacheDir.resolve("stray-garbage.bin"), new byte[1000]);
        rig.edge.restartProcess();
        Outcomes o = new Outcomes();
        for (String path : paths) {
            fetch(path, 1, problems).counts.forEach((k, v) -> o.add(k, 0));
        }
        double corrupted = Metrics.value(rig.edge.metrics(), "videoedge_cache_corrupted_total");
        return "stopped (exit %d); %d of %d cache files damaged + 1 stray; after restart %d objects: %s; corrupted_total %.0f"
                .formatted(code, damaged, files.size(), objects, o.counts, corrupted);
    }

    private String sigterm(int count, List<String> problems) throws Exception {
        byte[] want = rig.edge.file("bench/seg-16m.m4s");
        List<Future<long[]>> downloads = new ArrayList<>();
        long start;
        int code;
        double seconds;
        try (ExecutorService pool = Executors.newFixedThreadPool(count)) {
            for (int i = 0; i < count; i++) {
                downloads.add(pool.submit(() -> download(rig.edge.httpPort, "/bench/seg-16m.m4s", want)));
            }
            Thread.sleep(1500);
            start = System.nanoTime();
            code = rig.edge.stopProcess(Duration.ofSeconds(60));
            seconds = (System.nanoTime() - start) / 1e9;
            int complete = 0;
            int cut = 0;
            int wrong = 0;
            for (Future<long[]> f : downloads) {
                long[] r = f.get();
                if (r[1] != 0) wrong++;
                else if (r[0] == want.length) complete++;
                else cut++;
            }
            if (wrong > 0) problems.add(wrong + " downloads got wrong bytes");
            if (code != 0 && code != 143) problems.add("exit code " + code);
            double drain = 5; // drainTimeout in the Rig's config
            if (seconds > drain + 10) problems.add("took %.1f s to exit (drain %.0f s)".formatted(seconds, drain));
            rig.edge.restartProcess();
            check(rig.get(rig.http(Rig.PROBE_OBJECT)), Rig.PROBE_OBJECT);
            return "exit %d after %.1f s; downloads: %d complete, %d cut short, %d wrong; restarted and serving"
                    .formatted(code, seconds, complete, cut, wrong);
        }
    }

    /** Reads a response at ~4 MiB/s; returns {body bytes read, 1 if any byte differed from {@code want}}. */
    private static long[] download(int port, String path, byte[] want) throws IOException, InterruptedException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(60_000);
            s.getOutputStream()
                    .write(("GET " + path + " HTTP/1.1\r\nHost: edge\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = s.getInputStream();
            int matched = 0;
            while (matched < 4) {
                int c = in.read();
                if (c < 0) return new long[] {0, 0};
                matched = (c == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (c == '\r' ? 1 : 0);
            }
            byte[] buf = new byte[64 * 1024];
            long off = 0;
            long wrong = 0;
            try {
                for (int n; off < want.length && (n = in.read(buf)) > 0; off += n) {
                    if (!Arrays.equals(buf, 0, n, want, (int) off, (int) off + n)) wrong = 1;
                    Thread.sleep(15);
                }
            } catch (IOException e) {
                // cut by the server: the bytes so far are what counts
            }
            return new long[] {off, wrong};
        }
    }

    private static void check(HttpResponse<byte[]> r, String path) {
        if (r.statusCode() != 200 || !Arrays.equals(r.body(), FaultyOrigin.body(path, 0)))
            throw new IllegalStateException("warm-up: " + path + " answered " + r.statusCode());
    }
}
