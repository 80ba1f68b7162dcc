package io.videoedge.server.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the real command-line clients (curl, openssl). Missing tools fail the test, they never skip it. */
public final class Tools {
    private Tools() {}

    public record Result(int exitCode, String stdout, String stderr) {
        public String all() {
            return stdout + "\n" + stderr;
        }
    }

    public static Result run(List<String> command) {
        return run(command, null, null);
    }

    /** @param stdin bytes written to the process's standard input, then closed */
    public static Result run(List<String> command, byte[] stdin, Path workDir) {
        ProcessBuilder pb = new ProcessBuilder(command);
        if (workDir != null) pb.directory(workDir.toFile());
        try {
            Process p = pb.start();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            Thread errReader = Thread.ofVirtual().start(() -> copy(p.getErrorStream(), err));
            if (stdin != null) p.getOutputStream().write(stdin);
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            // a safety net against a hung tool, not a timing assertion
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("command did not finish: " + command);
            }
            errReader.join();
            return new Result(
                    p.exitValue(), new String(out, StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command.get(0) + " (installed by `make deps`)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static void copy(InputStream in, ByteArrayOutputStream out) {
        try {
            in.transferTo(out);
        } catch (IOException e) {
            // the process ended
        }
    }
}
