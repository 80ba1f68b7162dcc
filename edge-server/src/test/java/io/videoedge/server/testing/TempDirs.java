package io.videoedge.server.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Temporary directories for tests (caches, certificates, document roots), removed with everything in
 * them when the test JVM exits, so that a `make test` leaves nothing in the temporary directory. A
 * directory is kept for the whole run, not removed after its test: child processes (an edge, nginx)
 * may still hold files in it, and a failure's files are there to look at while the run goes on.
 */
public final class TempDirs {
    private static final Set<Path> MADE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(Thread.ofPlatform().name("temp-dirs").unstarted(TempDirs::removeAll));
    }

    private TempDirs() {}

    /** A new directory under {@code java.io.tmpdir}, named {@code prefix} and a random number. */
    public static Path create(String prefix) throws IOException {
        Path dir = Files.createTempDirectory(prefix);
        MADE.add(dir);
        return dir;
    }

    /** Removes a directory and everything in it; best effort (a file another process still creates in it may stay). */
    public static void remove(Path dir) {
        if (!Files.exists(dir)) return;
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | java.io.UncheckedIOException ignored) {
            // a file removed while walked; what is left is left
        }
    }

    private static void removeAll() {
        MADE.forEach(TempDirs::remove);
    }
}
