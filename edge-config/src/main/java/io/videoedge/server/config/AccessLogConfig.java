package io.videoedge.server.config;

import one.nio.config.Config;

/**
 * One JSON line per response, written off the selector threads through a bounded queue (a full queue
 * drops the line and counts it; a selector never waits). {@code path}: {@code -} for standard output
 * (the container log) or a file appended to. {@code sample}: log one response in {@code sample}
 * (1: every one). {@code queue}: lines waiting for the writer at most.
 */
@Config
public class AccessLogConfig {
    /** Standard output. */
    public static final String STDOUT = "-";

    public boolean enabled = true;
    public String path = STDOUT;
    public int sample = 1;
    public int queue = 65_536;
}
