package io.videoedge.server.config;

import one.nio.config.Config;

/**
 * The plain-HTTP admin listener: /metrics (Prometheus), /healthz and /readyz (kubelet probes), and
 * {@code POST /admin/purge} when {@code tokenFile} is set.
 *
 * <pre>
 * admin:
 *   port: 9400
 *   tokenFile: /etc/videoedge/admin-token/token   # the bearer token purge requests must carry
 * </pre>
 *
 * <p>{@code tokenFile}: an absolute path; the file is read on every purge request (a rotated Secret
 * needs no restart). Without it, purge requests are refused (403).
 */
@Config
public class AdminConfig {
    public String address = "0.0.0.0";
    public int port = 9400;
    public String tokenFile;
}
