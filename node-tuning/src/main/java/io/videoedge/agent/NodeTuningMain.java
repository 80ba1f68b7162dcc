package io.videoedge.agent;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.videoedge.agent.apply.ApplyEngine;
import io.videoedge.agent.apply.PassResult;
import io.videoedge.agent.apply.RevertResult;
import io.videoedge.agent.host.HostFs;
import io.videoedge.agent.host.ProcessRunner;
import io.videoedge.agent.k8s.AgentClient;
import io.videoedge.agent.k8s.EventRecorder;
import io.videoedge.agent.k8s.NodeTuningAgent;
import io.videoedge.agent.metrics.AgentMetrics;
import io.videoedge.agent.metrics.MetricsServer;
import io.videoedge.agent.plan.Desired;
import io.videoedge.agent.plan.Setting;
import io.videoedge.agent.probe.TrafficProbe;
import io.videoedge.agent.report.StatusBuilder;
import io.videoedge.api.NodeCapabilities;
import io.videoedge.api.NodeTuningSpec;
import io.videoedge.api.TuningMode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** `node-tuning agent | plan | apply | revert`. */
@Command(
        name = "node-tuning",
        mixinStandardHelpOptions = true,
        version = "node-tuning 0.1.0",
        description = "VideoEdge node agent: tunes this node's kernel and NIC from its NodeTuning, reports, restores.",
        subcommands = {
            NodeTuningMain.Agent.class,
            NodeTuningMain.PlanCmd.class,
            NodeTuningMain.ApplyCmd.class,
            NodeTuningMain.RevertCmd.class
        })
