package io.videoedge.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.tracer.common.SpanContext;
import io.prometheus.metrics.tracer.initializer.SpanContextSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class EdgeMetricsTest {
    @AfterEach
    void noTracer() {
        SpanContextSupplier.setSpanContext(null);
    }

    /**
     * The request path counts with no exemplars sampled (nothing traces requests, and sampling costs
     * every increment): none in the registry after the counting methods ran, nor in a histogram made
     * with the edge's builder, even with a tracer whose every span is sampled (with none, the library
     * would still do the sampling's work but keep nothing, which a test cannot see).
     */
    @Test
    void countingSamplesNoExemplarsEvenWithATracer() {
        SpanContextSupplier.setSpanContext(new SpanContext() {
            @Override
            public String getCurrentTraceId() {
                return "0af7651916cd43dd8448eb211c80319c";
            }

            @Override
            public String getCurrentSpanId() {
                return "b7ad6b7169203331";
            }

            @Override
            public boolean isCurrentSpanSampled() {
                return true;
            }

            @Override
            public void markCurrentSpanAsExemplar() {}
        });
        EdgeMetrics edge = new EdgeMetrics();
        var histogram = EdgeMetrics.histogramBuilder()
                .name("test_seconds")
                .help("a histogram made as the edge makes them")
                .register(edge.registry());
        for (int i = 0; i < 3; i++) { // the first observation of each data point is the one sampled
            edge.request(1, 200);
            edge.bodyBytes(EdgeMetrics.Via.SENDFILE, EdgeMetrics.Source.DISK, 1000);
            edge.refusedRequest("rate");
            edge.tlsSession("TLSv1.3", false, false);
            histogram.observe(0.01);
        }

        MetricSnapshots snapshots = edge.registry().scrape();
        int points = 0;
        for (MetricSnapshot s : snapshots) {
            if (s instanceof CounterSnapshot c) {
                for (var p : c.getDataPoints()) {
                    points++;
                    assertThat(p.getExemplar()).as(c.getMetadata().getName()).isNull();
                }
            } else if (s instanceof HistogramSnapshot h) {
                for (var p : h.getDataPoints()) {
                    points++;
                    assertThat(p.getExemplars().size())
                            .as(h.getMetadata().getName())
                            .isZero();
                }
            }
        }
        assertThat(points).as("data points looked at").isGreaterThan(4);
    }
}
