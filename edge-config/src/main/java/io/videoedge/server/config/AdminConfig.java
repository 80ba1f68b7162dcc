package io.videoedge.server.config;

import one.nio.config.Config;

/** The plain-HTTP admin listener: /metrics (Prometheus), /healthz and /readyz (kubelet probes). */
@Config
public class AdminConfig {
    public String address = "0.0.0.0";
    public int port = 9400;
}
