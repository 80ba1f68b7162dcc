package io.videoedge.server.cache;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the disk tier's files live: {@code data/xx/<sha256 of the key>.obj}, and a fill's temporary
 * file ({@code <pid>-<n>.part}) in the directory its object will have, so that the commit is a rename
 * within one directory.
 *
 * <p>The 256 directories are made at start, and {@code data/} carries ext4's top-directory flag
 * ({@link TopDirectory}), so that they, and with them the cache's constant creating and deleting of
 * files, spread over the file system's block groups instead of sharing one. A cache made by an
 * earlier release (directories made before the flag) has each directory made again under it, its
 * files renamed in; a start cut short there finishes it at the next. The {@code tmp/} directory of
 * earlier releases is emptied and removed.
 */
final class DiskLayout {
    private static final Logger log = LoggerFactory.getLogger(DiskLayout.class);
    private static final String PART = ".part";
    private static final String REMADE = ".new";

    private static final MessageDigest SHA_256;

    static {
        try {
            SHA_256 = MessageDigest.getInstance("SHA-256"); // every Java platform has it
        } catch (NoSuchAlgorithmException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Path data;
    private final AtomicLong tempSeq = new AtomicLong();

    private DiskLayout(Path data) {
        this.data = data;
    }

    /** Makes (or completes) the layout under the cache directory {@code dir}. */
    static DiskLayout prepare(Path dir) throws IOException {
        Path data = dir.resolve("data");
        boolean spread;
        int remade = 0;
        try {
            Files.createDirectories(data);
            TopDirectory.Mark mark = TopDirectory.mark(data); // before its subdirectories exist, so that they spread
            spread = mark != TopDirectory.Mark.UNAVAILABLE;
            for (int i = 0; i < 256; i++) {
                Path sub = data.resolve(HexFormat.of().toHexDigits((byte) i));
                Path fresh = sub.resolveSibling(sub.getFileName() + REMADE);
                if (Files.isDirectory(fresh) || (mark == TopDirectory.Mark.NOW && Files.isDirectory(sub))) {
                    if (remade == 0) {
                        log.atInfo()
                                .addKeyValue("dir", data.toString())
                                .log("disk cache: making its 256 directories again under the top-directory flag"
                                        + " (once; every stored file is renamed, none is copied)");
                    }
                    remake(sub, fresh);
                    remade++;
                }
                Files.createDirectories(sub);
            }
        } catch (IOException e) {
            throw new IOException(unusable(dir, e), e);
        }
        removeLegacyTmp(dir.resolve("tmp"));
        log.atInfo()
                .addKeyValue("dir", data.toString())
                .addKeyValue("topDirectory", spread)
                .addKeyValue("directoriesMadeAgain", remade)
                .log(
                        spread
                                ? "disk cache: data/ has ext4's top-directory flag, its directories spread over the block groups"
                                : "disk cache: data/ takes no top-directory flag (an ext4 flag); files go where the file system puts them");
        return new DiskLayout(data);
    }

    /** Makes {@code sub} again as {@code fresh} (placed by the allocator now) and renames its files into it. */
    private static void remake(Path sub, Path fresh) throws IOException {
        Files.createDirectories(fresh);
        if (Files.isDirectory(sub)) {
            try (Stream<Path> files = Files.list(sub)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.move(f, fresh.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            Files.delete(sub);
        }
        Files.move(fresh, sub, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Empties and removes tmp/, where earlier releases kept their temporary files; best effort. */
    private static void removeLegacyTmp(Path legacyTmp) {
        if (!Files.isDirectory(legacyTmp)) return;
        try (Stream<Path> leftovers = Files.list(legacyTmp)) {
            for (Path p : (Iterable<Path>) leftovers::iterator) {
                Files.deleteIfExists(p); // fills that never completed
            }
            Files.deleteIfExists(legacyTmp);
        } catch (IOException e) {
            log.atWarn()
                    .addKeyValue("dir", legacyTmp.toString())
                    .addKeyValue("error", e.toString())
                    .log("disk cache: could not remove the old temporary directory; it is not used");
        }
    }

    /**
     * Why the cache directory cannot be used, naming the config field and what to fix; e.g. a hostPath the
     * kubelet created for root while the server runs as another user.
     */
    static String unusable(Path dir, IOException e) {
        StringBuilder sb = new StringBuilder("cache.disk.path ").append(dir).append(": ");
        if (e instanceof java.nio.file.AccessDeniedException denied) {
            sb.append("not writable by this process (uid ").append(uid()).append(')');
            try {
                sb.append("; the directory is owned by ")
                        .append(Files.getOwner(dir).getName())
                        .append(" with mode ")
                        .append(java.nio.file.attribute.PosixFilePermissions.toString(
                                Files.getPosixFilePermissions(dir)));
            } catch (IOException | UnsupportedOperationException ignored) {
                // the owner is only a hint
            }
            sb.append(": make it writable by the server's user (")
                    .append(denied.getFile())
                    .append(')');
        } else if (e instanceof java.nio.file.FileSystemException f) {
            sb.append("cannot create ").append(f.getFile()).append(f.getReason() == null ? "" : ": " + f.getReason());
        } else {
            sb.append("cannot create the cache directories: ").append(e);
        }
        return sb.toString();
    }

    private static String uid() {
        try {
            return String.valueOf(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "?";
        }
    }

    Path data() {
        return data;
    }

    /** A file name a fill left behind (deleted on start). */
    static boolean isTemporary(String fileName) {
        return fileName.endsWith(PART);
    }

    Path pathFor(String key) {
        byte[] h = sha256().digest(key.getBytes(StandardCharsets.UTF_8));
        String hex = HexFormat.of().formatHex(h);
        return data.resolve(hex.substring(0, 2)).resolve(hex.substring(2) + ".obj");
    }

    /**
     * A SHA-256 digest cloned from one looked up once: {@code MessageDigest.getInstance} searches the
     * providers on every call, which cost a miss more than hashing its key.
     */
    private static MessageDigest sha256() {
        try {
            return (MessageDigest) SHA_256.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("the platform's SHA-256 digest cannot be cloned", e);
        }
    }

    Path newTempFile(String key) {
        return pathFor(key).resolveSibling(ProcessHandle.current().pid() + "-" + tempSeq.incrementAndGet() + PART);
    }

    /**
     * Creates the temporary file and opens it for writing; its directory is made again if something
     * removed it since the start (nothing is checked when it is there, the usual case).
     */
    RandomAccessFile createTempFile(Path temp) throws IOException {
        try {
            return new RandomAccessFile(temp.toFile(), "rw");
        } catch (java.io.FileNotFoundException e) {
            if (Files.isDirectory(temp.getParent())) throw e;
            Files.createDirectories(temp.getParent());
            return new RandomAccessFile(temp.toFile(), "rw");
        }
    }
}
