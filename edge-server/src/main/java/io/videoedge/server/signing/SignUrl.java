package io.videoedge.server.signing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Mints a signed URL's query: {@code java -cp 'app.jar:lib/*' io.videoedge.server.signing.SignUrl
 * --key-file current --ttl 3600 /vod/movie/index.m3u8} prints {@code /vod/movie/index.m3u8?exp=...&sig=...}.
 */
@Command(
        name = "sign-url",
        mixinStandardHelpOptions = true,
        description = "Prints PATH with the query that signs it for the edge server (server.signedUrls).")
public final class SignUrl implements Callable<Integer> {
    @Parameters(
            paramLabel = "PATH",
            description = "The path, as the edge server sees it: starts with /, not percent-encoded.")
    String path;

    @Option(
            names = "--key-file",
            required = true,
            description = "The key: the Secret's 'current' value, as a file of its raw bytes.")
    Path keyFile;

    @Option(names = "--ttl", defaultValue = "3600", description = "Seconds the URL stays valid (default 3600).")
    long ttlSeconds;

    @Option(
            names = "--prefix",
            description = "Sign this path prefix instead, e.g. /vod/movie/ for a playlist and its segments.")
    String prefix;

    @Option(names = "--ip", description = "Only this client address may use the URL.")
    String client;

    @Override
    public Integer call() throws Exception {
        byte[] key = Files.readAllBytes(keyFile);
        long expires = Instant.now().getEpochSecond() + ttlSeconds;
        System.out.println(path + "?" + UrlSignature.query(key, expires, path, prefix, client));
        return 0;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new SignUrl()).execute(args));
    }
}
