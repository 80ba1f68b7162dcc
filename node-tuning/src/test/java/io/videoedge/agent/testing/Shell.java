package io.videoedge.agent.testing;

import io.videoedge.agent.host.CommandRunner;
import io.videoedge.agent.host.ProcessRunner;
import java.time.Duration;
import java.util.List;

/** Runs real commands for the real-kernel tests; a failure names the command and its stderr. */
public final class Shell {
    private static final ProcessRunner RUNNER = new ProcessRunner(Duration.ofSeconds(120));

    private Shell() {}

    public static CommandRunner.Result result(String... command) {
        return RUNNER.run(List.of(command));
    }

    public static String run(String... command) {
        CommandRunner.Result r = result(command);
        if (!r.ok()) {
            throw new AssertionError(String.join(" ", command) + " failed, " + r.error() + "\n" + r.stdout());
        }
        return r.stdout().strip();
    }
}
