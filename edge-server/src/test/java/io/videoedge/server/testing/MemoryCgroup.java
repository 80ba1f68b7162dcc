package io.videoedge.server.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A memory cgroup with a limit, as the kubelet makes for a container with {@code resources.limits.memory}:
 * a process started through {@link #launcher} runs in it, and the kernel reclaims, then kills (an OOM
 * kill, counted) when its memory (anonymous, page cache, kernel slab) would pass the limit. cgroup v2
 * ({@code memory.max}) or v1 ({@code memory.limit_in_bytes}), whichever the host mounts; root only.
 */
public final class MemoryCgroup implements AutoCloseable {
    private static final Path V2 = Path.of("/sys/fs/cgroup");
    private static final Path V1 = Path.of("/sys/fs/cgroup/memory");

    private final Path dir;
    private final boolean v2;

    private MemoryCgroup(Path dir, boolean v2) {
        this.dir = dir;
        this.v2 = v2;
    }

    /** A new cgroup under the root with this limit; fails (does not skip) where the host has no memory controller. */
    public static MemoryCgroup create(String name, long limitBytes) throws IOException {
        boolean v2 = Files.exists(V2.resolve("cgroup.controllers"));
        Path parent = v2 ? V2 : V1;
        if (!Files.exists(parent.resolve("cgroup.procs"))) {
            throw new IllegalStateException(
                    "no memory cgroup controller mounted at " + V2 + " (v2) or " + V1 + " (v1)");
        }
        if (v2 && !Files.readString(V2.resolve("cgroup.subtree_control")).contains("memory")) {
            Files.writeString(V2.resolve("cgroup.subtree_control"), "+memory");
        }
        Path dir = parent.resolve(name);
        if (Files.isDirectory(dir)) Files.delete(dir); // left by a killed run; fails if something still runs in it
        Files.createDirectory(dir);
        MemoryCgroup cg = new MemoryCgroup(dir, v2);
        if (v2) {
            Files.writeString(dir.resolve("memory.max"), Long.toString(limitBytes));
            Files.writeString(dir.resolve("memory.swap.max"), "0");
        } else {
            Files.writeString(dir.resolve("memory.limit_in_bytes"), Long.toString(limitBytes));
            Files.writeString(dir.resolve("memory.swappiness"), "0");
        }
        return cg;
    }

    /** A command prefix that moves itself into this cgroup, then execs the rest (so the process is the command). */
    public List<String> launcher() {
        return List.of("sh", "-c", "echo $$ > " + dir.resolve("cgroup.procs") + " && exec \"$@\"", "sh");
    }

    /** "cgroup v2" or "cgroup v1": which hierarchy holds it. */
    public String hierarchy() {
        return v2 ? "cgroup v2" : "cgroup v1";
    }

    /** Processes of this cgroup the kernel's OOM killer has killed. */
    public long oomKills() throws IOException {
        Path file = dir.resolve(v2 ? "memory.events" : "memory.oom_control");
        for (String line : Files.readAllLines(file)) {
            if (line.startsWith("oom_kill "))
                return Long.parseLong(line.substring("oom_kill ".length()).strip());
        }
        throw new IllegalStateException("no oom_kill counter in " + file);
    }

    /** Memory charged to the cgroup now, page cache included. */
    public long usageBytes() throws IOException {
        return read(v2 ? "memory.current" : "memory.usage_in_bytes");
    }

    /** The most ever charged, page cache included (cgroup v2 from Linux 5.19). */
    public long peakBytes() throws IOException {
        return read(v2 ? "memory.peak" : "memory.max_usage_in_bytes");
    }

    /** Anonymous memory and kernel memory charged now: what reclaim cannot drop (no swap). */
    public long unreclaimableBytes() throws IOException {
        long anon = 0, kernel = 0;
        for (String line : Files.readAllLines(dir.resolve("memory.stat"))) {
            String[] kv = line.split(" ");
            switch (kv[0]) {
                case "anon", "rss" -> anon = Long.parseLong(kv[1]);
                case "kernel" -> kernel = Long.parseLong(kv[1]);
                default -> {}
            }
        }
        if (!v2) kernel = read("memory.kmem.usage_in_bytes");
        return anon + kernel;
    }

    private long read(String file) throws IOException {
        return Long.parseLong(Files.readString(dir.resolve(file)).strip());
    }

    /** Removes the cgroup; its processes must have exited. */
    @Override
    public void close() throws IOException {
        for (int i = 0; i < 50 && Files.isDirectory(dir); i++) {
            try {
                Files.delete(dir);
            } catch (IOException e) {
                try {
                    Thread.sleep(100); // the last process is still being reaped
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
