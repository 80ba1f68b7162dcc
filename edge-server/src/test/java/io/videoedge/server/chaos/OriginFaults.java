package io.videoedge.server.chaos;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A faulty origin under the cache: down, slow, truncated, lying about its length, stalled, changing its
 * validators; every body a client gets is checked against the one its ETag names.
 */
final class OriginFaults {
    private final Rig rig;
    private int unique;

    OriginFaults(Rig rig) {
        this.rig = rig;
    }

    /** A number no path of this run has used. */
    int next() {
        return ++unique;
    }

    /** Outcomes of requests: status counts, cut bodies, wrong bodies (any wrong one is a problem). */
    static final class Outcomes {
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
    Outcomes fetch(String path, int count, List<String> problems) throws Exception {
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
            String path = "/o/health-" + (next()) + "-4k.m4s";
            if (rig.get(rig.http(path)).statusCode() == 200) return (System.nanoTime() - start) / 1e9;
            Thread.sleep(100);
        }
        return -1;
    }

    /** Each origin scenario starts with an origin the edge reaches (not one its breaker still avoids). */
    private void originHealthy(List<String> problems) throws Exception {
        if (secondsUntilOriginServes(10) < 0) problems.add("the origin was not served for 10 s before the scenario");
    }

    String originFault(String kind, int kib, List<String> problems) throws Exception {
        originHealthy(problems);
        String path = "/" + kind + "/obj-" + (next()) + "-" + kib + "k.m4s";
        Outcomes first = fetch(path, 8, problems);
        // and again, once the first fill is over: nothing wrong may have been kept
        Outcomes again = fetch(path, 4, problems);
        return "8 at once: %s; then 4: %s; origin asked %d times"
                .formatted(first.summary(), again.summary(), rig.origin.requests(path));
    }

    /** After a response with extra bytes: objects fetched next (perhaps on that origin connection) must be theirs. */
    String afterPoison(List<String> problems) throws Exception {
        Outcomes o = new Outcomes();
        for (int i = 0; i < 16; i++) {
            Outcomes one = fetch("/o/after-long-" + (next()) + "-64k.m4s", 1, problems);
            one.counts.forEach((k, v) -> o.add(k, 0));
        }
        return "16 other misses: " + o.counts;
    }

    String originDown(List<String> problems) throws Exception {
        originHealthy(problems);
        rig.origin.stop();
        try {
            Outcomes misses = fetch("/o/down-" + (next()) + "-64k.m4s", 16, problems);
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

    String validators(List<String> problems) throws Exception {
        originHealthy(problems);
        String path = "/chg/obj-" + (next()) + "-1024k.m4s";
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
}
