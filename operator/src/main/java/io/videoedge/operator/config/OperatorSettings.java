package io.videoedge.operator.config;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the operator was installed with (flags or environment, see {@link OperatorMain}).
 *
 * @param edgeServerImage image of the edge server when a VideoEdge names none
 * @param edgeServerJavaOptions JVM flags appended to the derived ones (the last of a flag wins; a collector
 *     replaces G1)
 * @param recheckInterval how soon a VideoEdge refused for something the operator does not watch
 *     (its TLS Secret) is looked at again
 * @param identity this instance's name in Events and in the leader-election Lease
 * @param podMonitorLabels extra labels on the edge servers' PodMonitors (what a Prometheus selects
 *     PodMonitors by, e.g. kube-prometheus-stack's {@code release}); the chart passes {@code monitoring.labels}
 */
public record OperatorSettings(
        String edgeServerImage,
        String edgeServerJavaOptions,
        Duration recheckInterval,
        String identity,
        Map<String, String> podMonitorLabels) {
    public static final String DEFAULT_EDGE_SERVER_IMAGE = "videoedge/edge-server:dev";

    public OperatorSettings {
        // in the order given (Map.copyOf would iterate in an order that changes from one JVM to the next)
        podMonitorLabels = Collections.unmodifiableMap(new LinkedHashMap<>(podMonitorLabels));
    }

    public OperatorSettings(
            String edgeServerImage, String edgeServerJavaOptions, Duration recheckInterval, String identity) {
        this(edgeServerImage, edgeServerJavaOptions, recheckInterval, identity, Map.of());
    }

    public static OperatorSettings defaults(String identity) {
        return new OperatorSettings(DEFAULT_EDGE_SERVER_IMAGE, "", Duration.ofSeconds(30), identity);
    }

    public OperatorSettings withRecheckInterval(Duration interval) {
        return new OperatorSettings(edgeServerImage, edgeServerJavaOptions, interval, identity, podMonitorLabels);
    }

    public OperatorSettings withPodMonitorLabels(Map<String, String> labels) {
        return new OperatorSettings(edgeServerImage, edgeServerJavaOptions, recheckInterval, identity, labels);
    }
}
