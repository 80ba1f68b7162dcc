package io.videoedge.server;

import io.videoedge.server.config.ConfigDiff;
import io.videoedge.server.config.ConfigException;
import io.videoedge.server.config.ConfigLoader;
import io.videoedge.server.config.EdgeServerConfig;
import io.videoedge.server.config.LiveFields;
import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.metrics.EdgeMetrics.Reload;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-reads the {@code --config} file every interval and applies what can be applied without a
 * restart. Reading the path again follows a Kubernetes ConfigMap update (the kubelet swaps the
 * {@code ..data} symlink atomically, so a read sees the old file or the new one, whole). Changes are
 * detected by the SHA-256 of the content, not by mtime. A changed file is parsed and validated by
 * {@link ConfigLoader} exactly as at start, compared field by field ({@link ConfigDiff}) with the file
 * the server runs, and then:
 * <ul>
 * <li>invalid: nothing changes; the problems are logged ({@code invalid});</li>
 * <li>no setting differs (comments, order, formatting): the new checksum is in effect ({@code unchanged});</li>
 * <li>every difference is live ({@link LiveFields}): applied to the running server ({@code applied});</li>
 * <li>anything else: nothing is applied, not even the live part; the fields needing a restart are
 * logged and {@code videoedge_config_restart_required} is 1 until a restart or a file that the running
 * server can take ({@code restart_required}).</li>
 * </ul>
 * The same content is looked at once: a file that stays invalid or pending is not re-logged every poll.
 */
