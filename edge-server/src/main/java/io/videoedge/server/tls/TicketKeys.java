package io.videoedge.server.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.stream.Stream;

/**
 * Session ticket keys for one-nio's {@code ticketDir}: every file there is a 48-byte key (16 name,
 * 16 AES, 16 HMAC), the newest one encrypts, older ones still decrypt, and one-nio re-reads the
 * directory every refreshInterval. When the directory is empty (no Secret mounted) one random key is
 * written so tickets work within this process; keys shared across replicas and restarts must come
 * from the directory (for example a Secret rotated by the operator).
 */
public final class TicketKeys {
    public static final int KEY_LENGTH = 48;

    private TicketKeys() {
    }

    /** Returns true when a key was generated. */
    public static boolean ensure(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                if (files.anyMatch(Files::isRegularFile)) {
                    return false;
                }
            }
        }
        Files.createDirectories(dir);
        byte[] key = new byte[KEY_LENGTH];
        new SecureRandom().nextBytes(key);
        Path file = dir.resolve("generated-" + System.currentTimeMillis() + ".key");
        Files.write(file, key);
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: keep the default mode
        }
        return true;
    }
}
