package io.videoedge.operator.purge;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code videoedge_purge_node_calls_total{result=acknowledged|refused|unreachable}}: calls to the
 * nodes' edge servers; {@code videoedge_purges_total{outcome=complete|failed|complete_after_deadline}}:
 * purges that completed by their deadline, that missed it, and that completed after missing it (counted
 * in failed before).
 */
final class PurgeMetrics {
    private final MeterRegistry registry;

    PurgeMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (String r : new String[] {"acknowledged", "refused", "unreachable"}) call(r, 0);
        for (String o : new String[] {"complete", "failed", "complete_after_deadline"}) finished(o, 0);
    }

    void call(NodeCall c) {
        call(
                switch (c) {
                    case NodeCall.Acknowledged a -> "acknowledged";
                    case NodeCall.Refused r -> "refused";
                    case NodeCall.Unreachable u -> "unreachable";
                },
                1);
    }

    private void call(String result, int n) {
        Counter.builder("videoedge.purge.node.calls")
                .description("Calls to the edge servers' POST /admin/purge by result")
                .tag("result", result)
                .register(registry)
                .increment(n);
    }

    void finished(String outcome, int n) {
        Counter.builder("videoedge.purges")
                .description("CachePurges by outcome: complete by the deadline, failed (deadline missed), "
                        + "complete_after_deadline (every node acknowledged after a failed)")
                .tag("outcome", outcome)
                .register(registry)
                .increment(n);
    }
}
