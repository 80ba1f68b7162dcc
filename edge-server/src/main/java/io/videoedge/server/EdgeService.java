package io.videoedge.server;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.videoedge.server.admin.AdminServer;
import io.videoedge.server.config.EdgeServerConfig;
import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.send.BufferPool;

/** The running whole: buffer pool, edge server, admin server; started and drained together. */
public final class EdgeService implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EdgeService.class);

    private final EdgeServerConfig config;
    private final EdgeMetrics metrics;
    private final BufferPool bufferPool;
    private final EdgeServer server;
    private final AdminServer admin;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private boolean shutDown;

    private EdgeService(EdgeServerConfig config, EdgeMetrics metrics, BufferPool bufferPool, EdgeServer server, AdminServer admin) {
        this.config = config;
        this.metrics = metrics;
        this.bufferPool = bufferPool;
        this.server = server;
        this.admin = admin;
    }

    /** Binds and starts everything; on failure nothing is left bound. */
    public static EdgeService start(EdgeServerConfig config) throws IOException {
        EdgeMetrics metrics = new EdgeMetrics();
        BufferPool pool = new BufferPool(config.bufferPool.size, config.bufferPool.chunkSize);
        ProcessMetrics.register(metrics);
        EdgeServer server = EdgeServer.create(config, metrics, pool);
        AdminServer admin;
        try {
            admin = new AdminServer(config.admin, metrics, server::isReady);
        } catch (IOException | RuntimeException e) {
            server.stop();
            throw e;
        }
        admin.start();
        server.start();
        log.atInfo().addKeyValue("adminPort", config.admin.port).addKeyValue("bufferPoolBytes", pool.capacityBytes()).log("edge service running");
        return new EdgeService(config, metrics, pool, server, admin);
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
