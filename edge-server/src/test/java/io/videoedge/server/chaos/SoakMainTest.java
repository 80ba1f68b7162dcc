package io.videoedge.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SoakMainTest {
    static SoakMain.Sample sample(double t, long anonMiB, int fds, double gcs, long requests, long errors) {
        return new SoakMain.Sample(
                t,
                requests,
                errors,
                0,
                new Figures.Snapshot(anonMiB << 10, fds, 30, 64L << 20, anonMiB << 10),
                0,
                gcs,
                0);
    }

    @Test
    void theWarmUpLastsUntilTwoCollectionsHaveRun() {
        List<SoakMain.Sample> s =
                List.of(sample(0, 400, 40, 1, 0, 0), sample(15, 400, 40, 2, 10, 0), sample(30, 420, 40, 3, 20, 0));
        assertThat(SoakMain.warmUpEnd(s, 10)).isEqualTo(30);
        assertThat(SoakMain.warmUpEnd(s, 60)).isEqualTo(60);
    }

    @Test
    void aGrowingSeriesAfterWarmUpIsDriftAFlatOneIsNot() {
        List<SoakMain.Sample> flat = new ArrayList<>();
        List<SoakMain.Sample> leaking = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            flat.add(sample(i * 15, 400 + (i % 3), 40, 10 + i, 1000L * i, 0));
            leaking.add(sample(i * 15, 400, 40 + i, 10 + i, 1000L * i, 0)); // one descriptor every 15 s
        }
        assertThat(SoakMain.verdict(flat, 60)).isEmpty();
        assertThat(SoakMain.verdict(leaking, 60)).singleElement().asString().startsWith("fds grows 240.0/h");
        List<SoakMain.Sample> erring = new ArrayList<>(flat);
        erring.add(sample(600, 400, 40, 60, 40_000, 40));
        assertThat(SoakMain.verdict(erring, 60)).containsExactly("errors 40 of 40000 requests (>= 0.1%)");
    }
}
