package io.videoedge.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.config.ConfigDiff.Change;
import io.videoedge.server.testing.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which config changes the running server takes live and which need a restart: each row edits the
 * golden file (the operator's rendering of examples/videoedge.yaml) and names the changed fields
 * ConfigDiff must find and where LiveFields must put them.
 */
class LiveFieldsTest {
    private static final String GOLDEN = read(TestData.goldenConfig());

    /** One change: edits of the parsed golden config before and after, and the fields it must be classified as. */
    record Row(
            String name,
            Consumer<EdgeServerConfig> before,
            Consumer<EdgeServerConfig> after,
            List<String> live,
            List<String> restart) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static Row row(String name, Consumer<EdgeServerConfig> after, List<String> live, List<String> restart) {
        return new Row(name, c -> {}, after, live, restart);
    }

    private static EdgeServerConfig golden() throws ConfigException {
        return ConfigLoader.parse(GOLDEN, "golden");
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                        // live: socket options of the listeners (inherited by new connections)
                        row(
                                "sendBuf of one acceptor",
                                c -> c.acceptors[0].sendBuf = 8 << 20,
                                List.of("acceptors[0].sendBuf"),
                                List.of()),
                        row(
                                "recvBuf of both acceptors",
                                c -> {
                                    c.acceptors[0].recvBuf = 128 << 10;
                                    c.acceptors[1].recvBuf = 128 << 10;
                                },
                                List.of("acceptors[0].recvBuf", "acceptors[1].recvBuf"),
                                List.of()),
                        row(
                                "notsentLowat",
                                c -> c.acceptors[0].notsentLowat = 256 << 10,
                                List.of("acceptors[0].notsentLowat"),
                                List.of()),
                        new Row(
                                "notsentLowat set where it was unset (0)",
                                c -> c.acceptors[0].notsentLowat = 0,
                                c -> {},
                                List.of("acceptors[0].notsentLowat"),
                                List.of()),
                        // live: our own per-connection settings and one-nio's idle period
                        row("keepAlive", c -> c.keepAlive = 30_000, List.of("keepAlive"), List.of()),
                        row(
                                "limits.maxConnections",
                                c -> c.limits.maxConnections = 5000,
                                List.of("limits.maxConnections"),
                                List.of()),
                        row(
                                "limits.maxHeaderSize",
                                c -> c.limits.maxHeaderSize = 16 << 10,
                                List.of("limits.maxHeaderSize"),
                                List.of()),
                        row(
                                "limits.maxUriLength",
                                c -> c.limits.maxUriLength = 2 << 10,
                                List.of("limits.maxUriLength"),
                                List.of()),
                        row(
                                "limits.idleTimeout",
                                c -> c.limits.idleTimeout = 10_000,
                                List.of("limits.idleTimeout"),
                                List.of()),
                        row(
                                "the defences (issue 19)",
                                c -> {
                                    c.limits.headerTimeout = 5_000;
                                    c.limits.handshakeTimeout = 5_000;
                                    c.limits.maxConnectionsPerAddress = 10;
                                    c.limits.minSendBytes = 1 << 20;
                                    c.limits.minSendPeriod = 5_000;
                                    c.limits.maxPipelined = 2;
                                    c.limits.maxRequestRate = 50;
                                    c.limits.requestBurst = 20;
                                },
                                List.of(
                                        "limits.handshakeTimeout",
                                        "limits.headerTimeout",
                                        "limits.maxConnectionsPerAddress",
                                        "limits.maxPipelined",
                                        "limits.maxRequestRate",
                                        "limits.minSendBytes",
                                        "limits.minSendPeriod",
                                        "limits.requestBurst"),
                                List.of()),
                        row(
                                "several live fields at once",
                                c -> {
                                    c.keepAlive = 30_000;
                                    c.acceptors[0].sendBuf = 2 << 20;
                                    c.acceptors[1].sendBuf = 2 << 20;
                                },
                                List.of("acceptors[0].sendBuf", "acceptors[1].sendBuf", "keepAlive"),
                                List.of()),
                        // restart: back to 0 cannot be applied to a listening socket
                        row(
                                "sendBuf back to 0 (kernel default)",
                                c -> c.acceptors[0].sendBuf = 0,
                                List.of(),
                                List.of("acceptors[0].sendBuf")),
                        row(
                                "notsentLowat removed (0)",
                                c -> c.acceptors[0].notsentLowat = 0,
                                List.of(),
                                List.of("acceptors[0].notsentLowat")),
                        // restart: fixed at start
                        row("selectors", c -> c.selectors = 4, List.of(), List.of("selectors")),
                        row("affinity", c -> c.affinity = !c.affinity, List.of(), List.of("affinity")),
                        row("pinAcceptors", c -> c.pinAcceptors = !c.pinAcceptors, List.of(), List.of("pinAcceptors")),
                        row(
                                "multiAcceptor",
                                c -> c.multiAcceptor = !c.multiAcceptor,
                                List.of(),
                                List.of("multiAcceptor")),
                        row("a port", c -> c.acceptors[0].port = 8081, List.of(), List.of("acceptors[0].port")),
                        row(
                                "acceptor threads",
                                c -> c.acceptors[0].threads = 2,
                                List.of(),
                                List.of("acceptors[0].threads")),
                        row("backlog", c -> c.acceptors[0].backlog = 4096, List.of(), List.of("acceptors[0].backlog")),
                        row(
                                "reusePort",
                                c -> c.acceptors[0].reusePort = !c.acceptors[0].reusePort,
                                List.of(),
                                List.of("acceptors[0].reusePort")),
                        row(
                                "a one-nio socket field not in the live set (tos)",
                                c -> c.acceptors[0].tos = 16,
                                List.of(),
                                List.of("acceptors[0].tos")),
                        row(
                                "an acceptor removed",
                                c -> c.acceptors = new one.nio.server.AcceptorConfig[] {c.acceptors[0]},
                                List.of(),
                                List.of("acceptors[1]")),
                        row(
                                "TLS protocols",
                                c -> c.acceptors[1].ssl.protocols = "TLSv1.3",
                                List.of(),
                                List.of("acceptors[1].ssl.protocols")),
                        row(
                                "the certificate",
                                c -> c.acceptors[1].ssl.certFile = new String[] {"/etc/videoedge/tls/other.crt"},
                                List.of(),
                                List.of("acceptors[1].ssl.certFile")),
                        row("admin port", c -> c.admin.port = 9401, List.of(), List.of("admin.port")),
                        row("content root", c -> c.content.root = "/srv", List.of(), List.of("content.root")),
                        row("cache memory", c -> c.cache.memory = 256L << 20, List.of(), List.of("cache.memory")),
                        row(
                                "disk cache size",
                                c -> c.cache.disk.size = 2L << 30,
                                List.of(),
                                List.of("cache.disk.size")),
                        row(
                                "an origin added",
                                c -> {
                                    c.origin = new OriginConfig();
                                    c.origin.url = "http://origin:8080";
                                },
                                List.of(),
                                List.of("origin")),
                        row("buffer pool", c -> c.bufferPool.size = 64L << 20, List.of(), List.of("bufferPool.size")),
                        row("drainTimeout", c -> c.drainTimeout = 10_000, List.of(), List.of("drainTimeout")),
                        // mixed: nothing may be applied, not even the live part
                        row(
                                "a live and a restart field together",
                                c -> {
                                    c.acceptors[0].sendBuf = 8 << 20;
                                    c.cache.memory = 256L << 20;
                                },
                                List.of("acceptors[0].sendBuf"),
                                List.of("cache.memory")))
                .map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void classifiesEachChange(Row row) throws Exception {
        EdgeServerConfig before = golden();
        row.before().accept(before);
        EdgeServerConfig after = golden();
        row.after().accept(after);
        // each side as the server would read it: written by the operator's writer, parsed by the loader
        before = ConfigLoader.parse(ConfigWriter.write(before), "before.yaml");
        after = ConfigLoader.parse(ConfigWriter.write(after), "after.yaml");

        List<Change> changes = ConfigDiff.between(before, after);
        LiveFields.Decision d = LiveFields.classify(changes);

        assertThat(d.live()).extracting(Change::path).as("live").containsExactlyInAnyOrderElementsOf(row.live());
        assertThat(d.restart())
                .extracting(Change::path)
                .as("restart")
                .containsExactlyInAnyOrderElementsOf(row.restart());
        assertThat(d.allLive()).isEqualTo(row.restart().isEmpty());
        assertThat(d.unchanged())
                .isEqualTo(row.live().isEmpty() && row.restart().isEmpty());
        for (Change c : d.restart()) {
            assertThat(LiveFields.whyRestart(c)).as("a reason for %s", c).isNotBlank();
        }
        // the restart view the operator checksums agrees: different when a restart is needed; equal when
        // not, except that a listener's socket option set where it was 0 counts as a restart there (the
        // view cannot tell 0 -> x, live, from x -> 0, not live)
        boolean sameView = LiveFields.restartView(before).equals(LiveFields.restartView(after));
        if (!d.allLive()) {
            assertThat(sameView)
                    .as("restart view of a change that needs a restart")
                    .isFalse();
        } else if (d.live().stream().noneMatch(c -> c.field().startsWith("acceptors[]."))) {
            assertThat(sameView)
                    .as("restart view of a change without a socket option")
                    .isTrue();
        }
    }

    /** Another way to write the same thing changes nothing. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "keepAlive: 2m | keepAlive: \"120s\"   # idle",
                "sendBuf: 4m | sendBuf: 4096k",
                "reusePort: true | reusePort: 'true'"
            })
    void aDifferentSpellingIsNoChange(String from, String to) throws Exception {
        String edited =
                GOLDEN.replaceFirst(java.util.regex.Pattern.quote(from), java.util.regex.Matcher.quoteReplacement(to));
        assertThat(edited).isNotEqualTo(GOLDEN);
        assertThat(ConfigDiff.between(golden(), ConfigLoader.parse(edited, "edited.yaml")))
                .isEmpty();
    }

    @Test
    void aChangeSaysFieldOldAndNewValue() throws Exception {
        EdgeServerConfig before = golden();
        EdgeServerConfig after = golden();
        after.acceptors[0].sendBuf = 96 << 10;
        List<Change> changes = ConfigDiff.between(before, after);
        assertThat(changes).hasSize(1);
        assertThat(changes.get(0).toString()).isEqualTo("acceptors[0].sendBuf: 4194304 -> 98304");
        assertThat(changes.get(0).field()).isEqualTo("acceptors[].sendBuf");
    }

    @Test
    void reasonsNameWhyARestartIsNeeded() {
        assertThat(LiveFields.whyRestart(new Change("acceptors[1].ssl.certFile", null, null)))
                .contains("loaded at start");
        assertThat(LiveFields.whyRestart(new Change("acceptors[0].threads", 1, 2)))
                .contains("MultiAcceptorGroup");
        assertThat(LiveFields.whyRestart(new Change("acceptors[0].sendBuf", 65536, 0)))
                .contains("non-zero");
        assertThat(LiveFields.whyRestart(new Change("minWorkers", 0, 2))).isEqualTo("not in the live set");
    }

    @Test
    void theLiveSetIsExactlyWhatTheTestsProve() {
        // each of these is exercised by LiveReconfigureIT; adding one needs a test there and a README row
        assertThat(LiveFields.LIVE.keySet())
                .containsExactly(
                        "acceptors[].recvBuf",
                        "acceptors[].sendBuf",
                        "acceptors[].notsentLowat",
                        "keepAlive",
                        "limits.maxConnections",
                        "limits.maxHeaderSize",
                        "limits.maxUriLength",
                        "limits.idleTimeout",
                        "limits.headerTimeout",
                        "limits.handshakeTimeout",
                        "limits.maxConnectionsPerAddress",
                        "limits.minSendBytes",
                        "limits.minSendPeriod",
                        "limits.maxPipelined",
                        "limits.maxRequestRate",
                        "limits.requestBurst");
    }

    @Test
    void theReadmeTableListsTheLiveSet() throws Exception {
        List<String> liveRows = new ArrayList<>();
        for (String line : Files.readAllLines(
                TestData.dir().resolve("../../edge-server/README.md").normalize())) {
            if (line.startsWith("| `") && line.contains("| live |")) {
                liveRows.add(line.substring(3, line.indexOf('`', 3)));
            }
        }
        assertThat(liveRows).containsExactlyInAnyOrderElementsOf(LiveFields.LIVE.keySet());
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
