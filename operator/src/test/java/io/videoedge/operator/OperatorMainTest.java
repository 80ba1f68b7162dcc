package io.videoedge.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.videoedge.operator.config.OperatorSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class OperatorMainTest {
    @Test
    void helpListsTheOptionsAndExitsZero() {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new OperatorMain()).setOut(new PrintWriter(out));
        assertThat(cli.execute("--help")).isZero();
        assertThat(out.toString())
                .contains(
                        "Usage: videoedge-operator",
                        "--metrics-port",
                        "--health-port",
                        "--[no-]leader-election",
                        "--lease-namespace",
                        "--edge-server-image",
                        "--edge-server-java-options");
    }

    @Test
    void optionsBecomeSettings() {
        OperatorMain main = new OperatorMain();
        new CommandLine(main)
                .parseArgs(
                        "--edge-server-image",
                        "registry.local/edge:7",
                        "--edge-server-java-options",
                        "-XX:+UseZGC",
                        "--recheck-interval",
                        "5s",
                        "--identity",
                        "op-1",
                        "--no-leader-election",
                        "--namespaces",
                        "a,b");
        assertThat(main.settings())
                .isEqualTo(new OperatorSettings("registry.local/edge:7", "-XX:+UseZGC", Duration.ofSeconds(5), "op-1"));
        assertThat(main.leaderElection).isFalse();
        assertThat(main.namespaces).containsExactly("a", "b");
        // the chart's environment (LEADER_ELECTION, WATCH_NAMESPACES, METRICS_PORT, ...) is not set here: the defaults
        // hold
        assertThat(main.metricsPort).isEqualTo(8080);
        assertThat(main.healthPort).isEqualTo(8081);
    }

    @Test
    void podMonitorLabelsAreCheckedAtStart() {
        OperatorMain main = new OperatorMain();
        new CommandLine(main).parseArgs("--pod-monitor-labels", "release=kube-prometheus,team=video");
        assertThat(main.settings().podMonitorLabels())
                .containsExactly(Map.entry("release", "kube-prometheus"), Map.entry("team", "video"));

        // settings() is the first thing the operator does: a wrong label stops it with a usage error (exit 2)
        OperatorMain wrong = new OperatorMain();
        new CommandLine(wrong).parseArgs("--pod-monitor-labels", "release kube-prometheus");
        assertThatThrownBy(wrong::settings)
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage("--pod-monitor-labels: 'release kube-prometheus' is not key=value");
    }

    @Test
    void durationsInTheUsualShortForms() {
        var c = new OperatorMain.DurationConverter();
        assertThat(c.convert("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(c.convert("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.convert("PT1H")).isEqualTo(Duration.ofHours(1));
        assertThatThrownBy(() -> c.convert("5x")).isInstanceOf(CommandLine.TypeConversionException.class);
    }
}
