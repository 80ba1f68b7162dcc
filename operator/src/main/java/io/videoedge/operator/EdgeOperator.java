package io.videoedge.operator;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.RuntimeInfo;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.videoedge.operator.config.OperatorSettings;
import io.videoedge.operator.purge.CachePurgeReconciler;
import io.videoedge.operator.purge.NodeEndpoints;
import io.videoedge.operator.purge.PurgeProgress;
import io.videoedge.operator.reconciler.VideoEdgeReconciler;
import io.videoedge.operator.status.StatusMetrics;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator: JOSDK with the VideoEdge and CachePurge controllers, Micrometer metrics, and (optionally) leader
 * election on a Lease. {@link #close()} stops it and hands the Lease over at once (instead of
 * letting it expire), so a restarted or upgraded operator takes over without waiting.
 */
public final class EdgeOperator implements AutoCloseable {
    public static final String LEASE_NAME = "videoedge-operator";
    private static final Logger log = LoggerFactory.getLogger(EdgeOperator.class);

    /**
     * @param namespaces VideoEdge namespaces to watch; empty: all
     * @param leaseNamespace where the leader-election Lease lives; null: no leader election
     * @param exitOnLostLeadership exit the process when leadership is lost (production), or only log (tests)
     */
    public record Options(
            OperatorSettings settings,
            Set<String> namespaces,
            String leaseNamespace,
            Duration leaseDuration,
            boolean exitOnLostLeadership,
            MeterRegistry registry,
            Clock clock,
            NodeEndpoints purgeEndpoints,
            Duration purgeLateRetry) {
        /** Purges reach each node's edge server at the node's InternalIP (host network). */
        public Options(
                OperatorSettings settings,
                Set<String> namespaces,
                String leaseNamespace,
                Duration leaseDuration,
                boolean exitOnLostLeadership,
                MeterRegistry registry,
                Clock clock) {
            this(
                    settings,
                    namespaces,
                    leaseNamespace,
                    leaseDuration,
                    exitOnLostLeadership,
                    registry,
                    clock,
                    NodeEndpoints.INTERNAL_IP,
                    PurgeProgress.LATE_RETRY);
        }
    }

    private final Operator operator;
    private final KubernetesClient client;
    private final Options options;
    private volatile boolean closing;

    private EdgeOperator(KubernetesClient client, Options options) {
        this.client = client;
        this.options = options;
        this.operator = new Operator(o -> {
            o.withKubernetesClient(client)
                    .withCloseClientOnStop(false)
                    // per VideoEdge (name, namespace tags): a handful of resources, meters removed when one is deleted
                    .withMetrics(MicrometerMetrics.newPerResourceCollectingMicrometerMetricsBuilder(options.registry())
                            .build())
                    // fail at start, with the reason, when an informer cannot list (RBAC) rather than run blind
                    .withStopOnInformerErrorDuringStartup(true);
            if (options.leaseNamespace() != null) {
                Duration lease = options.leaseDuration();
                // JOSDK's own exit-on-stop would also fire when we stop on SIGTERM, calling System.exit from
                // inside the shutdown: the process then hangs. Exit only when leadership is lost while running.
                var callbacks = new LeaderCallbacks(
                        () -> log.info("Leading: reconciling"),
                        this::lostLeadership,
                        leader -> log.info("Leader is {}", leader));
                o.withLeaderElectionConfiguration(new LeaderElectionConfiguration(
                        LEASE_NAME,
                        options.leaseNamespace(),
                        lease,
                        lease.multipliedBy(2).dividedBy(3),
                        lease.dividedBy(5),
                        options.settings().identity(),
                        callbacks,
                        false));
            }
        });
        operator.register(
                new VideoEdgeReconciler(options.settings(), options.clock(), new StatusMetrics(options.registry())),
                c -> {
                    if (!options.namespaces().isEmpty()) {
                        c.settingNamespaces(options.namespaces());
                    }
                });
        operator.register(
                new CachePurgeReconciler(
                        options.purgeEndpoints(),
                        options.registry(),
                        options.clock(),
                        options.settings().identity(),
                        options.purgeLateRetry()),
                c -> {
                    if (!options.namespaces().isEmpty()) {
                        c.settingNamespaces(options.namespaces());
                    }
                });
    }

    /** Starts the operator; with leader election it reconciles once it holds the Lease. */
    public static EdgeOperator start(KubernetesClient client, Options options) {
        EdgeOperator edge = new EdgeOperator(client, options);
        edge.operator.start();
        log.info(
                "VideoEdge operator {} started (leader election: {})",
                options.settings().identity(),
                options.leaseNamespace() == null ? "off" : options.leaseNamespace() + "/" + LEASE_NAME);
        return edge;
    }

    public RuntimeInfo runtimeInfo() {
        return operator.getRuntimeInfo();
    }

    /** Another instance may reconcile now: stop at once rather than both writing (unless we are stopping anyway). */
    private void lostLeadership() {
        if (closing) {
            return;
        }
        if (options.exitOnLostLeadership()) {
            log.error("Lost the leader-election Lease: exiting");
            new Thread(() -> System.exit(1), "lost-leadership-exit").start();
        } else {
            log.warn("Lost the leader-election Lease");
        }
    }

    @Override
    public void close() {
        closing = true;
        operator.stop();
        if (options.leaseNamespace() != null) {
            releaseLease();
        }
        log.info("VideoEdge operator {} stopped", options.settings().identity());
    }

    /** Gives up the Lease if this instance still holds it: the next instance need not wait for it to expire. */
    private void releaseLease() {
        try {
            var leases = client.leases().inNamespace(options.leaseNamespace()).withName(LEASE_NAME);
            Lease lease = leases.get();
            if (lease != null
                    && lease.getSpec() != null
                    && Objects.equals(
                            lease.getSpec().getHolderIdentity(),
                            options.settings().identity())) {
                lease.getSpec().setHolderIdentity(null);
                lease.getSpec().setLeaseDurationSeconds(1);
                client.resource(lease).update();
                log.info("Released the leader-election Lease {}/{}", options.leaseNamespace(), LEASE_NAME);
            }
        } catch (KubernetesClientException e) {
            // the Lease then expires on its own
            log.warn("Could not release the leader-election Lease: {}", e.getMessage());
        }
    }
}
