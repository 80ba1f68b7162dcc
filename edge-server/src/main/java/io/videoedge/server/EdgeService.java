package io.videoedge.server;

import io.videoedge.server.admin.AdminServer;
import io.videoedge.server.admin.PurgeEndpoint;
import io.videoedge.server.config.ConfigException;
import io.videoedge.server.config.ConfigLoader;
import io.videoedge.server.config.EdgeServerConfig;
import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.resources.BufferPool;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running whole: buffer pool, edge server, admin server, and (when started from a file) the config
 * watcher; started and drained together.
 */
public final class EdgeService implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EdgeService.class);

    private final EdgeServerConfig config;
    private final EdgeMetrics metrics;
    private final BufferPool bufferPool;
    private final EdgeServer server;
    private final AdminServer admin;
    private final ConfigReloader reloader;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private boolean shutDown;

    private EdgeService(
            EdgeServerConfig config,
            EdgeMetrics metrics,
            BufferPool bufferPool,
            EdgeServer server,
            AdminServer admin,
            ConfigReloader reloader) {
        this.config = config;
        this.metrics = metrics;
        this.bufferPool = bufferPool;
        this.server = server;
        this.admin = admin;
        this.reloader = reloader;
    }

    /** Binds and starts everything, without a config watcher; on failure nothing is left bound. */
    public static EdgeService start(EdgeServerConfig config) throws IOException {
        return start(config, null, null, Duration.ZERO);
    }

    /**
     * Binds and starts everything from a config file already loaded, and re-reads that file every
     * {@code reloadInterval} to apply live changes ({@link ConfigReloader}; zero: never).
     */
    public static EdgeService start(Path file, ConfigLoader.Loaded loaded, Duration reloadInterval) throws IOException {
        return start(loaded.config(), file, loaded, reloadInterval);
    }

    private static EdgeService start(
            EdgeServerConfig config, Path file, ConfigLoader.Loaded loaded, Duration reloadInterval)
            throws IOException {
        EdgeMetrics metrics = new EdgeMetrics();
        BufferPool pool = new BufferPool(config.bufferPool.size, config.bufferPool.chunkSize);
        ProcessMetrics.register(metrics);
        EdgeServer server = EdgeServer.create(config, metrics, pool);
        ConfigReloader reloader = null;
        AdminServer admin;
        try {
            if (file != null) reloader = new ConfigReloader(file, loaded, server, metrics);
            admin = new AdminServer(
                    config.admin,
                    metrics,
                    server::isReady,
                    server::socketsJson,
                    new PurgeEndpoint(config.admin.tokenFile, server::purge, metrics));
        } catch (ConfigException e) {
            server.stop(); // cannot happen: the same text was parsed a moment ago
            throw new IllegalStateException(e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            server.stop();
            throw e;
        }
        admin.start();
        server.start();
        if (reloader != null) reloader.start(reloadInterval);
        log.atInfo()
                .addKeyValue("adminPort", config.admin.port)
                .addKeyValue("bufferPoolBytes", pool.capacityBytes())
                .addKeyValue("config", file == null ? "" : file.toString())
                .addKeyValue("configChecksum", loaded == null ? "" : loaded.sha256())
                .addKeyValue("reloadIntervalMs", reloader == null ? 0 : reloadInterval.toMillis())
                .log("edge service running");
        return new EdgeService(config, metrics, pool, server, admin, reloader);
    }

    /** The config watcher, or null when the service was started without a file. */
    public ConfigReloader reloader() {
        return reloader;
    }

    public EdgeServer server() {
        return server;
    }

    public EdgeMetrics metrics() {
        return metrics;
    }

    public BufferPool bufferPool() {
        return bufferPool;
    }

    /** Graceful: readiness goes false, accepting stops, in-flight responses finish or the deadline cuts them. */
    public synchronized void shutdown() {
        if (shutDown) return;
        shutDown = true;
        if (reloader != null) reloader.close();
        server.drainAndStop(config.drainTimeout);
        admin.stop();
        stopped.countDown();
    }

    public void awaitShutdown() throws InterruptedException {
        stopped.await();
    }

    @Override
    public void close() {
        shutdown();
    }
}
