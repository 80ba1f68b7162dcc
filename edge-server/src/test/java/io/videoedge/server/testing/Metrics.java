package io.videoedge.server.testing;

/** Reads sample values out of Prometheus text exposition. */
public final class Metrics {
    private Metrics() {
    }

    /** The value of the sample whose name-and-labels part equals {@code series}; 0 when absent. */
    public static double value(String text, String series) {
        for (String line : text.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        return 0;
    }
}
