package io.videoedge.operator.it;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The operator's own writes, as the API server's audit log records them: an audit policy that logs
 * write requests at the Metadata level, and a reader that counts those of the operator's user by
 * resource, verb and response code. The API server's metrics have no user label; this
 * attributes each write to its sender exactly, so the simulated cluster's failures (its DaemonSet
 * controller's status conflicts) are not counted as the operator's.
 */
final class OperatorAudit {
    private final Path policy;
    private final Path log;
    private final String user;
    private long start;

    /** The operator's writes and which of them failed, keyed "resource[/subresource] verb" (verb as audited). */
    record Writes(Map<String, Long> all, Map<String, Long> failed) {
        long total() {
            return all.values().stream().mapToLong(Long::longValue).sum();
        }

        long failedTotal() {
            return failed.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private OperatorAudit(Path policy, Path log, String user) {
        this.policy = policy;
        this.log = log;
        this.user = user;
    }

    /**
     * For an operator that authenticates as {@code user} (its ServiceAccount's token): the policy logs
     * that user's writes only. {@link #flags()} are the API server's flags that use it.
     */
    static OperatorAudit of(Path dir, String user) throws IOException {
        return write(dir, user, "  users: [\"" + user + "\"]\n");
    }

    /**
     * For an operator whose client impersonates {@code user}: the API server matches its audit policy
     * against the authenticated user (the impersonating one), so the policy logs every write and the
     * reader keeps those made as {@code user}.
     */
    static OperatorAudit impersonating(Path dir, String user) throws IOException {
        return write(dir, user, "");
    }

    private static OperatorAudit write(Path dir, String user, String users) throws IOException {
        Files.createDirectories(dir);
        Path policy = dir.resolve("audit-policy.yaml");
        Files.writeString(
                policy,
                "apiVersion: audit.k8s.io/v1\n"
                        + "kind: Policy\n"
                        + "omitStages: [RequestReceived]\n"
                        + "rules:\n"
                        + "- level: Metadata\n"
                        + users
                        + "  verbs: [create, update, patch, delete, deletecollection]\n"
                        + "- level: None\n");
        Path log = dir.resolve("audit.log");
        Files.deleteIfExists(log);
        return new OperatorAudit(policy, log, user);
    }

    List<String> flags() {
        return List.of(
                "--audit-policy-file=" + policy.toAbsolutePath(),
                "--audit-log-path=" + log.toAbsolutePath(),
                // not rotated (the default rotates at 100 MB, which a 10,000-node bench passes): one file
                "--audit-log-maxsize=100000",
                "--audit-log-format=json");
    }

    /** From now on: the writes before this (the operator's start) are not counted. */
    void mark() throws IOException {
        start = Files.exists(log) ? Files.size(log) : 0;
    }

    /** The operator's writes since {@link #mark()}, from the events of their completed responses. */
    Writes since() {
        Map<String, Long> all = new TreeMap<>();
        Map<String, Long> failed = new TreeMap<>();
        if (!Files.exists(log)) {
            return new Writes(all, failed);
        }
        rotatedAway();
        try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
            file.seek(start);
            byte[] rest = new byte[(int) (file.length() - start)];
            file.readFully(rest);
            for (String line : new String(rest, StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank()) {
                    continue;
                }
                Map<?, ?> event = Serialization.unmarshal(line, Map.class);
                Object stage = event.get("stage");
                if (!"ResponseComplete".equals(stage) && !"Panic".equals(stage)) {
                    continue;
                }
                Object impersonated = map(event.get("impersonatedUser")).get("username");
                Object sender = impersonated != null
                        ? impersonated
                        : map(event.get("user")).get("username");
                if (!user.equals(sender)) {
                    continue;
                }
                Map<?, ?> ref = map(event.get("objectRef"));
                Object subresource = ref.get("subresource");
                String key = ref.get("resource") + (subresource == null ? "" : "/" + subresource) + " "
                        + String.valueOf(event.get("verb")).toUpperCase(Locale.ROOT);
                all.merge(key, 1L, Long::sum);
                Object code = map(event.get("responseStatus")).get("code");
                int status = code instanceof Number number ? number.intValue() : 0;
                if (status < 200 || status > 299) {
                    failed.merge(key + " " + status, 1L, Long::sum);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Writes(all, failed);
    }

    /** A rotated audit log would hold writes this count leaves out: refuse to count rather than undercount. */
    private void rotatedAway() {
        try (var files = Files.list(log.getParent())) {
            List<Path> rotated = files.filter(f -> {
                        String name = f.getFileName().toString();
                        return name.startsWith("audit-") && name.endsWith(".log");
                    })
                    .toList();
            if (!rotated.isEmpty()) {
                throw new IllegalStateException("the API server rotated its audit log (" + rotated
                        + "): the operator's writes cannot all be counted");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<?, ?> map(Object o) {
        return o instanceof Map<?, ?> m ? m : Map.of();
    }
}
