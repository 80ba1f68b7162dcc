package io.videoedge.server.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import one.nio.config.ConfigParser;

/**
 * Reads the edge server config: text normalisation, a schema check that names field, file and line,
 * one-nio's ConfigParser, then semantic validation. Nothing binds or starts before this returns.
 */
public final class ConfigLoader {
    private ConfigLoader() {
    }

    public static EdgeServerConfig load(Path file) throws ConfigException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException(file.toString(), List.of("cannot read the file: " + e));
        }
        EdgeServerConfig config = parse(text, file.toString());
        List<String> problems = ConfigValidator.validateWithFiles(config, file.toString());
        if (!problems.isEmpty()) {
            throw new ConfigException(file.toString(), problems);
        }
        return config;
    }

    /**
     * Parses and validates shape and ranges, without looking at the files the config names.
     * Relative paths in the config are relative to the working directory.
     */
    public static EdgeServerConfig parse(String text, String source) throws ConfigException {
        String normalized = ConfigText.normalize(text);
        List<String> problems = ConfigSchema.check(normalized, EdgeServerConfig.class, source);
        if (!problems.isEmpty()) {
            throw new ConfigException(source, problems);
        }
        EdgeServerConfig config;
        try {
            config = ConfigParser.parse(normalized, EdgeServerConfig.class);
        } catch (RuntimeException e) {
            // the schema check should have caught it; keep ConfigParser's own words and the file
            throw new ConfigException(source, List.of("ConfigParser: " + e.getMessage()));
        }
        problems = ConfigValidator.validate(config, source);
        if (!problems.isEmpty()) {
            throw new ConfigException(source, problems);
        }
        return config;
    }
}
