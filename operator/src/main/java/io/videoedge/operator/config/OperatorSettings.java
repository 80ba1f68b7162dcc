package io.videoedge.operator.config;

import java.time.Duration;

/**
 * What the operator was installed with (flags or environment, see {@link OperatorMain}).
 *
 * @param edgeServerImage image of the edge server when a VideoEdge names none
 * @param edgeServerJavaOptions JVM flags appended to the derived ones (the last of a flag wins; a collector
 *     replaces G1)
 * @param recheckInterval how soon a VideoEdge refused for something the operator does not watch
 *     (its TLS Secret) is looked at again
 * @param identity this instance's name in Events and in the leader-election Lease
 */
public record OperatorSettings(
        String edgeServerImage, String edgeServerJavaOptions, Duration recheckInterval, String identity) {
    public static final String DEFAULT_EDGE_SERVER_IMAGE = "videoedge/edge-server:dev";

    public static OperatorSettings defaults(String identity) {
        return new OperatorSettings(DEFAULT_EDGE_SERVER_IMAGE, "", Duration.ofSeconds(30), identity);
    }

    public OperatorSettings withRecheckInterval(Duration interval) {
        return new OperatorSettings(edgeServerImage, edgeServerJavaOptions, interval, identity);
    }
}
