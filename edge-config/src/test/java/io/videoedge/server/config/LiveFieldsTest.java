package io.videoedge.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.videoedge.server.config.ConfigDiff.Change;
import io.videoedge.server.testing.TestData;

/**
 * Which config changes the running server takes live and which need a restart: each row edits the
 * golden file (the operator's rendering of examples/videoedge.yaml) and names the changed fields
 * ConfigDiff must find and where LiveFields must put them.
 */
class LiveFieldsTest {
    private static final String GOLDEN = read(TestData.goldenConfig());

    record Row(String name, UnaryOperator<String> before, UnaryOperator<String> after, List<String> live, List<String> restart) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static Row row(String name, UnaryOperator<String> after, List<String> live, List<String> restart) {
        return new Row(name, UnaryOperator.identity(), after, live, restart);
    }

    /** Replaces exactly one occurrence, so a row cannot silently edit nothing (or two places). */
    private static UnaryOperator<String> once(String from, String to) {
        return text -> {
            int at = text.indexOf(from);
            assertThat(at).as("'%s' in the golden file", from).isNotNegative();
            assertThat(text.indexOf(from, at + 1)).as("'%s' only once", from).isNegative();
            return text.substring(0, at) + to + text.substring(at + from.length());
        };
    }

    private static UnaryOperator<String> all(String from, String to) {
        return text -> {
            assertThat(text).contains(from);
            return text.replace(from, to);
        };
    }

    private static final String HTTP = "- port: 8080\n  recvBuf: 64k\n  sendBuf: 4m\n  notsentLowat: 512k\n";

