package io.videoedge.agent.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Every read and write of /proc, /sys and cgroup files goes through here, relative to one root:
 * "/" on a node, the host mount (/host) in a container, a temp dir in tests. Paths are given
 * relative ("proc/sys/net/ipv4/tcp_mem") and may not climb out of the root.
 */
public final class HostFs {
    private final Path root;

    public HostFs(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    public Path root() {
        return root;
    }

    /** The absolute path of a root-relative one; refuses ".." escapes. */
    public Path resolve(String relative) {
        Path p = root.resolve(strip(relative)).normalize();
        if (!p.startsWith(root)) {
            throw new IllegalArgumentException("path escapes the host root: " + relative);
        }
        return p;
    }

    public boolean exists(String relative) {
        return Files.exists(resolve(relative));
    }

    public boolean isDirectory(String relative) {
        return Files.isDirectory(resolve(relative));
    }

    /** The file's content without the trailing newline kernel files end with. */
    public String read(String relative) throws IOException {
        // a stream read, not Files.readString: on procfs (files of size 0) Java 25's readString
        // returned "2" for tcp_mem here instead of the three numbers
        String s;
        try (var in = Files.newInputStream(resolve(relative))) {
            s = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
    }

    /** The content, or empty when the file does not exist or cannot be read (probing tolerates both). */
    public Optional<String> readIfPresent(String relative) {
        try {
            return Optional.of(read(relative));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * Writes a kernel file the way `echo value > file` does: one write of value + newline into the
     * existing file, without creating or truncating-then-renaming (sysfs and procfs need that).
     */
    public void write(String relative, String value) throws IOException {
        Path p = resolve(relative);
        if (!Files.exists(p)) {
            throw new NoSuchFileException(p.toString());
        }
        Files.writeString(
                p,
                value + "\n",
                StandardCharsets.UTF_8,
                StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
    }

    /** Names in a directory, sorted; empty when it does not exist. */
    public List<String> list(String relative) {
        Path dir = resolve(relative);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** The last element of a symlink's target (e.g. the driver of /sys/class/net/eth0/device/driver). */
    public Optional<String> linkName(String relative) {
        Path p = resolve(relative);
        try {
            if (Files.isSymbolicLink(p)) {
                return Optional.of(Files.readSymbolicLink(p).getFileName().toString());
            }
            return Files.exists(p, LinkOption.NOFOLLOW_LINKS)
                    ? Optional.of(p.toRealPath().getFileName().toString())
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The root-relative path with symlinks resolved ("sys/class/net/eth0/device" becomes
     * "sys/devices/pci0000:00/0000:00:03.0/virtio2"), empty when missing or outside the root.
     */
    public Optional<String> realPath(String relative) {
        try {
            Path real = resolve(relative).toRealPath();
            Path realRoot = root.toRealPath();
            return real.startsWith(realRoot)
                    ? Optional.of(realRoot.relativize(real).toString())
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * Whether this process may write the file (access(2) W_OK: for /proc/sys the sysctl's mode, which the
     * kernel checks even for root; a read-only mount).
     */
    public boolean writable(String relative) {
        return Files.isWritable(resolve(relative));
    }

    /**
     * Whether the path lies on a mount that is read-only (statvfs ST_RDONLY): kind's node image
     * remounts /sys so, and root can write nothing there. False when the path is missing.
     */
    public boolean onReadOnlyMount(String relative) {
        try {
            return Files.getFileStore(resolve(relative)).isReadOnly();
        } catch (IOException e) {
            return false;
        }
    }

    private static String strip(String relative) {
        String r = relative;
        while (r.startsWith("/")) {
            r = r.substring(1);
        }
        return r;
    }
}
