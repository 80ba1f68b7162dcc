package io.videoedge.server.config;

import one.nio.config.Config;
import one.nio.config.Converter;
import one.nio.http.HttpServerConfig;

/**
 * The edge server configuration: one-nio's {@link HttpServerConfig} (selectors, affinity, pinAcceptors,
 * multiAcceptor, keepAlive, acceptors[] with their ssl section, all under one-nio's own field names)
 * plus the sections of our own below. Read by {@link ConfigLoader} (one-nio's ConfigParser, with our
 * schema check and validator), written by {@link ConfigWriter}, changed by path with
 * {@link ConfigOverrides}. An example is the operator's rendering of examples/videoedge.yaml,
 * testdata/edge-server/edge-server.yaml (every other config in the repository is made from it);
 * each field, its default and unit: edge-server/README.md.
 *
 * <p>Values follow ConfigParser: {@code size} is a number with an optional k/m/g suffix (1024-based),
 * {@code time} a number with ms/s/m/h/d. A comment may follow a value after whitespace and '#'.
 */
@Config
public class EdgeServerConfig extends HttpServerConfig {
    public AdminConfig admin = new AdminConfig();
    public ContentConfig content = new ContentConfig();
    public LimitsConfig limits = new LimitsConfig();
    public CacheConfig cache = new CacheConfig();
    public OriginConfig origin;
    public BufferPoolConfig bufferPool = new BufferPoolConfig();
    public TicketKeysConfig ticketKeys = new TicketKeysConfig();
    public AccessLogConfig accessLog = new AccessLogConfig();
    public SignedUrlsConfig signedUrls;

    @Converter(method = "time")
    public int drainTimeout = 25_000;
}
