package io.videoedge.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.videoedge.server.testing.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ConfigLoaderTest {
    private static final String MINIMAL = """
            acceptors:
            - port: 8080
            content:
              root: /srv
            """;

    @Test
    void parsesEveryFieldOfTheGoldenFile() throws Exception {
        String text = Files.readString(TestData.goldenConfig());
        EdgeServerConfig c = ConfigLoader.parse(text, "edge-server.yaml");

        assertThat(c.selectors).isZero();
        assertThat(c.affinity).isTrue();
        assertThat(c.pinAcceptors).isTrue();
        assertThat(c.multiAcceptor).isTrue();
        assertThat(c.keepAlive).isEqualTo(120_000);
        assertThat(c.acceptors).hasSize(2);
        for (var a : c.acceptors) {
            assertThat(a.recvBuf).isEqualTo(64 * 1024);
            assertThat(a.sendBuf).isEqualTo(4 * 1024 * 1024);
            assertThat(a.notsentLowat).isEqualTo(512 * 1024);
            assertThat(a.reusePort).isTrue();
            assertThat(a.threads).isEqualTo(1);
            assertThat(a.backlog).isEqualTo(1024);
        }
        assertThat(c.acceptors[0].port).isEqualTo(8080);
        assertThat(c.acceptors[0].ssl).isNull();
        assertThat(c.acceptors[1].port).isEqualTo(8443);
        var ssl = c.acceptors[1].ssl;
        assertThat(ssl.protocols).isEqualTo("TLSv1.2 TLSv1.3");
        assertThat(ssl.certFile).containsExactly("/etc/videoedge/tls/tls.crt");
        assertThat(ssl.privateKeyFile).containsExactly("/etc/videoedge/tls/tls.key");
        assertThat(ssl.ticketDir).isEqualTo("/var/run/videoedge/tickets");
        assertThat(ssl.kernelTlsEnabled).isTrue();
        assertThat(ssl.maxEarlyDataSize).isEqualTo(4096);
        assertThat(ssl.antiReplayEnabled).isFalse();
        assertThat(ssl.cacheMode).isEqualTo("none");
        assertThat(c.admin.port).isEqualTo(9400);
        assertThat(c.content.root).isEqualTo("/var/lib/videoedge/content");
        assertThat(c.limits.maxHeaderSize).isEqualTo(8 * 1024);
        assertThat(c.limits.maxConnections)
                .as("what a 1Gi pod with a 128Mi cache holds over TLS")
                .isEqualTo(22_900);
        assertThat(c.limits.idleTimeout).isEqualTo(60_000);
        assertThat(c.limits.headerTimeout).isEqualTo(30_000);
        assertThat(c.limits.handshakeTimeout).isEqualTo(10_000);
        assertThat(c.limits.maxConnectionsPerAddress).isEqualTo(1000);
        assertThat(c.limits.minSendBytes).isEqualTo(64 * 1024);
        assertThat(c.limits.minSendPeriod).isEqualTo(30_000);
        assertThat(c.limits.maxPipelined).isEqualTo(32);
        assertThat(c.limits.maxRequestRate).isZero();
        assertThat(c.limits.requestBurst).isEqualTo(100);
        assertThat(c.cache.memory).isEqualTo(128L << 20);
        assertThat(c.cache.disk.path).isEqualTo("/var/cache/videoedge");
        assertThat(c.cache.disk.size).isEqualTo(1L << 30);
        assertThat(c.origin).isNull();
    }

    @Test
    void loadingTheGoldenFileOnAHostWithoutItsFilesNamesEachMissingFile() {
        assertThatThrownBy(() -> ConfigLoader.load(TestData.goldenConfig()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("edge-server.yaml")
                .hasMessageContaining("acceptors[1].ssl.certFile: cannot read /etc/videoedge/tls/tls.crt")
                .hasMessageContaining("acceptors[1].ssl.privateKeyFile: cannot read /etc/videoedge/tls/tls.key")
                .hasMessageContaining("content.root: /var/lib/videoedge/content is not a directory");
    }

    @Test
    void loadsAConfigWhoseFilesExist(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("edge.yaml");
        Files.writeString(file, MINIMAL.replace("/srv", dir.toString()));
        EdgeServerConfig c = ConfigLoader.load(file);
        assertThat(c.content.root).isEqualTo(dir.toString());
        assertThat(c.limits.maxUriLength).isEqualTo(4096);
        assertThat(c.drainTimeout).isEqualTo(25_000);
    }

    @Test
    void aTicketDirOneNioCannotReadIsRefused(@TempDir Path dir) throws Exception {
        Path tickets = Files.createDirectories(dir.resolve("tickets"));
        Files.write(tickets.resolve("short.key"), new byte[47]);
        Files.writeString(dir.resolve("c.crt"), "x");
        Path file = dir.resolve("edge.yaml");
        Files.writeString(file, MINIMAL.replace("/srv", dir.toString()).replace("- port: 8080", """
                - port: 8080
                  ssl:
                    protocols: TLSv1.3
                    certFile: %1$s/c.crt
                    privateKeyFile: %1$s/c.crt
                    ticketDir: %1$s/tickets""".formatted(dir)));
        assertThatThrownBy(() -> ConfigLoader.load(file))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(
                        "acceptors[0].ssl.ticketDir: " + tickets.resolve("short.key") + " has 47 bytes, a key has 48");
    }

    @Test
    void missingFileIsReportedWithItsName(@TempDir Path dir) {
        Path file = dir.resolve("nope.yaml");
        assertThatThrownBy(() -> ConfigLoader.load(file))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("cannot read the file");
    }

    @Test
    void acceptsTrailingCommentsAndQuotedValuesAsYamlWould() throws Exception {
        EdgeServerConfig c = ConfigLoader.parse("""
                selectors: 3            # three selectors
                keepAlive: "30s"
                acceptors:
                - port: 8080  # http
                content:
                  root: '/srv/videos#1'
                """, "x.yaml");
        assertThat(c.selectors).isEqualTo(3);
        assertThat(c.keepAlive).isEqualTo(30_000);
        assertThat(c.acceptors[0].port).isEqualTo(8080);
        assertThat(c.content.root).isEqualTo("/srv/videos#1");
    }

    @Test
    void acceptsListsInEveryLayoutConfigParserAccepts() throws Exception {
        EdgeServerConfig c = ConfigLoader.parse("""
                acceptors:
                  - port: 8080
                    threads: 2
                    reusePort: true
                  - port: 8443
                    ssl:
                      protocols: TLSv1.3
                      certFile:
                      - /a.crt
                      - /b.crt
                      privateKeyFile: [/a.key, /b.key]
                content:
                  root: /srv
                """, "x.yaml");
        assertThat(c.acceptors).hasSize(2);
        assertThat(c.acceptors[0].threads).isEqualTo(2);
        assertThat(c.acceptors[1].ssl.certFile).containsExactly("/a.crt", "/b.crt");
        assertThat(c.acceptors[1].ssl.privateKeyFile).containsExactly("/a.key", "/b.key");
    }

    static Stream<Arguments> badConfigs() {
        return Stream.of(
                Arguments.of(
                        "misspelt field",
                        MINIMAL.replace("- port: 8080", "- port: 8080\n  recvBuff: 64k"),
                        "bad.yaml:3: acceptors[0].recvBuff: unknown field (did you mean 'recvBuf'?)"),
                Arguments.of(
                        "the slide's ticketsDir",
                        MINIMAL.replace("- port: 8080", "- port: 8080\n  ssl:\n    ticketsDir: /t"),
                        "bad.yaml:4: acceptors[0].ssl.ticketsDir: unknown field (did you mean 'ticketDir'?)"),
                Arguments.of(
                        "bad size",
                        MINIMAL.replace("- port: 8080", "- port: 8080\n  sendBuf: 4q"),
                        "bad.yaml:3: acceptors[0].sendBuf: invalid value '4q' (expected a size"),
                Arguments.of(
                        "size beyond int",
                        MINIMAL.replace("- port: 8080", "- port: 8080\n  sendBuf: 4g"),
                        "bad.yaml:3: acceptors[0].sendBuf: '4g' is too large"),
                Arguments.of(
                        "bad duration",
                        "keepAlive: 2 weeks\n" + MINIMAL,
                        "bad.yaml:1: keepAlive: invalid value '2 weeks' (expected a duration"),
                Arguments.of(
                        "yes is not a boolean",
                        "affinity: yes\n" + MINIMAL,
                        "bad.yaml:1: affinity: expected true or false, found 'yes'"),
                Arguments.of(
                        "port not a number",
                        MINIMAL.replace("port: 8080", "port: http"),
                        "bad.yaml:2: acceptors[0].port: expected an integer, found 'http'"),
                Arguments.of("missing value", "selectors:\n" + MINIMAL, "bad.yaml:1: selectors: missing value"),
                Arguments.of(
                        "section given a scalar", "admin: 9400\n" + MINIMAL, "bad.yaml:1: admin: expects a section"),
                Arguments.of(
                        "list given a scalar",
                        "acceptors: 8080\ncontent:\n  root: /srv\n",
                        "bad.yaml:1: acceptors: expects a list of sections"),
                Arguments.of(
                        "bad indentation",
                        MINIMAL.replace("  root: /srv", "  root: /srv\n   extra: 1"),
                        "bad.yaml:5: content: bad indentation"),
                Arguments.of(
                        "unknown top-level section",
                        MINIMAL + "cahce:\n  memory: 1g\n",
                        "bad.yaml:5: cahce: unknown field (did you mean 'cache'?)"),
                Arguments.of(
                        "no acceptors",
                        "content:\n  root: /srv\n",
                        "bad.yaml: acceptors: at least one acceptor (port) is required"),
                Arguments.of(
                        "port out of range",
                        MINIMAL.replace("8080", "70000"),
                        "bad.yaml: acceptors[0].port: must be between 1 and 65535, is 70000"),
                Arguments.of(
                        "port twice",
                        MINIMAL + "admin:\n  port: 8080\n",
                        "bad.yaml: admin.port: port 8080 is used twice"),
                Arguments.of(
                        "ssl without certificate",
                        MINIMAL.replace("- port: 8080", "- port: 8080\n  ssl:\n    protocols: TLSv1.3"),
                        "bad.yaml: acceptors[0].ssl.certFile: required"),
                Arguments.of(
                        "old TLS",
                        MINIMAL.replace(
                                "- port: 8080",
                                "- port: 8080\n  ssl:\n    protocols: TLSv1 TLSv1.2\n    certFile: /c\n    privateKeyFile: /k"),
                        "bad.yaml: acceptors[0].ssl.protocols: 'tlsv1' is not supported"),
                Arguments.of(
                        "bad cache mode",
                        MINIMAL.replace(
                                "- port: 8080",
                                "- port: 8080\n  ssl:\n    protocols: TLSv1.3\n    certFile: /c\n    privateKeyFile: /k\n    cacheMode: shared"),
                        "bad.yaml: acceptors[0].ssl.cacheMode: must be none, internal or external"),
                Arguments.of(
                        "no content and no origin",
                        "acceptors:\n- port: 8080\n",
                        "bad.yaml: content.root: required unless an origin is configured"),
                Arguments.of(
                        "ftp origin",
                        MINIMAL + "origin:\n  url: ftp://o.example\ncache:\n  disk:\n    path: /c\n",
                        "bad.yaml: origin.url: must be http:// or https://"),
                Arguments.of(
                        "origin with a space",
                        MINIMAL + "origin:\n  url: http://o.example/a b\ncache:\n  disk:\n    path: /c\n",
                        "bad.yaml: origin.url: must be http:// or https://"),
                Arguments.of(
                        "origin with a query the client would drop",
                        MINIMAL + "origin:\n  url: http://o.example/v?k=1\ncache:\n  disk:\n    path: /c\n",
                        "bad.yaml: origin.url: must be http:// or https://"),
                Arguments.of(
                        "origin host with an underscore",
                        MINIMAL + "origin:\n  url: http://my_origin\ncache:\n  disk:\n    path: /c\n",
                        "bad.yaml: origin.url: must be http:// or https://"),
                Arguments.of(
                        "origin port out of range",
                        MINIMAL + "origin:\n  url: http://o.example:70000\ncache:\n  disk:\n    path: /c\n",
                        "bad.yaml: origin.url: must be http:// or https://"),
                Arguments.of(
                        "a failover origin that is no URL",
                        MINIMAL + "origin:\n  url: http://a.example\n  failover:\n    - http://b.example\n    - b:80\n"
                                + "cache:\n  disk:\n    path: /c\n",
                        "bad.yaml: origin.failover[1]: must be http:// or https://"),
                Arguments.of(
                        "the same origin twice",
                        MINIMAL + "origin:\n  url: http://a.example\n  failover:\n    - http://a.example\n"
                                + "cache:\n  disk:\n    path: /c\n",
                        "bad.yaml: origin.failover[0]: the same origin twice"),
                Arguments.of(
                        "CA file for a plain origin",
                        MINIMAL
                                + "origin:\n  url: http://o.example\n  caFile: /ca.pem\ncache:\n  disk:\n    path: /c\n",
                        "bad.yaml: origin.caFile: only for an https:// origin"),
                Arguments.of(
                        "header limit too big",
                        MINIMAL + "limits:\n  maxHeaderSize: 1m\n",
                        "bad.yaml: limits.maxHeaderSize: must be between 256 and 32k"),
                Arguments.of(
                        "a header deadline of nothing",
                        MINIMAL + "limits:\n  headerTimeout: 0s\n",
                        "bad.yaml: limits.headerTimeout: must be at least 100ms"),
                Arguments.of(
                        "a handshake deadline of nothing",
                        MINIMAL + "limits:\n  handshakeTimeout: 50ms\n",
                        "bad.yaml: limits.handshakeTimeout: must be at least 100ms"),
                Arguments.of(
                        "no connection per address",
                        MINIMAL + "limits:\n  maxConnectionsPerAddress: 0\n",
                        "bad.yaml: limits.maxConnectionsPerAddress: must be at least 1"),
                Arguments.of(
                        "a slow-reader period of nothing",
                        MINIMAL + "limits:\n  minSendPeriod: 0s\n",
                        "bad.yaml: limits.minSendPeriod: must be at least 100ms"),
                Arguments.of(
                        "deeper pipelining than one-nio holds",
                        MINIMAL + "limits:\n  maxPipelined: 256\n",
                        "bad.yaml: limits.maxPipelined: must be between 1 and 255"),
                Arguments.of(
                        "a negative request rate",
                        MINIMAL + "limits:\n  maxRequestRate: -1\n",
                        "bad.yaml: limits.maxRequestRate: must be between 0 (no cap) and 1000000"),
                Arguments.of(
                        "an empty request bucket",
                        MINIMAL + "limits:\n  requestBurst: 0\n",
                        "bad.yaml: limits.requestBurst: must be between 1 and 1000000"),
                Arguments.of(
                        "negative ticket key rotation",
                        MINIMAL + "ticketKeys:\n  rotation: -1\n",
                        "bad.yaml: ticketKeys.rotation: must be 0 (never) or at least 1s"),
                Arguments.of(
                        "a slice too small to be worth a request",
                        MINIMAL + "cache:\n  slice: 4k\n",
                        "bad.yaml: cache.slice: must be 0 (off) or between 64K and 1G"),
                Arguments.of(
                        "acceptor threads on one socket",
                        MINIMAL.replace("- port: 8080", "- port: 8080\n  threads: 2"),
                        "bad.yaml: acceptors[0].threads: above 1 needs reusePort: true"),
                Arguments.of(
                        "a memory tier too small for its allocator",
                        MINIMAL + "cache:\n  memory: 1023k\n",
                        "bad.yaml: cache.memory: must be 0 (off) or at least 1m"),
                Arguments.of("empty file", "# nothing\n\n", "bad.yaml: the file has no settings"),
                Arguments.of(
                        "stray list item",
                        "- port: 1\n" + MINIMAL,
                        "bad.yaml:1: a list item '-' where no list is expected"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badConfigs")
    void rejectsBadConfigNamingFileAndField(String name, String text, String expected) {
        assertThatThrownBy(() -> ConfigLoader.parse(text, "bad.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(expected);
    }

    @Test
    void failoverOriginsFollowTheUrlInOrder() throws Exception {
        EdgeServerConfig c = ConfigLoader.parse(
                MINIMAL + "origin:\n  url: http://a.example\n  failover:\n    - https://b.example:8443/v\n"
                        + "    - http://10.0.0.3\n  downFor: 2s\ncache:\n  disk:\n    path: /c\n",
                "ok.yaml");
        assertThat(c.origin.urls()).containsExactly("http://a.example", "https://b.example:8443/v", "http://10.0.0.3");
        assertThat(c.origin.downFor).isEqualTo(2000);
        assertThat(ConfigLoader.parse(
                                MINIMAL + "origin:\n  url: http://a.example\ncache:\n  disk:\n    path: /c\n",
                                "one.yaml")
                        .origin
                        .urls())
                .containsExactly("http://a.example");
    }

    @Test
    void reportsEveryProblemAtOnce() {
        assertThatThrownBy(() -> ConfigLoader.parse("affinity: maybe\nselectorz: 2\n" + MINIMAL, "bad.yaml"))
                .isInstanceOfSatisfying(
                        ConfigException.class, e -> assertThat(e.problems()).hasSize(2));
    }
}
