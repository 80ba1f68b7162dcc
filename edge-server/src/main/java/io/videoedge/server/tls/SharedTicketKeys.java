package io.videoedge.server.tls;

import io.videoedge.server.config.TicketKeyFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Session ticket keys shared by every server of a fleet: {@code source} is a directory (a Kubernetes
 * Secret volume, kept current by the kubelet) of keys named {@code t<seconds>}, 48 bytes each, where
 * the number is the Unix time from which the key encrypts. Every {@code poll} the keys whose time has
 * come are placed in each {@code ssl.ticketDir} as plain files, oldest first, each newer (by
 * modification time, the order one-nio goes by) than the ones before it, and the keys the source no
 * longer has are deleted. So the newest active key encrypts, the others decrypt, and servers that all
 * have the Secret switch to a new key at its time (within one poll and one-nio's {@code refreshInterval}),
 * not whenever their kubelet delivered it: a ticket from one node resumes on another.
 */
public final class SharedTicketKeys implements TicketKeyKeeper {
    private static final Logger log = LoggerFactory.getLogger(SharedTicketKeys.class);
    static final Pattern NAME = Pattern.compile("t([0-9]{1,12})");

    /** A key of the source: its name, when it starts to encrypt, its bytes. */
    public record SourceKey(String name, long activeFromMillis, byte[] bytes) {}

    private final Path source;
    private final List<Path> dirs;
    private final Consumer<Boolean> outcome;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ticket-key-sync");
        t.setDaemon(true);
        return t;
    });
    private String lastProblem;

    private SharedTicketKeys(Path source, List<Path> dirs, Consumer<Boolean> outcome) {
        this.source = source;
        this.dirs = List.copyOf(dirs);
        this.outcome = outcome;
    }

    /**
     * Places the active keys now (throws when the source has none: the servers would not agree on a
     * key) and then every {@code pollMillis}.
     *
     * @param outcome told true for each change placed, false for each failed step
     */
    public static SharedTicketKeys start(Path source, List<Path> dirs, long pollMillis, Consumer<Boolean> outcome)
            throws IOException {
        SharedTicketKeys s = new SharedTicketKeys(source, dirs, outcome);
        s.place();
        s.timer.scheduleWithFixedDelay(s::step, pollMillis, pollMillis, TimeUnit.MILLISECONDS);
        return s;
    }

    /** Places the keys in effect into every ticketDir; throws when the source has none in effect. */
    private void place() throws IOException {
        List<SourceKey> active = active(read(source), System.currentTimeMillis());
        if (active.isEmpty()) {
            throw new IOException("ticketKeys.source " + source + " has no key in effect yet (files t<unix seconds>"
                    + " of " + TicketKeyFiles.KEY_LENGTH + " bytes, one at least from a time already past)");
        }
        for (Path dir : dirs) {
            if (mirror(active, dir, System.currentTimeMillis())) {
                outcome.accept(true);
                log.atInfo()
                        .addKeyValue("ticketDir", dir.toString())
                        .addKeyValue("current", active.getLast().name())
                        .addKeyValue("keys", active.size())
                        .log("shared session ticket keys placed");
            }
        }
    }

    private void step() {
        try {
            place();
            lastProblem = null;
        } catch (IOException | RuntimeException e) {
            outcome.accept(false);
            if (!e.toString().equals(lastProblem)) { // once per problem, not every poll
                lastProblem = e.toString();
                log.atError()
                        .addKeyValue("source", source.toString())
                        .addKeyValue("error", e.toString())
                        .log("shared session ticket keys: cannot place them; the keys in place stay");
            }
        }
    }

    /**
     * The keys of a source directory, oldest first. Entries not named {@code t<seconds>} are skipped
     * (a Secret volume's {@code ..data} and timestamped directory); a key of another length is refused.
     */
    static List<SourceKey> read(Path source) throws IOException {
        List<SourceKey> keys = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(source)) {
            for (Path p : entries) {
                Matcher m = NAME.matcher(p.getFileName().toString());
                if (!m.matches() || !Files.isRegularFile(p)) continue;
                byte[] bytes;
                try {
                    bytes = Files.readAllBytes(p);
                } catch (NoSuchFileException e) {
                    continue; // the kubelet swapped the directory meanwhile
                }
                if (bytes.length != TicketKeyFiles.KEY_LENGTH) {
                    throw new IOException(
                            p + " has " + bytes.length + " bytes, a key has " + TicketKeyFiles.KEY_LENGTH);
                }
                keys.add(new SourceKey(m.group(0), Long.parseLong(m.group(1)) * 1000, bytes));
            }
        }
        keys.sort(Comparator.comparingLong(SourceKey::activeFromMillis));
        return keys;
    }

    /** Pure: the keys in effect at {@code now}, oldest first (the last one encrypts). */
    static List<SourceKey> active(List<SourceKey> keys, long now) {
        return keys.stream().filter(k -> k.activeFromMillis() <= now).toList();
    }

    /**
     * Makes {@code dir} hold exactly {@code active}: missing keys are written oldest first, each newer
     * than every key already there; keys not in the list (or with other bytes) are deleted. True when
     * something changed.
     */
    static boolean mirror(List<SourceKey> active, Path dir, long now) throws IOException {
        Files.createDirectories(dir);
        Map<String, SourceKey> wanted = new HashMap<>();
        active.forEach(k -> wanted.put(k.name(), k));
        boolean changed = false;
        List<TicketKeys.Key> kept = new ArrayList<>();
        for (TicketKeys.Key k : TicketKeys.keys(dir)) {
            SourceKey w = wanted.get(k.file().getFileName().toString());
            if (w != null && Arrays.equals(Files.readAllBytes(k.file()), w.bytes())) {
                kept.add(k);
            } else {
                changed |= Files.deleteIfExists(k.file());
            }
        }
        List<SourceKey> missing = active.stream()
                .filter(k -> kept.stream()
                        .noneMatch(p -> p.file().getFileName().toString().equals(k.name())))
                .toList();
        long newestKept = kept.stream()
                .mapToLong(p -> wanted.get(p.file().getFileName().toString()).activeFromMillis())
                .max()
                .orElse(Long.MIN_VALUE);
        if (!missing.isEmpty() && missing.getFirst().activeFromMillis() < newestKept) {
            // an older key is missing: placed now it would be the newest file and encrypt; place all again
            for (TicketKeys.Key k : kept) Files.deleteIfExists(k.file());
            kept.clear();
            missing = active;
        }
        for (SourceKey k : missing) {
            kept.add(TicketKeys.write(dir, k.name(), k.bytes(), now, kept));
            changed = true;
        }
        return changed;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
