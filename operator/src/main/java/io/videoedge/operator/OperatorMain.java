package io.videoedge.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.videoedge.operator.config.LabelList;
import io.videoedge.operator.config.OperatorSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Entry point of the operator image: {@code java -cp 'operator.jar:lib/*' io.videoedge.operator.OperatorMain}. */
@Command(
        name = "videoedge-operator",
        mixinStandardHelpOptions = true,
        version = "videoedge-operator 0.1.0",
        description = "Reconciles VideoEdge resources into tuned nodes (NodeTunings) and a host-networked, "
                + "core-pinned one-nio edge server (DaemonSet), with an honest status.",
        showDefaultValues = true,
        sortOptions = false)
public final class OperatorMain implements java.util.concurrent.Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(OperatorMain.class);

    @Option(
            names = "--metrics-port",
            defaultValue = "${env:METRICS_PORT:-8080}",
            description = "Port of /metrics (Prometheus text format; env METRICS_PORT).")
    int metricsPort;

    @Option(
            names = "--health-port",
            defaultValue = "${env:HEALTH_PORT:-8081}",
            description = "Port of /healthz and /readyz (env HEALTH_PORT).")
    int healthPort;

    @Option(
            names = "--leader-election",
            negatable = true,
            defaultValue = "${env:LEADER_ELECTION:-true}",
            fallbackValue = "true",
            description = "Reconcile only while holding the Lease " + EdgeOperator.LEASE_NAME
                    + " (env LEADER_ELECTION); " + "--no-leader-election for a single replica.")
    boolean leaderElection;

    @Option(
            names = "--lease-namespace",
            defaultValue = "${env:OPERATOR_NAMESPACE}",
            description =
                    "Namespace of the leader-election Lease (env OPERATOR_NAMESPACE; default: the client's namespace).")
    String leaseNamespace;

    @Option(
            names = "--lease-duration",
            defaultValue = "15s",
            converter = DurationConverter.class,
            description = "How long a Lease stays valid without renewal (renew deadline 2/3 of it, retry every 1/5).")
    Duration leaseDuration;

    @Option(
            names = "--namespaces",
            split = ",",
            defaultValue = "${env:WATCH_NAMESPACES:-}",
            description = "VideoEdge namespaces to watch, comma-separated (env WATCH_NAMESPACES; empty: all).")
    List<String> namespaces = List.of();

    @Option(
            names = "--edge-server-image",
            defaultValue = "${env:EDGE_SERVER_IMAGE:-" + OperatorSettings.DEFAULT_EDGE_SERVER_IMAGE + "}",
            description = "Edge server image when a VideoEdge sets no server.image (env EDGE_SERVER_IMAGE).")
    String edgeServerImage;

    @Option(
            names = "--edge-server-java-options",
            defaultValue = "${env:EDGE_SERVER_JAVA_OPTIONS:-}",
            description =
                    "JVM flags appended to the ones derived from server.memory (env EDGE_SERVER_JAVA_OPTIONS; the last of a flag wins, a collector replaces G1).")
    String edgeServerJavaOptions;

    @Option(
            names = "--recheck-interval",
            defaultValue = "30s",
            converter = DurationConverter.class,
            description = "How soon a VideoEdge refused for an unwatched object (its TLS Secret) is looked at again.")
    Duration recheckInterval;

    @Option(
            names = "--pod-monitor-labels",
            defaultValue = "${env:POD_MONITOR_LABELS:-}",
            description =
                    "Extra labels on the edge servers' PodMonitors, key=value,... (env POD_MONITOR_LABELS; the chart passes"
                            + " monitoring.labels): what your Prometheus selects PodMonitors by.")
    String podMonitorLabels;

    @Option(
            names = "--identity",
            defaultValue = "${env:POD_NAME:-${env:HOSTNAME}}",
            description = "This instance's name in the Lease and in Events (env POD_NAME, then HOSTNAME).")
    String identity;

    public static void main(String[] args) {
        System.exit(new CommandLine(new OperatorMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        OperatorSettings settings = settings();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        List.of(
                        new JvmMemoryMetrics(),
                        new JvmGcMetrics(),
                        new JvmThreadMetrics(),
                        new ClassLoaderMetrics(),
                        new ProcessorMetrics(),
                        new UptimeMetrics())
                .forEach(b -> b.bindTo(registry));

        KubernetesClient client = new KubernetesClientBuilder().build();
        String lease = null;
        if (leaderElection) {
            lease = leaseNamespace != null && !leaseNamespace.isBlank() ? leaseNamespace : client.getNamespace();
            if (lease == null) {
                throw new CommandLine.ParameterException(
                        new CommandLine(this),
                        "leader election needs a namespace for its Lease: set --lease-namespace or OPERATOR_NAMESPACE");
            }
        }
        var watched = new LinkedHashSet<String>();
        namespaces.stream().map(String::strip).filter(n -> !n.isEmpty()).forEach(watched::add);
        var options =
                new EdgeOperator.Options(settings, watched, lease, leaseDuration, true, registry, Clock.systemUTC());
        AtomicReference<EdgeOperator> operator = new AtomicReference<>();
        CountDownLatch stopped = new CountDownLatch(1);
        OpsEndpoints endpoints = new OpsEndpoints(
                metricsPort,
                healthPort,
                registry,
                () -> operator.get() == null ? null : operator.get().runtimeInfo());
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            log.info("Shutting down");
                            if (operator.get() != null) {
                                operator.get().close();
                            }
                            endpoints.close();
                            client.close();
                            stopped.countDown();
                        },
                        "shutdown"));
        operator.set(EdgeOperator.start(client, options));
        stopped.await();
        return 0;
    }

    /** 30s, 5m, 500ms, or an ISO-8601 duration (PT30S). */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String v = value.strip().toLowerCase(java.util.Locale.ROOT);
            if (v.startsWith("pt") || v.startsWith("p")) {
                return Duration.parse(value.strip().toUpperCase(java.util.Locale.ROOT));
            }
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            long n = Long.parseLong(v.substring(0, v.length() - 1));
            return switch (v.charAt(v.length() - 1)) {
                case 's' -> Duration.ofSeconds(n);
                case 'm' -> Duration.ofMinutes(n);
                case 'h' -> Duration.ofHours(n);
                default ->
                    throw new CommandLine.TypeConversionException("not a duration: " + value + " (try 30s, 5m, 1h)");
            };
        }
    }

    /** The parsed options as settings; without an identity, a random one. */
    OperatorSettings settings() {
        String id = identity == null || identity.isBlank() ? "videoedge-operator-" + UUID.randomUUID() : identity;
        Map<String, String> labels;
        try {
            labels = LabelList.parse(podMonitorLabels);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this), "--pod-monitor-labels: " + e.getMessage(), e);
        }
        return new OperatorSettings(edgeServerImage, edgeServerJavaOptions, recheckInterval, id, labels);
    }
}
