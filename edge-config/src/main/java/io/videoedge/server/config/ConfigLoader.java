package io.videoedge.server.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import one.nio.config.ConfigParser;

/**
 * Reads the edge server config: text normalisation, a schema check that names field, file and line,
 * one-nio's ConfigParser, then semantic validation. Nothing binds or starts before this returns.
 */
public final class ConfigLoader {
    private ConfigLoader() {}

    /** A validated config with the exact text it came from and that text's SHA-256 (hex). */
    public record Loaded(EdgeServerConfig config, String text, String sha256) {}

    public static EdgeServerConfig load(Path file) throws ConfigException {
        return read(file).config();
    }

    /** Reads the file once, then parses and validates those bytes (the checksum is of what was parsed). */
    public static Loaded read(Path file) throws ConfigException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ConfigException(file.toString(), List.of("cannot read the file: " + e));
        }
        return load(bytes, file.toString());
    }

    /** Parses and validates file content already read, including the files and directories it names. */
    public static Loaded load(byte[] bytes, String source) throws ConfigException {
        String text = new String(bytes, StandardCharsets.UTF_8);
        EdgeServerConfig config = parse(text, source);
        List<String> problems = ConfigValidator.validateWithFiles(config, source);
        if (!problems.isEmpty()) {
            throw new ConfigException(source, problems);
        }
        return new Loaded(config, text, sha256(bytes));
    }

    public static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("every JDK has SHA-256", e);
        }
    }

    /**
     * What the server's loader would refuse in this config value, file system aside (the same checks
     * {@link #parse} runs after parsing): the operator runs it on the config it renders, before it rolls
     * anything out. Empty when the server would take it.
     */
    public static List<String> problems(EdgeServerConfig config, String source) {
        return ConfigValidator.validate(config, source);
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
