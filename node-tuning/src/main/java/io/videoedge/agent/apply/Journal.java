package io.videoedge.agent.apply;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.videoedge.agent.facts.Boot;
import io.videoedge.agent.plan.Setting;
import io.videoedge.agent.plan.SettingKind;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The original value of every setting the agent changed, kept on the node (a hostPath file) so
 * a restarted agent still restores exactly. An entry is written, atomically (temp file, fsync,
 * rename, fsync of the directory), before the first change of its setting, and never
 * overwritten: it always holds the value from before the agent.
 *
 * <p>Originals belong to one boot of the node: a reboot resets every value the agent writes (sysctls, IRQ
 * affinities, queue counts, loaded modules), and may give the NIC's queue interrupts other numbers. The file
 * names the boot it was written in (/proc/sys/kernel/random/boot_id); opened under another boot, its entries
 * are dropped, so a revert never writes an earlier boot's value over this boot's own, nor an IRQ number that
 * now belongs to another device. A file from before boots were recorded (an older agent's) is an earlier
 * boot's when it was last written before this boot began (/proc/stat btime), else this boot's, and is
 * stamped with this boot at once.
 */
public final class Journal {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Journal.class);
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .setSerializationInclusion(JsonInclude.Include.NON_NULL);

    /** One original. */
    public record Entry(
            String name, SettingKind kind, String target, String param, String original, String recordedAt) {
        /** A setting that writes the original back. */
        public Setting asRestore() {
            return new Setting(name, kind, target, param, original, null, null, null, false);
        }
    }

    /** The file's content. */
    record Content(int version, String fingerprint, String bootId, List<Entry> entries) {}

    private final Path file;
    private final Clock clock;
    /** The boot the originals are kept for (its id is written in the file). */
    private final Boot boot;
    /** Entries the file held for an earlier boot, dropped when it was opened. */
    private int droppedFromEarlierBoot;

    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private String fingerprint;
    /** Why the file cannot be read (null: read, or absent). Nothing is written while it is set. */
    private String unreadable;
    /** The file did not exist when the agent started: originals may be adopted from the last report. */
    private final boolean absentAtOpen;

    private Journal(Path file, Clock clock, Boot boot) {
        this.file = file;
        this.clock = clock;
        this.boot = boot;
        this.absentAtOpen = !Files.exists(file);
    }

    /**
     * Loads the journal at file, or an empty one when the file does not exist yet. A file that exists
     * but cannot be read gives a journal that is {@link #unreadable()}: originals are never guessed, and
     * nothing is recorded (so nothing may be changed) until the file is fixed or moved aside.
     */
    public static Journal open(Path file, Clock clock) {
        return open(file, clock, Boot.UNKNOWN);
    }

    /**
     * Loads the journal at file for this boot of the node: entries of an earlier boot are dropped
     * ({@link #droppedFromEarlierBoot()}), and a file of this boot that does not name it is written again with it.
     */
    public static Journal open(Path file, Clock clock, Boot boot) {
        Journal j = new Journal(file, clock, boot);
        j.load();
        return j;
    }

    private void load() {
        entries.clear();
        fingerprint = null;
        unreadable = null;
        if (Files.exists(file)) {
            try {
                Content c = JSON.readValue(file.toFile(), Content.class);
                List<Entry> read = c.entries() == null ? List.of() : c.entries();
                if (boot.earlier(c.bootId(), Files.getLastModifiedTime(file).toInstant())) {
                    // the node rebooted since: the kernel holds its boot values again, and they are the originals now
                    droppedFromEarlierBoot = read.size();
                    return;
                }
                fingerprint = c.fingerprint();
                read.forEach(e -> entries.put(e.name(), e));
                if (c.bootId() == null && boot.id() != null && !read.isEmpty()) {
                    stampBoot(); // an older agent's file of this boot: a later reboot must be able to tell
                }
            } catch (IOException e) {
                unreadable = "the journal of originals " + file + " is unreadable ("
                        + e.getMessage().lines().findFirst().orElse("")
                        + "): fix it or move it aside; until then the agent changes nothing on this node and cannot restore it";
            }
        }
    }

    /** Why the journal cannot be used, if it cannot; reads the file again first (someone may have fixed it). */
    public synchronized Optional<String> unreadable() {
        if (unreadable != null) {
            load();
        }
        return Optional.ofNullable(unreadable);
    }

    /** How many entries the file held for an earlier boot of the node, dropped when it was opened. */
    public synchronized int droppedFromEarlierBoot() {
        return droppedFromEarlierBoot;
    }

    /** The boot the originals are kept for. */
    public Boot boot() {
        return boot;
    }

    private void stampBoot() {
        try {
            save();
        } catch (IOException e) {
            LOG.warn("could not record this boot in the journal of originals {}: {}", file, e.toString());
        }
    }

    /** Whether no journal file existed when the agent started. */
    public boolean absentAtOpen() {
        return absentAtOpen;
    }

    /**
     * Writes the journal again when its file has gone (deleted by hand or by a cleanup) while it still
     * holds originals: the agent keeps them in memory. True when it had to.
     */
    public synchronized boolean rewriteIfDeleted() throws IOException {
        if (unreadable != null || entries.isEmpty() || Files.exists(file)) {
            return false;
        }
        save();
        return true;
    }

    /** Entries in the order their settings were first changed. */
    public synchronized List<Entry> entries() {
        return List.copyOf(entries.values());
    }

    public synchronized boolean has(String name) {
        return entries.containsKey(name);
    }

    public synchronized boolean isEmpty() {
        return entries.isEmpty();
    }

    public synchronized String fingerprint() {
        return fingerprint;
    }

    /**
     * Keeps original as the setting's value before the agent, unless one is kept already; durable on return, and not
     * kept when it throws (so the next try records it, before its setting is changed).
     */
    public synchronized boolean recordIfAbsent(Setting s, String original) throws IOException {
        if (unreadable != null) {
            throw new IOException(unreadable);
        }
        if (entries.containsKey(s.name())) {
            return false;
        }
        Entry e = new Entry(
                s.name(),
                s.kind(),
                s.target(),
                s.param(),
                original,
                clock.instant().toString());
        change(() -> entries.put(s.name(), e));
        return true;
    }

    /** Drops an entry; durable on return, and still there when it throws. */
    public synchronized void remove(String name) throws IOException {
        if (entries.containsKey(name)) {
            change(() -> entries.remove(name));
        }
    }

    public synchronized void setFingerprint(String fp) throws IOException {
        if (!java.util.Objects.equals(fp, fingerprint)) {
            change(() -> fingerprint = fp);
        }
    }

    /** Makes a change and saves it; when the save fails, memory goes back to what it was before the change. */
    private void change(Runnable edit) throws IOException {
        Map<String, Entry> entriesBefore = new LinkedHashMap<>(entries);
        String fingerprintBefore = fingerprint;
        edit.run();
        try {
            save();
        } catch (IOException e) {
            entries.clear();
            entries.putAll(entriesBefore);
            fingerprint = fingerprintBefore;
            throw e;
        }
    }

    private void save() throws IOException {
        if (unreadable != null) {
            throw new IOException(unreadable); // never overwrite a file someone must look at
        }
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve(file.getFileName() + ".tmp");
        byte[] bytes =
                JSON.writeValueAsBytes(new Content(1, fingerprint, boot.id(), new ArrayList<>(entries.values())));
        try (FileChannel ch = FileChannel.open(
                tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(java.nio.ByteBuffer.wrap(bytes));
            ch.force(true);
        }
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("journal directory " + dir + " does not support atomic rename", e);
        }
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true); // the rename itself survives a power cut
        }
    }
}