public final class NodeTuningMain implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        // LOG_LEVEL (error, warn, info, debug; the chart sets it) before the first logger exists
        String level = System.getenv("LOG_LEVEL");
        if (level != null && !level.isBlank() && System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty(
                    "org.slf4j.simpleLogger.defaultLogLevel", level.strip().toLowerCase(java.util.Locale.ROOT));
        }
        System.exit(run(args));
    }

    public static int run(String... args) {
        return run(new PrintWriter(System.out, true), args);
    }

    /** Runs a command with its output on out (tests). */
    public static int run(PrintWriter out, String... args) {
        return run(out, new PrintWriter(System.err, true), args);
    }

    /** Runs a command with its output on out and its usage errors on err (tests). */
    static int run(PrintWriter out, PrintWriter err, String... args) {
        return new CommandLine(new NodeTuningMain())
                .registerConverter(Duration.class, NodeTuningMain::duration)
                .setOut(out)
                .setErr(err)
                .execute(args);
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    private static final Pattern DURATION = Pattern.compile("([0-9]{1,9})([smh]?)");

    /**
     * "90s", "5m", "1h" or plain seconds, more than zero: the chart's values schema admits the same
     * ({@code nodeAgent.driftInterval}), so what Helm accepts the agent runs with.
     */
    static Duration duration(String s) {
        Matcher m = DURATION.matcher(s.strip());
        long n = m.matches() ? Long.parseLong(m.group(1)) : 0;
        if (n == 0) {
            throw new CommandLine.TypeConversionException(
                    "not a duration of 1 second or more (90s, 5m, 1h, or plain seconds): '" + s + "'");
        }
        return switch (m.group(2)) {
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofSeconds(n);
        };
    }

    /** Options every command shares. */
    static class HostOptions {
        @Option(
                names = "--root",
                defaultValue = "/",
                description = "Host root: /proc and /sys are read and written under it (default: ${DEFAULT-VALUE}).")
        Path root;

        @Option(
                names = "--journal",
                defaultValue = "/var/lib/videoedge/agent/journal.json",
                description = "Journal of original values (a hostPath file; default: ${DEFAULT-VALUE}).")
        Path journal;

        @Option(
                names = "--command-timeout",
                defaultValue = "10s",
                description = "Timeout of each ethtool/modprobe run (default: ${DEFAULT-VALUE}).")
        Duration commandTimeout;

        ApplyEngine engine() {
            return ApplyEngine.onHost(root, new ProcessRunner(commandTimeout), journal);
        }
    }

    @Command(
            name = "agent",
            mixinStandardHelpOptions = true,
            description =
                    "Run in the cluster: watch this node's NodeTuning (env NODE_NAME), apply, report, restore on deletion.")
    static final class Agent implements Callable<Integer> {
        @CommandLine.Mixin
        HostOptions host = new HostOptions();

        @Option(
                names = "--node",
                defaultValue = "${env:NODE_NAME}",
                description = "This node's name (default: env NODE_NAME).")
        String node;

        @Option(
                names = "--drift-interval",
                defaultValue = "60s",
                description = "How often every value is re-checked (default: ${DEFAULT-VALUE}).")
        Duration driftInterval;

        @Option(
                names = "--metrics-port",
                defaultValue = "9401",
                description = "Port of /metrics and /healthz (default: ${DEFAULT-VALUE}).")
        int metricsPort;

        @Option(
                names = "--events-namespace",
                defaultValue = "default",
                description =
                        "Namespace of the agent's Events (NodeTuning is cluster-scoped; default: ${DEFAULT-VALUE}).")
        String eventsNamespace;

        @Override
        public Integer call() throws Exception {
            if (node == null || node.isBlank()) {
                System.err.println("node name unknown: set env NODE_NAME (downward API spec.nodeName) or --node");
                return 2;
            }
            AgentMetrics metrics = new AgentMetrics();
            // in-cluster (ServiceAccount, token re-read as it rotates) or $KUBECONFIG, as Fabric8 finds it
            KubernetesClient client = AgentClient.create(Config.autoConfigure(null));
            TrafficProbe traffic = new TrafficProbe(new HostFs(host.root));
            metrics.traffic(traffic::read);
            NodeTuningAgent agent = new NodeTuningAgent(
                    client,
                    node,
                    host.engine(),
                    metrics,
                    new EventRecorder(client, eventsNamespace, node, Clock.systemUTC()),
                    driftInterval,
                    Clock.systemUTC(),
                    traffic::read);
            try (MetricsServer ignored = new MetricsServer(metricsPort, metrics, agent::healthy)) {
                agent.start();
                CountDownLatch stop = new CountDownLatch(1);
                // stopping changes nothing on the node (no rollback on exit); deletion of the NodeTuning restores
                Runtime.getRuntime()
                        .addShutdownHook(new Thread(
                                () -> {
                                    agent.close();
                                    client.close();
                                    stop.countDown();
                                },
                                "shutdown"));
                stop.await();
            }
            return 0;
        }
    }

    /** Reads a spec file: a NodeTuning (its spec is used) or a bare NodeTuningSpec, in YAML or JSON. */
    static NodeTuningSpec readSpec(Path file) throws IOException {
        ObjectMapper yaml =
                new ObjectMapper(new YAMLFactory()).disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        JsonNode tree = yaml.readTree(file.toFile());
        JsonNode spec = tree.has("kind") && tree.has("spec") ? tree.get("spec") : tree;
        return yaml.treeToValue(spec, NodeTuningSpec.class);
    }

    static void print(PrintWriter out, PassResult r) {
        NodeCapabilities c = StatusBuilder.capabilities(r.facts());
        out.printf(
                "node: kernel %s, %s CPUs online, %d NUMA node(s), cgroup %s, congestion controls [%s], kTLS %s%n",
                c.kernel(),
                c.onlineCpus(),
                c.numaNodes(),
                c.cgroup(),
                String.join(" ", c.congestionControls()),
                c.ktls());
        for (NodeCapabilities.Nic n : c.nics()) {
            out.printf(
                    "nic %s: driver %s, %d rx queues, %d queue IRQs, numa node %d%n",
                    n.name(), n.driver(), n.rxQueues(), n.irqs().size(), n.numaNode());
        }
        for (Setting s : r.plan().settings()) {
            out.printf(
                    "%-11s %-45s %s -> %s%s%n",
                    s.state().name().toLowerCase(),
                    s.name(),
                    s.current(),
                    s.desired(),
                    s.message() == null ? "" : "  (" + s.message() + ")");
        }
        r.drifted().forEach(s -> out.printf("drift: %s was %s, re-applied %s%n", s.name(), s.current(), s.desired()));
        java.util.stream.Stream.concat(r.released().stream(), r.irqsPutBack().stream())
                .forEach(n -> out.println((r.noteProblems().contains(n) ? "problem: " : "note: ") + n));
        out.printf(
                "result: %s, fingerprint %s%s%n",
                r.outcome(), r.fingerprint(), r.error() == null ? "" : ": " + r.error());
        out.flush();
    }

    /** The spec file of plan and apply. */
    static class SpecFile {
        @Option(names = "--spec", required = true, description = "NodeTuning or NodeTuningSpec YAML file.")
        Path file;

        Desired desired() throws IOException {
            return Desired.of(readSpec(file));
        }
    }

    @Command(
            name = "plan",
            mixinStandardHelpOptions = true,
            description = "Print what apply would change on this machine; change nothing.")
    static final class PlanCmd implements Callable<Integer> {
        @CommandLine.Mixin
        HostOptions host = new HostOptions();

        @CommandLine.Mixin
        SpecFile spec = new SpecFile();

        @CommandLine.Spec
        CommandLine.Model.CommandSpec cmd;

        @Override
        public Integer call() throws IOException {
            print(cmd.commandLine().getOut(), host.engine().pass(spec.desired().withMode(TuningMode.PLAN)));
            return 0;
        }
    }

    @Command(
            name = "apply",
            mixinStandardHelpOptions = true,
            description =
                    "Apply a spec on this machine (outside Kubernetes): originals journaled, rolled back if a write fails.")
    static final class ApplyCmd implements Callable<Integer> {
        @CommandLine.Mixin
        HostOptions host = new HostOptions();

        @CommandLine.Mixin
        SpecFile spec = new SpecFile();

        @CommandLine.Spec
        CommandLine.Model.CommandSpec cmd;

        @Override
        public Integer call() throws IOException {
            PassResult r = host.engine().pass(spec.desired());
            print(cmd.commandLine().getOut(), r);
            return r.outcome() == PassResult.Outcome.APPLIED || r.outcome() == PassResult.Outcome.PLANNED ? 0 : 1;
        }
    }

    @Command(
            name = "revert",
            mixinStandardHelpOptions = true,
            description =
                    "Restore every original value in the journal; exit 1 when one is not restored (a retry tries it"
                            + " again) or the revert failed, 3 when the journal cannot be read (nothing is changed; it"
                            + " must be fixed or moved aside), 2 on a usage error.")
    static final class RevertCmd implements Callable<Integer> {
        /** Not picocli's 1 (an exception) or 2 (a usage error): the journal must be fixed or moved aside first. */
        static final int JOURNAL_UNUSABLE = 3;

        @CommandLine.Mixin
        HostOptions host = new HostOptions();

        @CommandLine.Spec
        CommandLine.Model.CommandSpec cmd;

        @Override
        public Integer call() {
            ApplyEngine engine = host.engine();
            PrintWriter err = cmd.commandLine().getErr();
            Optional<String> journalProblem = engine.journalProblem();
            if (journalProblem.isPresent()) {
                err.println("cannot revert, nothing changed: " + journalProblem.get());
                err.flush();
                return JOURNAL_UNUSABLE;
            }
            engine.earlierBootDropped()
                    .ifPresent(dropped -> err.println("note: " + dropped + "; none of them is written back"));
            err.flush();
            RevertResult r = engine.revert();
            PrintWriter out = cmd.commandLine().getOut();
            r.restored().forEach(n -> out.println("restored " + n));
            r.gone().forEach(n -> out.println("gone     " + n));
            r.failed().forEach((n, why) -> out.println("FAILED   " + n + ": " + why));
            out.printf(
                    "result: %d restored, %d gone, %d failed%n",
                    r.restored().size(), r.gone().size(), r.failed().size());
            out.flush();
            return r.complete() ? 0 : 1;
        }
    }
}
