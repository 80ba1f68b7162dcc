package io.videoedge.server.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.metrics.EdgeMetrics;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CacheMetricsTest {
    /**
     * Prometheus' rate() needs a sample before the first increment: a series born at the first miss
     * of a new pod would keep the dashboard's hit-ratio and origin-latency panels at NaN.
     */
    @Test
    void cacheResponsesAndOriginResultsAreSeriesAtZeroBeforeTheFirstRequest() throws Exception {
        EdgeMetrics edge = new EdgeMetrics();
        new CacheMetrics(edge);

        String text = new String(edge.scrape(), StandardCharsets.US_ASCII);

        for (String r : CacheMetrics.RESPONSE_RESULTS) {
            assertThat(text).contains("videoedge_cache_responses_total{result=\"" + r + "\"} 0");
        }
        for (String r : CacheMetrics.ORIGIN_OK_RESULTS) {
            assertThat(text).contains("videoedge_origin_request_seconds_count{result=\"" + r + "\"} 0");
        }
    }

    @Test
    void anOriginErrorCountsInBothTheHistogramAndTheErrors() throws Exception {
        EdgeMetrics edge = new EdgeMetrics();
        CacheMetrics metrics = new CacheMetrics(edge);

        metrics.originRequest("timeout", 0.2);
        metrics.originRequest("ok", 0.01);

        String text = new String(edge.scrape(), StandardCharsets.US_ASCII);
        assertThat(text)
                .contains("videoedge_origin_request_seconds_count{result=\"timeout\"} 1")
                .contains("videoedge_origin_request_seconds_count{result=\"ok\"} 1")
                .contains("videoedge_origin_errors_total{kind=\"timeout\"} 1")
                .doesNotContain("videoedge_origin_errors_total{kind=\"ok\"}");
    }
}
