package io.videoedge.server;

import io.videoedge.server.config.LimitsConfig;
import io.videoedge.server.guard.Deadlines;
import io.videoedge.server.guard.Refusal;
import io.videoedge.server.metrics.EdgeMetrics;
import java.util.function.Supplier;
import one.nio.net.Session;
import one.nio.server.SelectorThread;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One daemon thread that enforces the time-based defences: every tick (a quarter of the shortest of
 * limits.headerTimeout, handshakeTimeout and minSendPeriod, 50 ms to 1 s) it asks each connection
 * whether it overran one ({@link EdgeSession#overrun}) and resets those that did
 * ({@link EdgeSession#abort}), counting each by reason. It walks the selectors' sessions as one-nio's own cleanup thread does (whose period is
 * {@code keepAlive}, too coarse for these deadlines); a selector thread never waits for it, beyond the
 * session lock a close takes.
 */
final class ConnectionGuard implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ConnectionGuard.class);

    private final Supplier<SelectorThread[]> selectors;
    private final Supplier<LimitsConfig> limits;
    private final EdgeMetrics metrics;
    private final Thread thread;
    private volatile boolean stopped;

    private ConnectionGuard(Supplier<SelectorThread[]> selectors, Supplier<LimitsConfig> limits, EdgeMetrics metrics) {
        this.selectors = selectors;
        this.limits = limits;
        this.metrics = metrics;
        this.thread = Thread.ofPlatform().name("edge-guard").daemon().unstarted(this);
    }

    static ConnectionGuard start(
            Supplier<SelectorThread[]> selectors, Supplier<LimitsConfig> limits, EdgeMetrics metrics) {
        ConnectionGuard g = new ConnectionGuard(selectors, limits, metrics);
        g.thread.start();
        return g;
    }

    @Override
    public void run() {
        while (!stopped) {
            LimitsConfig l = limits.get();
            try {
                Thread.sleep(Deadlines.tick(l.headerTimeout, l.handshakeTimeout, l.minSendPeriod));
            } catch (InterruptedException e) {
                return;
            }
            try {
                sweep(System.currentTimeMillis());
            } catch (RuntimeException e) {
                log.atError().setCause(e).log("connection guard sweep failed");
            }
        }
    }

    /** One pass over every connection; returns how many were closed. */
    int sweep(long now) {
        int closed = 0;
        for (SelectorThread st : selectors.get()) {
            for (Session s : st.selector) {
                if (!(s instanceof EdgeSession session)) continue;
                Refusal r = session.overrun(now);
                if (r != null) {
                    metrics.refusedConnection(r.label);
                    log.atDebug()
                            .addKeyValue("client", session.remoteHost())
                            .addKeyValue("reason", r.label)
                            .log("connection cut by a defence");
                    session.abort();
                    closed++;
                }
            }
        }
        return closed;
    }

    void stop() {
        stopped = true;
        thread.interrupt();
    }
}
