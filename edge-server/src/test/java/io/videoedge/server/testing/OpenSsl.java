package io.videoedge.server.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The openssl command line client against a fixture's HTTPS port, trusting the test certificate. */
public final class OpenSsl {
    private OpenSsl() {}

    /**
     * {@code openssl s_client} to 127.0.0.1:{@code httpsPort} (SNI localhost), the bytes of
     * {@code request} as its input, and {@code extra} arguments ({@code -tls1_2}, {@code -sess_out f}, ...).
     */
    public static Tools.Result sClient(int httpsPort, Path request, String... extra) {
        List<String> cmd = new ArrayList<>(List.of(
                "openssl",
                "s_client",
                "-connect",
                "127.0.0.1:" + httpsPort,
                "-servername",
                "localhost",
                "-CAfile",
                TestCerts.cert().toString(),
                "-ign_eof"));
        cmd.addAll(List.of(extra));
        try {
            return Tools.run(cmd, Files.readAllBytes(request), null);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
