package io.videoedge.server.config;

import java.util.List;

/** A configuration file that cannot be used; the message names the file, and for each problem the field. */
public class ConfigException extends Exception {
    private final List<String> problems;

    public ConfigException(String source, List<String> problems) {
        super("invalid configuration " + source + ":\n  " + String.join("\n  ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
