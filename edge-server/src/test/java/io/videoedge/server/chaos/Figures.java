package io.videoedge.server.chaos;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The figures of a run and the pure rules that judge them (no I/O here). */
final class Figures {
    private Figures() {}

    /** What the well-behaved client saw. */
    record ProbeFigures(int requests, int ok, int wrong, double p99Millis) {
        double successRatio() {
            return requests == 0 ? 0 : (double) ok / requests;
        }

        String success() {
            return requests == 0 ? "-" : "%d/%d (%.1f%%)".formatted(ok, requests, 100 * successRatio());
        }

        String p99() {
            return requests == 0 ? "-" : "%.0f".formatted(p99Millis);
        }
    }

    /** The server process as read from /proc and its metrics. */
    /** @param rssAnonKiB the anonymous part of RSS (RssAnon: heap, native memory), without mapped files */
    record Snapshot(long rssKiB, int fds, int threads, long directBytes, long rssAnonKiB) {
        static final Snapshot NONE = new Snapshot(-1, -1, -1, -1, -1);
    }

    /** Limits a scenario's after-figures are held to. */
    record Limits(double minSuccess, int fdSlack, int threadSlack, long directSlackBytes, long rssLimitKiB) {}

    static ProbeFigures probe(List<Probe.Sample> samples) {
        long[] nanos = samples.stream().mapToLong(Probe.Sample::nanos).sorted().toArray();
        int ok = (int) samples.stream().filter(Probe.Sample::ok).count();
        int wrong = (int) samples.stream().filter(Probe.Sample::wrong).count();
        return new ProbeFigures(samples.size(), ok, wrong, percentile(nanos, 0.99) / 1e6);
    }

    /** The nearest-rank percentile of sorted values (0 for none). */
    static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) return 0;
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length, rank) - 1)];
    }

    /**
     * The problems with a scenario's figures: the probe's success below the minimum (when it ran), a
     * wrong body served, descriptors, threads or direct memory not back within their slack of the
     * before-figures, RSS above its ceiling.
     */
    static List<String> problems(Limits limits, ProbeFigures probe, Snapshot before, Snapshot after) {
        List<String> p = new ArrayList<>();
        if (probe != null && probe.requests() > 0 && probe.successRatio() < limits.minSuccess())
            p.add("probe success %.1f%% < %.1f%%".formatted(100 * probe.successRatio(), 100 * limits.minSuccess()));
        if (probe != null && probe.wrong() > 0) p.add(probe.wrong() + " wrong bodies served");
        if (after.fds() > before.fds() + limits.fdSlack())
            p.add("fds %d -> %d (leak?)".formatted(before.fds(), after.fds()));
        if (after.threads() > before.threads() + limits.threadSlack())
            p.add("threads %d -> %d".formatted(before.threads(), after.threads()));
        if (after.directBytes() > before.directBytes() + limits.directSlackBytes())
            p.add("direct %s -> %s MiB".formatted(mib(before.directBytes()), mib(after.directBytes())));
        if (after.rssKiB() > limits.rssLimitKiB())
            p.add("RSS %d MiB > %d MiB".formatted(after.rssKiB() / 1024, limits.rssLimitKiB() / 1024));
        return p;
    }

    static String mib(long bytes) {
        return "%.1f".formatted(bytes / 1048576.0);
    }

    /** A least-squares line through (x, y): the slope, in y per unit of x (0 for fewer than two points). */
    static double slope(double[] x, double[] y) {
        int n = x.length;
        if (n < 2) return 0;
        double mx = Arrays.stream(x).average().orElse(0);
        double my = Arrays.stream(y).average().orElse(0);
        double sxy = 0;
        double sxx = 0;
        for (int i = 0; i < n; i++) {
            sxy += (x[i] - mx) * (y[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
        }
        return sxx == 0 ? 0 : sxy / sxx;
    }

    /**
     * Drift verdict for one series: bad when the least-squares slope over the samples after warm-up,
     * per hour, exceeds {@code perHourLimit} and the growth it explains over the measured span exceeds
     * {@code floor} (so that a short run's noise is not called a leak, and a long run's slow creep is).
     *
     * @param seconds sample times in seconds
     * @return null when fine, else the reason
     */
    static String drift(String name, double[] seconds, double[] values, double perHourLimit, double floor) {
        if (seconds.length < 3) return name + ": too few samples after warm-up to judge";
        double perSecond = slope(seconds, values);
        double perHour = perSecond * 3600;
        double span = seconds[seconds.length - 1] - seconds[0];
        double growth = perSecond * span;
        if (perHour > perHourLimit && growth > floor)
            return "%s grows %.1f/h (limit %.1f/h), %.1f over the run (floor %.1f)"
                    .formatted(name, perHour, perHourLimit, growth, floor);
        return null;
    }
}
