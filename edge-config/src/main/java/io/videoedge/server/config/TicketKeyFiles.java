package io.videoedge.server.config;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The files of a session ticket key directory as one-nio reads them: checked at load, so a bad set never starts. */
public final class TicketKeyFiles {
    /** One-nio's ticket key: 48 bytes (16 name, 16 HMAC, 16 AES). */
    public static final int KEY_LENGTH = 48;

    private TicketKeyFiles() {}

    /**
     * What one-nio would refuse or misread in {@code dir}: anything but regular files of exactly 48
     * bytes (one-nio concatenates all files and rejects the whole set unless its length is a multiple
     * of 48, and fails on a subdirectory). An empty file passes: it adds nothing to the set, and it is
     * what a key being written looks like for a moment (a config reload may validate meanwhile). Empty
     * when the directory is absent.
     */
    public static List<String> problems(Path dir) throws IOException {
        List<String> problems = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return problems;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                if (!Files.isRegularFile(p)) {
                    problems.add(p + " is not a regular file (every entry must be a 48-byte key)");
                } else if (Files.size(p) != KEY_LENGTH && Files.size(p) != 0) {
                    problems.add(p + " has " + Files.size(p) + " bytes, a key has " + KEY_LENGTH);
                }
            }
        }
        return problems;
    }
}
