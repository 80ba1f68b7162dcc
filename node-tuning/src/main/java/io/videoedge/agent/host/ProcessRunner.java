package io.videoedge.agent.host;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs commands as child processes, killing them after a timeout; stdout and stderr captured. */
public final class ProcessRunner implements CommandRunner {
    private final Duration timeout;

    public ProcessRunner(Duration timeout) {
        this.timeout = timeout;
    }

    @Override
    public Result run(List<String> command) {
        Process p;
        try {
            p = new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
        } catch (IOException e) {
            return new Result(127, "", command.getFirst() + ": " + e.getMessage());
        }
        // drain both pipes concurrently so a chatty command cannot block on a full pipe
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> drain(p.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> drain(p.getErrorStream()));
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor();
                return new Result(
                        124, out.join(), String.join(" ", command) + ": timed out after " + timeout.toSeconds() + " s");
            }
            return new Result(p.exitValue(), out.join(), err.join());
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            return new Result(130, "", "interrupted");
        }
    }

    @Override
    public boolean available(String program) {
        String path = System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }

    private static String drain(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
