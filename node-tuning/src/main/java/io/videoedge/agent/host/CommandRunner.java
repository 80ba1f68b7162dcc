package io.videoedge.agent.host;

import java.util.List;

/** External commands (ethtool, modprobe): one place, with a timeout and captured output. */
public interface CommandRunner {
    Result run(List<String> command);

    /** Whether a program can be run at all (found on PATH). */
    boolean available(String program);

    record Result(int exitCode, String stdout, String stderr) {
        public boolean ok() {
            return exitCode == 0;
        }

        /** The first line of stderr (or stdout), for a status message a person reads. */
        public String error() {
            String s = stderr.isBlank() ? stdout : stderr;
            s = s.strip();
            int nl = s.indexOf('\n');
            return "exit " + exitCode + (s.isEmpty() ? "" : ": " + (nl < 0 ? s : s.substring(0, nl)));
        }
    }
}
