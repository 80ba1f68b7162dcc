package io.videoedge.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class FiguresTest {
    private static final Figures.Limits LIMITS = new Figures.Limits(0.99, 32, 4, 48L << 20, 900L << 10);
    private static final Figures.Snapshot BEFORE = new Figures.Snapshot(200 << 10, 40, 30, 64L << 20, 150 << 10);

    @Test
    void theSlopeIsTheLeastSquaresLine() {
        assertThat(Figures.slope(new double[] {0, 1, 2, 3}, new double[] {1, 3, 5, 7}))
                .isEqualTo(2.0);
        assertThat(Figures.slope(new double[] {0, 1, 2}, new double[] {5, 4, 6}))
                .isEqualTo(0.5);
        assertThat(Figures.slope(new double[] {1}, new double[] {1})).isZero();
        assertThat(Figures.slope(new double[] {2, 2}, new double[] {1, 9})).isZero();
    }

    @Test
    void driftNeedsBothASteepSlopeAndRealGrowth() {
        double[] t = {0, 60, 120, 180};
        // 1 fd a minute: 60/h over a 3 min span, 3 fds of growth: under the floor of 10
        assertThat(Figures.drift("fds", t, new double[] {40, 41, 42, 43}, 20, 10))
                .isNull();
        // 10 fds a minute: 30 over the span, 600/h
        assertThat(Figures.drift("fds", t, new double[] {40, 50, 60, 70}, 20, 10))
                .startsWith("fds grows 600.0/h");
        // noise with a spike that ends lower: no drift
        assertThat(Figures.drift("fds", t, new double[] {40, 90, 41, 40}, 20, 10))
                .isNull();
        assertThat(Figures.drift("fds", new double[] {0, 1}, new double[] {1, 2}, 20, 10))
                .contains("too few samples");
    }

    @Test
    void percentileIsNearestRank() {
        long[] v = new long[100];
        for (int i = 0; i < 100; i++) v[i] = i + 1;
        assertThat(Figures.percentile(v, 0.99)).isEqualTo(99);
        assertThat(Figures.percentile(new long[] {7}, 0.99)).isEqualTo(7);
        assertThat(Figures.percentile(new long[0], 0.99)).isZero();
    }

    @Test
    void problemsNameEachFigureOutOfItsLimits() {
        var probe = new Figures.ProbeFigures(100, 98, 1, 12);
        var after = new Figures.Snapshot(1000 << 10, 80, 40, 200L << 20, 900 << 10);
        assertThat(Figures.problems(LIMITS, probe, BEFORE, after))
                .containsExactly(
                        "probe success 98.0% < 99.0%",
                        "1 wrong bodies served",
                        "fds 40 -> 80 (leak?)",
                        "threads 30 -> 40",
                        "direct 64.0 -> 200.0 MiB",
                        "RSS 1000 MiB > 900 MiB");
        assertThat(Figures.problems(LIMITS, new Figures.ProbeFigures(100, 100, 0, 3), BEFORE, BEFORE))
                .isEmpty();
        assertThat(Figures.probe(List.of(new Probe.Sample(2_000_000, true, false)))
                        .p99Millis())
                .isEqualTo(2.0);
    }
}
