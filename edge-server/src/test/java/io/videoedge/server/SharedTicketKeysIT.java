package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.videoedge.server.testing.EdgeFixture;
import io.videoedge.server.testing.OpenSsl;
import io.videoedge.server.testing.TempDirs;
import io.videoedge.server.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Ticket keys shared by two real servers ({@code ticketKeys.source}, one directory of {@code t<seconds>}
 * keys for both, as every edge pod of a VideoEdge mounts one Secret): with openssl s_client a TLS 1.2
 * and a TLS 1.3 session from one server resumes on the other, and not on a third server with keys of
 * its own. A key added with a time already past becomes the one new tickets are under, on both, while
 * tickets under the previous key still resume; a key whose time has not come is not used yet.
 */
class SharedTicketKeysIT {
    static Path source;
    static EdgeFixture a;
    static EdgeFixture b;
    static EdgeFixture own;
    static Path request;

    static String sharedConfig(String text) {
        return text.replace(
                        "    cacheMode: none\n", "    cacheMode: none\n    refreshInterval: 100ms\n    timeout: 1h\n")
                + "ticketKeys:\n  rotation: 0\n  source: " + source + "\n  poll: 1s\n";
    }

    /** A new random key in the source, in effect from {@code seconds}; returns its file. */
    static Path putKey(long seconds) throws Exception {
        byte[] key = new byte[48];
        new SecureRandom().nextBytes(key);
        Path tmp = source.resolve(".tmp");
        Files.write(tmp, key);
        return Files.move(tmp, source.resolve("t" + seconds), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** A key's name, as tickets carry it: its first 16 bytes, hex. */
    static String name(Path key) throws Exception {
        return HexFormat.of().formatHex(Files.readAllBytes(key), 0, 16);
    }

    @BeforeAll
    static void start() throws Exception {
        source = TempDirs.create("ticket-source");
        putKey(System.currentTimeMillis() / 1000 - 60);
        a = EdgeFixture.startEdited(SharedTicketKeysIT::sharedConfig);
        b = EdgeFixture.startEdited(SharedTicketKeysIT::sharedConfig);
        own = EdgeFixture.startEdited(text -> text.replace(
                "    cacheMode: none\n", "    cacheMode: none\n    refreshInterval: 100ms\n    timeout: 1h\n"));
        request = a.dir.resolve("request.txt");
        Files.writeString(request, "GET /hls/playlist.m3u8 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    }

    @AfterAll
    static void stop() throws Exception {
        for (EdgeFixture e : new EdgeFixture[] {a, b, own}) if (e != null) e.close();
    }

    static String sClient(EdgeFixture edge, String... extra) throws Exception {
        Tools.Result r = OpenSsl.sClient(edge.httpsPort, request, extra);
        assertThat(r.all()).as("s_client %s", List.of(extra)).contains("HTTP/1.1 200 OK");
        return r.all();
    }

    static Path newSession(EdgeFixture edge, String protocol, String name) throws Exception {
        Path file = edge.dir.resolve(name + ".pem");
        assertThat(sClient(edge, protocol, "-sess_out", file.toString())).contains("New, ");
        return file;
    }

    static boolean resumes(EdgeFixture edge, String protocol, Path session) throws Exception {
        return sClient(edge, protocol, "-sess_in", session.toString()).contains("Reused, ");
    }

    @Test
    void aSessionFromOneServerResumesOnTheOtherAndNotOnAServerWithItsOwnKeys() throws Exception {
        for (String protocol : List.of("-tls1_2", "-tls1_3")) {
            Path session = newSession(a, protocol, "from-a" + protocol);
            assertThat(resumes(b, protocol, session))
                    .as("%s from a, on b", protocol)
                    .isTrue();
            assertThat(resumes(own, protocol, session))
                    .as("%s from a, on a server with its own keys", protocol)
                    .isFalse();
        }
    }

    @Test
    void aNewKeyTakesOverOnBothWhenItsTimeComesAndTheOldOneStillDecrypts() throws Exception {
        Path before = newSession(a, "-tls1_2", "before-rotation");
        // a key whose time has not come, then one whose time has: the read of the directory that finds the
        // second finds the first there too, so a server encrypting under the second has passed over the first
        Path future = putKey(System.currentTimeMillis() / 1000 + 3600);
        try {
            String nextName = name(putKey(System.currentTimeMillis() / 1000));
            for (EdgeFixture edge : List.of(a, b)) {
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> TicketKeyRotationIT.ticketKeyName(newSession(edge, "-tls1_2", "after"))
                                .equals(nextName));
                assertThat(TicketKeyRotationIT.ticketKeyName(newSession(edge, "-tls1_2", "not-yet")))
                        .as("a key whose time has not come")
                        .isNotEqualTo(name(future));
            }
            Path after = newSession(a, "-tls1_2", "after-rotation");
            assertThat(resumes(b, "-tls1_2", after))
                    .as("a new ticket from a, on b")
                    .isTrue();
            assertThat(resumes(b, "-tls1_2", before))
                    .as("a ticket under the previous key, on b")
                    .isTrue();
        } finally {
            Files.delete(future);
        }
    }
}
