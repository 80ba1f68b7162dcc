package io.videoedge.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.videoedge.server.testing.TestData;
import java.nio.file.Files;
import one.nio.net.SslConfig;
import one.nio.server.AcceptorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What the writer writes, the loader reads back: field for field, nothing lost, nothing added. */
class ConfigWriterTest {
    static EdgeServerConfig roundTrip(EdgeServerConfig config) throws ConfigException {
        return ConfigLoader.parse(ConfigWriter.write(config), "written");
    }

    @Test
    void theGoldenConfigRoundTrips() throws Exception {
        EdgeServerConfig golden = ConfigLoader.parse(Files.readString(TestData.goldenConfig()), "golden");
        assertThat(ConfigDiff.between(golden, roundTrip(golden))).isEmpty();
    }

    @Test
    void everyKindOfFieldRoundTrips() throws Exception {
        EdgeServerConfig c = new EdgeServerConfig();
        c.selectors = 3;
        c.affinity = true;
        c.keepAlive = 90_000;
        AcceptorConfig plain = new AcceptorConfig();
        plain.port = 8080;
        plain.recvBuf = 96 * 1024;
        plain.sendBuf = 1000; // not a multiple of 1k: written as a plain number
        plain.reusePort = true;
        AcceptorConfig tls = new AcceptorConfig();
        tls.port = 8443;
        tls.ssl = new SslConfig();
        tls.ssl.protocols = "TLSv1.2 TLSv1.3";
        tls.ssl.certFile = new String[] {"/a.crt", "/b.crt"};
        tls.ssl.privateKeyFile = new String[] {"/a.key", "/b.key"};
        tls.ssl.kernelTlsEnabled = true;
        tls.ssl.timeout = 300_000;
        c.acceptors = new AcceptorConfig[] {plain, tls};
        c.content.root = "/srv/content";
        c.limits.idleTimeout = 1500;
        c.cache.memory = 3L << 30;
        c.cache.disk.path = "/var/cache/videoedge";
        c.cache.disk.size = 100L << 30;
        c.origin = new OriginConfig();
        c.origin.url = "https://origin.example:8443/base";
        c.origin.maxConnections = 512;
        c.bufferPool.size = 80L << 20;
        c.ticketKeys.rotation = 0;

        EdgeServerConfig back = roundTrip(c);
        assertThat(ConfigDiff.between(c, back)).isEmpty();
        assertThat(ConfigWriter.write(c))
                .contains(
                        "  sendBuf: 1000\n",
                        "  recvBuf: 96k\n",
                        "  memory: 3g\n",
                        "  idleTimeout: 1500ms\n",
                        "  certFile: /a.crt, /b.crt\n",
                        "keepAlive: 90s\n");
    }

    @Test
    void onlyWhatDiffersFromTheDefaultsIsWritten() {
        EdgeServerConfig c = new EdgeServerConfig();
        AcceptorConfig a = new AcceptorConfig();
        a.port = 8080;
        c.acceptors = new AcceptorConfig[] {a};
        c.content.root = "/srv";
        assertThat(ConfigWriter.write(c, "a comment")).isEqualTo("""
                # a comment
                acceptors:
                - port: 8080
                content:
                  root: /srv
                """);
    }

    @Test
    void aViewMapsLeavesByTheirPath() {
        EdgeServerConfig c = new EdgeServerConfig();
        AcceptorConfig a = new AcceptorConfig();
        a.port = 8080;
        a.sendBuf = 4 << 20;
        c.acceptors = new AcceptorConfig[] {a};
        String masked = ConfigWriter.write(c, (path, v) -> path.equals("acceptors[].sendBuf") ? "(live)" : v);
        assertThat(masked).contains("  sendBuf: (live)\n").contains("- port: 8080\n");
    }

    @Test
    void aValueConfigParserCannotReadBackIsRefused() {
        EdgeServerConfig c = new EdgeServerConfig();
        c.content.root = "/srv #not a comment";
        assertThatThrownBy(() -> ConfigWriter.write(c))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("root");
    }

    @ParameterizedTest
    @CsvSource({
        "0, 0",
        "1023, 1023",
        "1024, 1k",
        "65536, 64k",
        "4194304, 4m",
        "2147483647, 2147483647",
        "3221225472, 3g"
    })
    void sizesInTheLargestExactUnit(long bytes, String text) {
        assertThat(ConfigWriter.size(bytes)).isEqualTo(text);
    }

    @ParameterizedTest
    @CsvSource({"0, 0ms", "1500, 1500ms", "1000, 1s", "120000, 2m", "3600000, 1h", "86400000, 1d"})
    void timesInTheLargestExactUnit(long millis, String text) {
        assertThat(ConfigWriter.time(millis)).isEqualTo(text);
    }
}
