package io.videoedge.server.chaos;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code make soak}: a long mixed run against the real edge server process (manifests and segments from
 * the content root, cache hits and misses from an origin, HTTP and HTTPS, every body checked) with a
 * config reload half-way, sampling the process every SOAK_INTERVAL: RSS, descriptors, threads, direct
 * memory, GC time and collections (jstat), requests and errors. The verdict is on drift: the
 * least-squares slope of each series over the samples after the warm-up ({@link Figures#drift}), against
 * the limits below, plus no wrong body and errors under 0.1%. Settings: SOAK_DURATION (10m; e.g. 90s,
 * 4h), SOAK_INTERVAL (15s), SOAK_WARMUP (a fifth of the run, at most 2m), SOAK_CLIENTS (6),
 * SOAK_PAUSE_MS (5, between one client's requests).
 */
public final class SoakMain {
    /** Drift limits: per hour, and the growth over the measured span below which a slope is noise. */
    static final double RSS_MIB_PER_HOUR = 32;

    static final double RSS_FLOOR_MIB = 16;
    static final double FDS_PER_HOUR = 20;
    static final double FDS_FLOOR = 10;
    static final double THREADS_PER_HOUR = 4;
    static final double THREADS_FLOOR = 3;
    static final double DIRECT_MIB_PER_HOUR = 16;
    static final double DIRECT_FLOOR_MIB = 8;

    /** One reading. */
    record Sample(
            double seconds,
            long requests,
            long errors,
            long wrong,
            Figures.Snapshot process,
            double gcSeconds,
            double gcCount,
            double server5xx) {}

    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong wrong = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<String> firstErrors = new ArrayList<>();
    private final Rig rig;
    private final Map<String, byte[]> staticFiles = new LinkedHashMap<>();

    private SoakMain(Rig rig) throws IOException {
        this.rig = rig;
        for (String f : List.of(
                "index.m3u8",
                "hls/playlist.m3u8",
                "dash/manifest.mpd",
                "hls/seg-00001.m4s",
                "hls/seg-00002.m4s",
                "hls/seg-00003.m4s",
                "ts/seg-00001.ts",
                "bench/seg-2m.m4s")) {
            staticFiles.put("/" + f, rig.edge.file(f));
        }
    }

    /** "90s", "10m", "4h", "500ms" to milliseconds. */
    static long parseMillis(String text) {
        String t = text.trim();
        if (t.endsWith("ms")) return Long.parseLong(t.substring(0, t.length() - 2));
        long n = Long.parseLong(t.substring(0, t.length() - 1));
        return switch (t.charAt(t.length() - 1)) {
            case 's' -> n * 1000;
            case 'm' -> n * 60_000;
            case 'h' -> n * 3_600_000;
            default -> throw new IllegalArgumentException("a duration like 90s, 10m or 4h, not " + text);
        };
    }

    public static void main(String[] args) throws Exception {
        long total = parseMillis(Rig.env("SOAK_DURATION", "10m"));
        long interval = parseMillis(Rig.env("SOAK_INTERVAL", "15s"));
        long warmUp = parseMillis(Rig.env("SOAK_WARMUP", Math.min(120_000, total / 5) + "ms"));
        int clients = Rig.envInt("SOAK_CLIENTS", 6);
        long pause = Rig.envInt("SOAK_PAUSE_MS", 5);
        Instant started = Instant.now();
        List<Sample> samples = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        String reload;
        try (Rig rig = new Rig("", List.of("--reload-interval", "2s"))) {
            SoakMain soak = new SoakMain(rig);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                boolean tls = i % 2 == 1;
                long seed = i;
                threads.add(Thread.ofPlatform()
                        .name("soak-" + i)
                        .daemon()
                        .start(() -> soak.client(tls, new SplittableRandom(seed), pause)));
            }
            long start = System.nanoTime();
            boolean reloaded = false;
            reload = "not reached";
            System.out.println(header());
            while (true) {
                long elapsed = (System.nanoTime() - start) / 1_000_000;
                if (!reloaded && elapsed >= total / 2) {
                    reload = soak.reload();
                    reloaded = true;
                }
                if (!rig.edge.process.isAlive()) {
                    problems.add("the server process died: exit " + rig.edge.process.exitValue());
                    break;
                }
                Sample s = soak.sample(elapsed / 1000.0);
                samples.add(s);
                System.out.println(line(s, samples.size() > 1 ? samples.get(samples.size() - 2) : null));
                if (elapsed >= total) break;
                Thread.sleep(Math.min(interval, Math.max(1, total - elapsed)));
            }
            soak.running.set(false);
            for (Thread t : threads) t.join(30_000);
            synchronized (soak.firstErrors) {
                if (!soak.firstErrors.isEmpty()) System.out.println("first errors: " + soak.firstErrors);
            }
            if (!reload.startsWith("applied")) problems.add("config reload: " + reload);
        }
        double warmUpSeconds = warmUpEnd(samples, warmUp / 1000.0);
        problems.addAll(verdict(samples, warmUpSeconds));
        Sample last = samples.getLast();
        System.out.printf(
                "%nmake soak, %s, %s (%d samples every %d s, warm-up %.0f s), %d clients, %d cores%n",
                started,
                Duration.ofMillis(total),
                samples.size(),
                interval / 1000,
                warmUpSeconds,
                clients,
                Runtime.getRuntime().availableProcessors());
        System.out.println(summary(samples, warmUpSeconds, reload));
        System.out.println(problems.isEmpty() ? "soak: verdict ok (no drift)" : "soak: BAD: " + problems);
        System.out.printf("requests %d, errors %d, wrong %d%n", last.requests(), last.errors(), last.wrong());
        System.exit(problems.isEmpty() ? 0 : 1);
    }

    /**
     * The end of the warm-up: the configured time, or later, the first sample after two more garbage
     * collections than at start (the first collections allocate the collector's own native structures:
     * a step in RSS that is not drift).
     */
    static double warmUpEnd(List<Sample> samples, double configured) {
        if (samples.isEmpty()) return configured;
        double gcAtStart = samples.getFirst().gcCount();
        for (Sample s : samples) {
            if (s.gcCount() >= gcAtStart + 2) return Math.max(configured, s.seconds());
        }
        return configured;
    }

    /** The problems of a run: drift of any series after warm-up, a wrong body, errors at or above 0.1%. */
    static List<String> verdict(List<Sample> samples, double warmUpSeconds) {
        List<String> p = new ArrayList<>();
        List<Sample> after =
                samples.stream().filter(s -> s.seconds() >= warmUpSeconds).toList();
        double[] t = after.stream().mapToDouble(Sample::seconds).toArray();
        addIfBad(
                p,
                Figures.drift(
                        "anonymous RSS (MiB)",
                        t,
                        after.stream()
                                .mapToDouble(s -> s.process().rssAnonKiB() / 1024.0)
                                .toArray(),
                        RSS_MIB_PER_HOUR,
                        RSS_FLOOR_MIB));
        addIfBad(
                p,
                Figures.drift(
                        "fds",
                        t,
                        after.stream().mapToDouble(s -> s.process().fds()).toArray(),
                        FDS_PER_HOUR,
                        FDS_FLOOR));
        addIfBad(
                p,
                Figures.drift(
                        "threads",
                        t,
                        after.stream().mapToDouble(s -> s.process().threads()).toArray(),
                        THREADS_PER_HOUR,
                        THREADS_FLOOR));
        addIfBad(
                p,
                Figures.drift(
                        "direct (MiB)",
                        t,
                        after.stream()
                                .mapToDouble(s -> s.process().directBytes() / 1048576.0)
                                .toArray(),
                        DIRECT_MIB_PER_HOUR,
                        DIRECT_FLOOR_MIB));
        if (!samples.isEmpty()) {
            Sample last = samples.getLast();
            if (last.wrong() > 0) p.add(last.wrong() + " wrong bodies");
            if (last.requests() == 0) p.add("no requests were made");
            else if (last.errors() * 1000 >= last.requests())
                p.add("errors %d of %d requests (>= 0.1%%)".formatted(last.errors(), last.requests()));
        }
        return p;
    }

    private static void addIfBad(List<String> problems, String reason) {
        if (reason != null) problems.add(reason);
    }

    static String header() {
        return "|   t s | req/s | errors | wrong | RSS MiB | anon MiB | fds | threads | direct MiB | GC ms | GCs | server 5xx |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|---|";
    }

    static String line(Sample s, Sample previous) {
        double dt = previous == null ? s.seconds() : s.seconds() - previous.seconds();
        long dr = s.requests() - (previous == null ? 0 : previous.requests());
        double dgc = s.gcSeconds() - (previous == null ? 0 : previous.gcSeconds());
        double dcount = s.gcCount() - (previous == null ? 0 : previous.gcCount());
        return "| %5.0f | %5.0f | %d | %d | %d | %d | %d | %d | %s | %.0f | %.0f | %.0f |"
                .formatted(
                        s.seconds(),
                        dt > 0 ? dr / dt : 0,
                        s.errors(),
                        s.wrong(),
                        s.process().rssKiB() / 1024,
                        s.process().rssAnonKiB() / 1024,
                        s.process().fds(),
                        s.process().threads(),
                        Figures.mib(s.process().directBytes()),
                        dgc * 1000,
                        dcount,
                        s.server5xx());
    }

    /** Per series: first and last reading after warm-up, and the least-squares slope per hour. */
    static String summary(List<Sample> samples, double warmUpSeconds, String reload) {
        List<Sample> after =
                samples.stream().filter(s -> s.seconds() >= warmUpSeconds).toList();
        if (after.size() < 2) return "(too few samples after warm-up for slopes)";
        double[] t = after.stream().mapToDouble(Sample::seconds).toArray();
        StringBuilder b =
                new StringBuilder("| series | after warm-up | at end | slope /h | limit /h |\n|---|---|---|---|---|\n");
        row(
                b,
                "RSS MiB (all)",
                t,
                after.stream().mapToDouble(s -> s.process().rssKiB() / 1024.0).toArray(),
                Double.NaN);
        row(
                b,
                "RSS MiB (anonymous)",
                t,
                after.stream()
                        .mapToDouble(s -> s.process().rssAnonKiB() / 1024.0)
                        .toArray(),
                RSS_MIB_PER_HOUR);
        row(b, "fds", t, after.stream().mapToDouble(s -> s.process().fds()).toArray(), FDS_PER_HOUR);
        row(
                b,
                "threads",
                t,
                after.stream().mapToDouble(s -> s.process().threads()).toArray(),
                THREADS_PER_HOUR);
        row(
                b,
                "direct MiB",
                t,
                after.stream()
                        .mapToDouble(s -> s.process().directBytes() / 1048576.0)
                        .toArray(),
                DIRECT_MIB_PER_HOUR);
        Sample first = after.getFirst();
        Sample last = after.getLast();
        double span = last.seconds() - first.seconds();
        b.append("| GC time | %.2f s | %.2f s | %.0f ms/min | - |\n"
                .formatted(
                        first.gcSeconds(), last.gcSeconds(), (last.gcSeconds() - first.gcSeconds()) * 60_000 / span));
        b.append("| requests | %d | %d | %.0f/s | - |\n"
                .formatted(first.requests(), last.requests(), (last.requests() - first.requests()) / span));
        b.append("| errors / wrong | %d / %d | %d / %d | - | < 0.1%% / 0 |\n"
                .formatted(first.errors(), first.wrong(), last.errors(), last.wrong()));
        b.append("| config reload | | %s | | applied |\n".formatted(reload));
        return b.toString();
    }

    private static void row(StringBuilder b, String name, double[] t, double[] v, double limit) {
        b.append("| %s | %.1f | %.1f | %+.2f | %s |\n"
                .formatted(
                        name,
                        v[0],
                        v[v.length - 1],
                        Figures.slope(t, v) * 3600,
                        Double.isNaN(limit) ? "- (mapped files count)" : "%.0f".formatted(limit)));
    }

    private Sample sample(double seconds) throws IOException, InterruptedException {
        Figures.Snapshot p = ProcessReadings.snapshot(rig.edge);
        double[] gc = ProcessReadings.gc(rig.edge.process.pid());
        double server5xx = 0;
        for (String line : rig.edge.metrics().split("\n")) {
            if (line.startsWith("videoedge_http_requests_total{") && line.contains("status=\"5")) {
                server5xx += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return new Sample(seconds, requests.get(), errors.get(), wrong.get(), p, gc[0], gc[1], server5xx);
    }

    /** Changes a live field (keepAlive) in the server's config file and waits for the server to apply it. */
    private String reload() throws Exception {
        Path config = rig.edge.dir.resolve("edge-server.yaml");
        String text = Files.readString(config);
        if (!text.contains("\nkeepAlive: 2m")) return "keepAlive: 2m not found in " + config;
        Files.writeString(config, text.replace("\nkeepAlive: 2m", "\nkeepAlive: 90s"));
        String series = "videoedge_config_reloads_total{result=\"applied\"}";
        for (int i = 0; i < 50; i++) {
            double applied = io.videoedge.server.testing.Metrics.value(rig.edge.metrics(), series);
            if (applied >= 1) return "applied (keepAlive 2m -> 90s)";
            Thread.sleep(200);
        }
        return "not applied within 10 s";
    }

    private void client(boolean tls, SplittableRandom random, long pause) {
        List<String> files = List.copyOf(staticFiles.keySet());
        while (running.get()) {
            int dice = random.nextInt(100);
            String path;
            byte[] want;
            if (dice < 55) {
                path = files.get(random.nextInt(files.size()));
                want = staticFiles.get(path);
            } else if (dice < 90) {
                path = "/o/soak-hot-" + random.nextInt(64) + "-" + (64 << random.nextInt(4)) + "k.m4s";
                want = FaultyOrigin.body(path, 0);
            } else {
                path = "/o/soak-miss-" + misses.incrementAndGet() + "-128k.m4s";
                want = FaultyOrigin.body(path, 0);
            }
            URI uri = tls ? rig.edge.https(path) : rig.edge.http(path);
            try {
                HttpResponse<byte[]> r = rig.get(uri);
                if (r.statusCode() != 200) error(uri + " answered " + r.statusCode());
                else if (!Arrays.equals(r.body(), want)) {
                    wrong.incrementAndGet();
                    error(uri + " served a wrong body of " + r.body().length + " bytes");
                }
            } catch (IOException e) {
                error(uri + ": " + e);
            } catch (InterruptedException e) {
                return;
            }
            requests.incrementAndGet();
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void error(String what) {
        errors.incrementAndGet();
        synchronized (firstErrors) {
            if (firstErrors.size() < 5) firstErrors.add(what);
        }
    }
}