    static Stream<Arguments> rows() {
        return Stream.of(
                // live: socket options of the listeners (inherited by new connections)
                row("sendBuf of one acceptor", once(HTTP, HTTP.replace("sendBuf: 4m", "sendBuf: 8m")), List.of("acceptors[0].sendBuf"), List.of()),
                row("recvBuf of both acceptors", all("recvBuf: 64k", "recvBuf: 128k"), List.of("acceptors[0].recvBuf", "acceptors[1].recvBuf"), List.of()),
                row("notsentLowat", once(HTTP, HTTP.replace("512k", "256k")), List.of("acceptors[0].notsentLowat"), List.of()),
                new Row("notsentLowat set where it was unset (0)", once(HTTP, HTTP.replace("  notsentLowat: 512k\n", "")), UnaryOperator.identity(),
                        List.of("acceptors[0].notsentLowat"), List.of()),
                // live: our own per-connection settings and one-nio's idle period
                row("keepAlive", once("keepAlive: 120s", "keepAlive: 30s"), List.of("keepAlive"), List.of()),
                row("limits.maxConnections", once("maxConnections: 100000", "maxConnections: 5000"), List.of("limits.maxConnections"), List.of()),
                row("limits.maxHeaderSize", once("maxHeaderSize: 8k", "maxHeaderSize: 16k"), List.of("limits.maxHeaderSize"), List.of()),
                row("limits.maxUriLength (from the default)", once("limits:\n", "limits:\n  maxUriLength: 2k\n"), List.of("limits.maxUriLength"), List.of()),
                row("limits.idleTimeout", once("idleTimeout: 60s", "idleTimeout: 10s"), List.of("limits.idleTimeout"), List.of()),
                row("several live fields at once", once("keepAlive: 120s", "keepAlive: 30s").andThen(all("sendBuf: 4m", "sendBuf: 2m"))::apply,
                        List.of("acceptors[0].sendBuf", "acceptors[1].sendBuf", "keepAlive"), List.of()),
                // nothing to apply
                row("a comment, blank lines and quotes", once("keepAlive: 120s", "keepAlive: \"120s\"   # idle\n\n# more"), List.of(), List.of()),
                row("another way to write the same size", once(HTTP, HTTP.replace("sendBuf: 4m", "sendBuf: 4096k")), List.of(), List.of()),
                // restart: back to 0 cannot be applied to a listening socket
                row("sendBuf back to 0 (kernel default)", once(HTTP, HTTP.replace("sendBuf: 4m", "sendBuf: 0")), List.of(), List.of("acceptors[0].sendBuf")),
                row("notsentLowat removed (0)", once(HTTP, HTTP.replace("  notsentLowat: 512k\n", "")), List.of(), List.of("acceptors[0].notsentLowat")),
                // restart: fixed at start
                row("selectors", once("selectors: 0", "selectors: 4"), List.of(), List.of("selectors")),
                row("affinity", once("affinity: true", "affinity: false"), List.of(), List.of("affinity")),
                row("pinAcceptors", once("pinAcceptors: true", "pinAcceptors: false"), List.of(), List.of("pinAcceptors")),
                row("multiAcceptor", once("multiAcceptor: true", "multiAcceptor: false"), List.of(), List.of("multiAcceptor")),
                row("a port", once("port: 8080", "port: 8081"), List.of(), List.of("acceptors[0].port")),
                row("acceptor threads", once(HTTP + "  reusePort: true\n  threads: 1", HTTP + "  reusePort: true\n  threads: 2"),
                        List.of(), List.of("acceptors[0].threads")),
                row("backlog", once(HTTP + "  reusePort: true\n  threads: 1\n  backlog: 1024", HTTP + "  reusePort: true\n  threads: 1\n  backlog: 4096"),
                        List.of(), List.of("acceptors[0].backlog")),
                row("reusePort", once(HTTP + "  reusePort: true", HTTP + "  reusePort: false"), List.of(), List.of("acceptors[0].reusePort")),
                row("a one-nio socket field not in the live set (tos)", once(HTTP, HTTP + "  tos: 16\n"), List.of(), List.of("acceptors[0].tos")),
                row("an acceptor removed", text -> text.substring(0, text.indexOf("- port: 8443")) + text.substring(text.indexOf("admin:")),
                        List.of(), List.of("acceptors[1]")),
                row("TLS protocols", once("protocols: TLSv1.2 TLSv1.3", "protocols: TLSv1.3"), List.of(), List.of("acceptors[1].ssl.protocols")),
                row("the certificate", once("certFile: /etc/videoedge/tls/tls.crt", "certFile: /etc/videoedge/tls/other.crt"),
                        List.of(), List.of("acceptors[1].ssl.certFile")),
                row("admin port", once("port: 9400", "port: 9401"), List.of(), List.of("admin.port")),
                row("content root", once("root: /var/lib/videoedge/content", "root: /srv"), List.of(), List.of("content.root")),
                row("cache memory", once("memory: 128m", "memory: 256m"), List.of(), List.of("cache.memory")),
                row("disk cache size", once("size: 1g", "size: 2g"), List.of(), List.of("cache.disk.size")),
                row("an origin added", text -> text + "origin:\n  url: http://origin:8080\n", List.of(), List.of("origin")),
                row("buffer pool", text -> text + "bufferPool:\n  size: 64m\n", List.of(), List.of("bufferPool.size")),
                row("drainTimeout", text -> text + "drainTimeout: 10s\n", List.of(), List.of("drainTimeout")),
                // mixed: nothing may be applied, not even the live part
                row("a live and a restart field together", once(HTTP, HTTP.replace("sendBuf: 4m", "sendBuf: 8m")).andThen(once("memory: 128m", "memory: 256m"))::apply,
                        List.of("acceptors[0].sendBuf"), List.of("cache.memory"))
        ).map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void classifiesEachChange(Row row) throws Exception {
        EdgeServerConfig before = ConfigLoader.parse(row.before().apply(GOLDEN), "before.yaml");
        EdgeServerConfig after = ConfigLoader.parse(row.after().apply(GOLDEN), "after.yaml");

        List<Change> changes = ConfigDiff.between(before, after);
        LiveFields.Decision d = LiveFields.classify(changes);

        assertThat(d.live()).extracting(Change::path).as("live").containsExactlyInAnyOrderElementsOf(row.live());
        assertThat(d.restart()).extracting(Change::path).as("restart").containsExactlyInAnyOrderElementsOf(row.restart());
        assertThat(d.allLive()).isEqualTo(row.restart().isEmpty());
        assertThat(d.unchanged()).isEqualTo(row.live().isEmpty() && row.restart().isEmpty());
        for (Change c : d.restart()) {
            assertThat(LiveFields.whyRestart(c)).as("a reason for %s", c).isNotBlank();
        }
    }

    @Test
    void aChangeSaysFieldOldAndNewValue() throws Exception {
        EdgeServerConfig before = ConfigLoader.parse(GOLDEN, "a.yaml");
        EdgeServerConfig after = ConfigLoader.parse(once(HTTP, HTTP.replace("sendBuf: 4m", "sendBuf: 96k")).apply(GOLDEN), "b.yaml");
        List<Change> changes = ConfigDiff.between(before, after);
        assertThat(changes).hasSize(1);
        assertThat(changes.get(0).toString()).isEqualTo("acceptors[0].sendBuf: 4194304 -> 98304");
        assertThat(changes.get(0).field()).isEqualTo("acceptors[].sendBuf");
    }

    @Test
    void reasonsNameWhyARestartIsNeeded() {
        assertThat(LiveFields.whyRestart(new Change("acceptors[1].ssl.certFile", null, null))).contains("loaded at start");
        assertThat(LiveFields.whyRestart(new Change("acceptors[0].threads", 1, 2))).contains("MultiAcceptorGroup");
        assertThat(LiveFields.whyRestart(new Change("acceptors[0].sendBuf", 65536, 0))).contains("non-zero");
        assertThat(LiveFields.whyRestart(new Change("minWorkers", 0, 2))).isEqualTo("not in the live set");
    }

    @Test
    void theLiveSetIsExactlyWhatTheTestsProve() {
        // each of these is exercised by LiveReconfigureIT; adding one needs a test there and a README row
        assertThat(LiveFields.LIVE.keySet()).containsExactly("acceptors[].recvBuf", "acceptors[].sendBuf", "acceptors[].notsentLowat",
                "keepAlive", "limits.maxConnections", "limits.maxHeaderSize", "limits.maxUriLength", "limits.idleTimeout");
    }

    @Test
    void theReadmeTableListsTheLiveSet() throws Exception {
        List<String> liveRows = new ArrayList<>();
        for (String line : Files.readAllLines(TestData.dir().resolve("../../edge-server/README.md").normalize())) {
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
