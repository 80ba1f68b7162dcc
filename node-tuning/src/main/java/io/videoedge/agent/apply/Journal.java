package io.videoedge.agent.apply;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.videoedge.agent.plan.Setting;
import io.videoedge.agent.plan.SettingKind;
import java.io.IOException;
import java.io.UncheckedIOException;
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

/**
 * The original value of every setting the agent changed, kept on the node (a hostPath file) so
 * a restarted agent still restores exactly. An entry is written, atomically (temp file, fsync,
 * rename, fsync of the directory), before the first change of its setting, and never
 * overwritten: it always holds the value from before the agent.
 */
public final class Journal {
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
    record Content(int version, String fingerprint, List<Entry> entries) {}

    private final Path file;
    private final Clock clock;
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private String fingerprint;

    private Journal(Path file, Clock clock) {
        this.file = file;
        this.clock = clock;
    }

    /** Loads the journal at file, or an empty one when the file does not exist yet. */
    public static Journal open(Path file, Clock clock) {
        Journal j = new Journal(file, clock);
        if (Files.exists(file)) {
            try {
                Content c = JSON.readValue(file.toFile(), Content.class);
                j.fingerprint = c.fingerprint();
                if (c.entries() != null) {
                    c.entries().forEach(e -> j.entries.put(e.name(), e));
                }
            } catch (IOException e) {
                // never guess originals: a journal that cannot be read stops the agent with the path to fix
                throw new UncheckedIOException("journal " + file + " is unreadable; fix or move it aside", e);
            }
        }
        return j;
    }

    /** Entries in the order their settings were first changed. */
    public synchronized List<Entry> entries() {
        return List.copyOf(entries.values());
    }

    public synchronized boolean isEmpty() {
        return entries.isEmpty();
    }

    public synchronized String fingerprint() {
        return fingerprint;
    }

    /** Keeps original as the setting's value before the agent, unless one is kept already; durable on return. */
    public synchronized boolean recordIfAbsent(Setting s, String original) throws IOException {
        if (entries.containsKey(s.name())) {
            return false;
        }
        entries.put(
                s.name(),
                new Entry(
                        s.name(),
                        s.kind(),
                        s.target(),
                        s.param(),
                        original,
                        clock.instant().toString()));
        save();
        return true;
    }

    public synchronized void remove(String name) throws IOException {
        if (entries.remove(name) != null) {
            save();
        }
    }

    public synchronized void setFingerprint(String fp) throws IOException {
        if (!java.util.Objects.equals(fp, fingerprint)) {
            fingerprint = fp;
            save();
        }
    }

    private void save() throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve(file.getFileName() + ".tmp");
        byte[] bytes = JSON.writeValueAsBytes(new Content(1, fingerprint, new ArrayList<>(entries.values())));
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
