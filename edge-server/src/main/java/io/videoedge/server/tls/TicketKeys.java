package io.videoedge.server.tls;

import io.videoedge.server.config.TicketKeyFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Session ticket keys in one-nio's {@code ticketDir}, the one place keys come from. one-nio (2.3.0,
 * {@code SslContext.updateTicketKeys}) reads every file there as 48-byte keys (16 name, 16 AES, 16 HMAC),
 * orders them by modification time, newest first: the newest encrypts new tickets, the others only
 * decrypt (a ticket under an older key resumes and gets a new ticket). It reads the directory when
 * the listener is set up and again, on a new TLS connection, at most every {@code ssl.refreshInterval}
 * (default 5 minutes), when the newest file is newer than what it loaded.
 *
 * <p>{@link #rotateIfDue} keeps the directory at two keys: the current one (newest) and the previous
 * one. When the current key is {@code rotation} old, every older key is deleted first and then a new
 * key is written, with a modification time after every other key's. Deleting first means no read of
 * one-nio's can load a set that still holds the removed key together with the new one; a read while
 * the new file is still empty loads no extra key and, because the new file's time is set after its
 * bytes are written, the next read loads it. With {@code rotation} 0 nothing is written or deleted
 * (keys managed outside, e.g. a Secret shared by several nodes) except that an empty directory gets
 * one key so tickets work at all.
 */
public final class TicketKeys {
    public static final int KEY_LENGTH = TicketKeyFiles.KEY_LENGTH;
    private static final SecureRandom RANDOM = new SecureRandom();

    private TicketKeys() {}

    /** A key file and its modification time in milliseconds. */
    public record Key(Path file, long modifiedMillis) {}

    /** Returns true when a key was generated (the directory had none). */
    public static boolean ensure(Path dir) throws IOException {
        Files.createDirectories(dir);
        if (!keys(dir).isEmpty()) {
            return false;
        }
        write(dir, System.currentTimeMillis(), List.of());
        return true;
    }

    /** What one-nio would refuse or misread in {@code dir} ({@link TicketKeyFiles#problems}). */
    public static List<String> problems(Path dir) throws IOException {
        return TicketKeyFiles.problems(dir);
    }

    /** The keys in {@code dir}, newest first (one-nio's order). */
    public static List<Key> keys(Path dir) throws IOException {
        List<Key> keys = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                try {
                    if (Files.isRegularFile(p)) {
                        keys.add(new Key(p, Files.getLastModifiedTime(p).toMillis()));
                    }
                } catch (NoSuchFileException e) {
                    // removed meanwhile
                }
            }
        }
        keys.sort(Comparator.comparingLong(Key::modifiedMillis).reversed());
        return keys;
    }

    /** What a rotation step did. */
    public record Step(Key current, int deleted, boolean rotated, long nextDueMillis) {}

    /**
     * One step at time {@code now}: with no key, or a current key at least {@code rotationMillis} old,
     * deletes every key but the current one and writes a new current key; otherwise deletes every key
     * but the two newest. Returns when the next step is due.
     */
    public static Step rotateIfDue(Path dir, long rotationMillis, long now) throws IOException {
        Files.createDirectories(dir);
        List<Key> keys = new ArrayList<>();
        for (Key k : keys(dir)) {
            if (Files.size(k.file()) == 0) {
                Files.deleteIfExists(k.file()); // a key whose writing was cut short (only this thread writes keys)
            } else {
                keys.add(k);
            }
        }
        boolean due = keys.isEmpty() || now - keys.get(0).modifiedMillis() >= rotationMillis;
        int keep = due ? 1 : 2;
        int deleted = 0;
        for (int i = keep; i < keys.size(); i++) {
            if (Files.deleteIfExists(keys.get(i).file())) deleted++;
        }
        if (!due) {
            return new Step(keys.get(0), deleted, false, keys.get(0).modifiedMillis() + rotationMillis);
        }
        Key fresh = write(dir, now, keys.isEmpty() ? List.of() : keys.subList(0, 1));
        return new Step(fresh, deleted, true, fresh.modifiedMillis() + rotationMillis);
    }

    /** Writes a new random key whose modification time is after {@code now} and after every key in {@code others}. */
    private static Key write(Path dir, long now, List<Key> others) throws IOException {
        byte[] key = new byte[KEY_LENGTH];
        RANDOM.nextBytes(key);
        for (int n = 0; ; n++) {
            try {
                return write(dir, "ticket-" + now + (n == 0 ? "" : "-" + n) + ".key", key, now, others);
            } catch (FileAlreadyExistsException e) {
                // two keys within one millisecond (tests): another name
            }
        }
    }

    /**
     * Writes {@code key} as the new file {@code name} (mode 0600), its modification time after
     * {@code now} and after every key in {@code others}: the newest key, the one one-nio encrypts with.
     */
    static Key write(Path dir, String name, byte[] key, long now, List<Key> others) throws IOException {
        Path file = dir.resolve(name);
        Files.write(file, key, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: keep the default mode
        }
        // Set after the bytes are written, later than the time the file got when it was created (and
        // than every other key): a read of one-nio's that saw the file still empty recorded that
        // earlier time, so its next read loads the key.
        long modified = Math.max(
                        now,
                        Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS)
                                .toMillis())
                + 1;
        for (Key k : others) {
            modified = Math.max(modified, k.modifiedMillis() + 1);
        }
        Files.setLastModifiedTime(file, FileTime.fromMillis(modified));
        return new Key(
                file, Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS).toMillis());
    }
}