public final class ConfigReloader implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConfigReloader.class);

    private final Path file;
    private final EdgeServer server;
    private final EdgeMetrics metrics;
    private ScheduledExecutorService timer;

    // guarded by this
    private EdgeServerConfig running; // the file in effect as parsed, before EdgeServer's start-time adjustments
    private String runningSha256;
    private String seenSha256;
    private volatile boolean restartRequired;
    private volatile boolean invalid;

    /** @param loaded the config the server was started from (its text is parsed again: the server adjusted its copy) */
    ConfigReloader(Path file, ConfigLoader.Loaded loaded, EdgeServer server, EdgeMetrics metrics)
            throws ConfigException {
        this.file = file;
        this.server = server;
        this.metrics = metrics;
        this.running = ConfigLoader.parse(loaded.text(), file.toString());
        this.runningSha256 = loaded.sha256();
        this.seenSha256 = loaded.sha256();
        metrics.configInEffect(runningSha256);
        metrics.gauge(
                "videoedge_config_restart_required",
                "1 when the config file changes a field outside the live set: nothing of it was applied, the server needs a restart to take it",
                () -> restartRequired ? 1 : 0);
        metrics.gauge(
                "videoedge_config_invalid",
                "1 when the config file on disk is invalid: the server keeps running the last valid one (a restart would fail)",
                () -> invalid ? 1 : 0);
    }

    /** Starts polling; an interval of zero polls never (the file is still reported by its checksum). */
    synchronized void start(Duration interval) {
        if (interval.isZero() || timer != null) return;
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "config-watch");
            t.setDaemon(true);
            return t;
        });
        long ms = interval.toMillis();
        timer.scheduleWithFixedDelay(this::poll, ms, ms, TimeUnit.MILLISECONDS);
        log.atInfo()
                .addKeyValue("file", file.toString())
                .addKeyValue("intervalMs", ms)
                .log("watching the config file for changes");
    }

    private void poll() {
        try {
            check();
        } catch (RuntimeException e) {
            log.atError().setCause(e).addKeyValue("file", file.toString()).log("config check failed");
        }
    }

    /** What one look at the file found; {@code null} result: the content is the one looked at last time. */
    public record Outcome(
            Reload result, String sha256, List<ConfigDiff.Change> live, List<ConfigDiff.Change> restart) {}

    /** Looks at the file once (the watcher does this every interval; tests may call it directly). */
    public synchronized Outcome check() {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            String marker = "unreadable: " + e;
            if (marker.equals(seenSha256)) return new Outcome(null, marker, List.of(), List.of());
            seenSha256 = marker;
            return invalid(marker, List.of("cannot read the file: " + e));
        }
        String sha = ConfigLoader.sha256(bytes);
        if (sha.equals(seenSha256)) {
            return new Outcome(null, sha, List.of(), List.of());
        }
        seenSha256 = sha;
        ConfigLoader.Loaded next;
        EdgeServerConfig pristine;
        try {
            next = ConfigLoader.load(bytes, file.toString());
            pristine = ConfigLoader.parse(
                    next.text(), file.toString()); // next.config() is handed to the server, which adjusts it
        } catch (ConfigException e) {
            return invalid(sha, e.problems());
        }
        invalid = false;
        List<ConfigDiff.Change> changes = ConfigDiff.between(running, pristine);
        LiveFields.Decision decision = LiveFields.classify(changes);
        if (decision.unchanged()) {
            runningSha256 = sha;
            restartRequired = false;
            metrics.configInEffect(sha);
            metrics.configReload(Reload.UNCHANGED);
            log.atInfo()
                    .addKeyValue("file", file.toString())
                    .addKeyValue("checksum", sha)
                    .log("config file changed, its settings did not: nothing to apply");
            return new Outcome(Reload.UNCHANGED, sha, List.of(), List.of());
        }
        if (!decision.allLive()) {
            restartRequired = true;
            metrics.configReload(Reload.RESTART_REQUIRED);
            log.atWarn()
                    .addKeyValue("file", file.toString())
                    .addKeyValue("checksum", sha)
                    .addKeyValue("runningChecksum", runningSha256)
                    .addKeyValue(
                            "restartFields",
                            decision.restart().stream()
                                    .map(c -> c + " (" + LiveFields.whyRestart(c) + ")")
                                    .toList())
                    .addKeyValue(
                            "liveFields",
                            decision.live().stream()
                                    .map(ConfigDiff.Change::toString)
                                    .toList())
                    .log(
                            "config file changes fields that need a restart: nothing applied, the server keeps running its config");
            return new Outcome(Reload.RESTART_REQUIRED, sha, decision.live(), decision.restart());
        }
        try {
            server.reconfigure(next.config());
        } catch (IOException | RuntimeException e) {
            restartRequired = true; // the file differs from what runs, and a restart would take it
            metrics.configReload(Reload.FAILED);
            log.atError()
                    .setCause(e)
                    .addKeyValue("file", file.toString())
                    .addKeyValue("checksum", sha)
                    .addKeyValue(
                            "fields",
                            decision.live().stream()
                                    .map(ConfigDiff.Change::toString)
                                    .toList())
                    .log("applying the config live failed: the previous settings were restored");
            return new Outcome(Reload.FAILED, sha, decision.live(), List.of());
        }
        running = pristine;
        runningSha256 = sha;
        restartRequired = false;
        metrics.configInEffect(sha);
        metrics.configReload(Reload.APPLIED);
        log.atInfo()
                .addKeyValue("file", file.toString())
                .addKeyValue("checksum", sha)
                .addKeyValue(
                        "changed",
                        decision.live().stream()
                                .map(ConfigDiff.Change::toString)
                                .toList())
                .log("config applied live, no restart");
        return new Outcome(Reload.APPLIED, sha, decision.live(), List.of());
    }

    private Outcome invalid(String sha, List<String> problems) {
        invalid = true;
        restartRequired = false; // a restart would not start with this file
        metrics.configReload(Reload.INVALID);
        log.atError()
                .addKeyValue("file", file.toString())
                .addKeyValue("checksum", sha)
                .addKeyValue("runningChecksum", runningSha256)
                .addKeyValue("problems", problems)
                .log("config file is invalid: ignored, the server keeps running its config");
        return new Outcome(Reload.INVALID, sha, List.of(), List.of());
    }

    public boolean restartRequired() {
        return restartRequired;
    }

    public synchronized String runningSha256() {
        return runningSha256;
    }

    /** Stops the watcher; a check in progress finishes first. */
    @Override
    public void close() {
        ScheduledExecutorService t;
        synchronized (this) {
            t = timer;
            timer = null;
        }
        if (t == null) return;
        t.shutdown();
        try {
            if (!t.awaitTermination(30, TimeUnit.SECONDS)) t.shutdownNow();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
