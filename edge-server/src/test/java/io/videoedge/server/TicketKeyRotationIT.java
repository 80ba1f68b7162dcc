package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.OpenSsl;
import io.videoedge.server.testing.Tools;
import io.videoedge.server.tls.TicketKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Session ticket keys rotate on schedule ({@code ticketKeys.rotation}, here 10 s: each phase's few
 * s_client runs must fit between two rotations, also on a loaded machine) and one-nio follows:
 * with openssl s_client, a TLS 1.2 and a TLS 1.3 session whose tickets were issued under the first key
 * still resume after one rotation (the previous key decrypts) while new tickets carry the new key's
 * name; after the second rotation the first key is gone and those sessions no longer resume, while
 * one issued under the second key does. The session lifetime ({@code ssl.timeout}) is an hour, so only
 * the key can end a resumption here.
 */
class TicketKeyRotationIT {
    static final String ROTATION = "10s";
    static EdgeFixture edge;
    static Path request;

    @BeforeAll
    static void start() throws Exception {
        edge = EdgeFixture.startEdited(text -> text.replace(
                        "    cacheMode: none\n", "    cacheMode: none\n    refreshInterval: 100ms\n    timeout: 1h\n")
                + "ticketKeys:\n  rotation: " + ROTATION + "\n");
        request = edge.dir.resolve("request.txt");
        Files.writeString(request, "GET /hls/playlist.m3u8 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    }

    @AfterAll
    static void stop() throws Exception {
        if (edge != null) edge.close();
    }

    private static Tools.Result sClient(String... extra) throws Exception {
        Tools.Result r = OpenSsl.sClient(edge.httpsPort, request, extra);
        assertThat(r.all()).as("s_client %s", List.of(extra)).contains("HTTP/1.1 200 OK");
        return r;
    }

    /** A new session, saved to {@code file}; returns the name (first 16 bytes) of the key its ticket is under. */
    private static String newSession(String protocol, Path file) throws Exception {
        assertThat(sClient(protocol, "-sess_out", file.toString()).all()).contains("New, ");
        return ticketKeyName(file);
    }

    private static boolean resumes(String protocol, Path file) throws Exception {
        String out = sClient(protocol, "-sess_in", file.toString()).all();
        assertThat(out).containsAnyOf("Reused, ", "New, ");
        return out.contains("Reused, ");
    }

    /** The key name a session's ticket starts with (RFC 5077 layout, as one-nio's ticket callback writes it). */
    static String ticketKeyName(Path session) {
        String text = Tools.run(List.of("openssl", "sess_id", "-in", session.toString(), "-noout", "-text"))
                .all();
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length - 1; i++) {
            if (lines[i].trim().equals("TLS session ticket:")) {
                // "    0000 - 8a 1b 2c 3d 4e 5f 60 71-82 93 a4 b5 c6 d7 e8 f9   ................"
                String dump = lines[i + 1].substring(lines[i + 1].indexOf(" - ") + 3);
                String[] bytes = dump.substring(0, 47).replace('-', ' ').trim().split(" +");
                return String.join("", bytes);
            }
        }
        throw new AssertionError("no ticket in the session:\n" + text);
    }

    private static List<TicketKeys.Key> keys() throws Exception {
        return TicketKeys.keys(edge.tickets);
    }

    /** A key's name: its first 16 bytes, hex. */
    private static String name(TicketKeys.Key key) {
        try {
            return HexFormat.of().formatHex(Files.readAllBytes(key.file()), 0, 16);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aTicketResumesAfterOneRotationAndNotAfterItsKeyLeft() throws Exception {
        List<TicketKeys.Key> first = keys();
        assertThat(first).hasSize(1);
        String k1 = name(first.get(0));
        Path s12 = edge.dir.resolve("k1-tls12.pem");
        Path s13 = edge.dir.resolve("k1-tls13.pem");
        assertThat(newSession("-tls1_2", s12)).isEqualTo(k1);
        assertThat(newSession("-tls1_3", s13)).isEqualTo(k1);
        assertThat(resumes("-tls1_2", s12)).isTrue();
        assertThat(resumes("-tls1_3", s13)).isTrue();

        // first rotation: k2 encrypts, k1 still decrypts
        await("first rotation")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> !name(keys().get(0)).equals(k1));
        Thread.sleep(200); // one-nio re-reads the directory on a new connection after its refreshInterval (100ms)
        List<TicketKeys.Key> second = keys();
        assertThat(second).hasSize(2);
        String k2 = name(second.get(0));
        assertThat(name(second.get(1))).isEqualTo(k1);
        Path s13k2 = edge.dir.resolve("k2-tls13.pem");
        assertThat(newSession("-tls1_3", s13k2))
                .as("new tickets are under the new key")
                .isEqualTo(k2);
        assertThat(resumes("-tls1_2", s12))
                .as("TLS 1.2 ticket under the previous key")
                .isTrue();
        assertThat(resumes("-tls1_3", s13))
                .as("TLS 1.3 ticket under the previous key")
                .isTrue();

        // second rotation: k3 encrypts, k2 decrypts, k1 is deleted
        await("second rotation")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> !name(keys().get(0)).equals(k2));
        Thread.sleep(200);
        List<TicketKeys.Key> third = keys();
        assertThat(third).hasSize(2);
        assertThat(name(third.get(1))).isEqualTo(k2);
        assertThat(third).extracting(TicketKeyRotationIT::name).doesNotContain(k1);
        assertThat(resumes("-tls1_2", s12))
                .as("TLS 1.2 ticket under the deleted key")
                .isFalse();
        assertThat(resumes("-tls1_3", s13))
                .as("TLS 1.3 ticket under the deleted key")
                .isFalse();
        assertThat(resumes("-tls1_3", s13k2))
                .as("ticket under the now previous key")
                .isTrue();
        assertThat(edge.metric("videoedge_tls_ticket_key_rotations_total{result=\"rotated\"}"))
                .isEqualTo(3); // the first key, two rotations
    }
}
