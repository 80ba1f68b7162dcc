package io.videoedge.server.testing;

/** Reads sample values out of Prometheus text exposition. */
public final class Metrics {
    private Metrics() {}

    /** The value of a sample that must be present (a gauge, an unlabelled counter). */
    public static double required(String text, String series) {
        for (String line : text.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        throw new AssertionError("metric " + series + " is not exposed");
    }

    /** The value of the sample whose name-and-labels part equals {@code series}; 0 when absent (a labelled counter not yet incremented). */
    public static double value(String text, String series) {
        for (String line : text.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        return 0;
    }
}
