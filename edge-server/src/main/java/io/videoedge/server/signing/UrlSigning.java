package io.videoedge.server.signing;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.videoedge.server.config.SignedUrlsConfig;
import io.videoedge.server.metrics.EdgeMetrics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signed URLs on the request path: the policy and the keys in effect, the check of each request
 * ({@link UrlCheck}, on the selector thread: one HMAC per key, no I/O) and its metric. The key files
 * ({@code current}, optional {@code previous}) are read at start (a missing or short current key
 * refuses the start) and again every {@code keyPoll} on one daemon thread when their content changed;
 * a bad new set is logged and counted, and the keys in effect stay.
 */
public final class UrlSigning implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(UrlSigning.class);

    private final UrlPolicy policy;
    private final Path keyDir;
    private final CounterDataPoint[] results = new CounterDataPoint[UrlCheck.Result.values().length];
    private final Counter reloads;
    private volatile List<byte[]> keys;
    private boolean unreadable; // the last read failed (logged once), guarded by the poll thread
    private ScheduledExecutorService poller;

    private UrlSigning(UrlPolicy policy, Path keyDir, List<byte[]> keys, EdgeMetrics metrics) {
        this.policy = policy;
        this.keyDir = keyDir;
        this.keys = keys;
        Counter checks = EdgeMetrics.counterBuilder()
                .name("videoedge_signed_url_checks_total")
                .help("Requests for paths with a signed-URL rule, by result: ok and unsigned (optional path, no token)"
                        + " are served, the others answered 403")
                .labelNames("result")
                .register(metrics.registry());
        for (UrlCheck.Result r : UrlCheck.Result.values()) results[r.ordinal()] = checks.labelValues(r.label);
        reloads = EdgeMetrics.counterBuilder()
                .name("videoedge_signed_url_key_reloads_total")
                .help("Signing key files read again after they changed, by result (failed: the keys in effect stay)")
                .labelNames("result")
                .register(metrics.registry());
        reloads.initLabelValues("loaded");
        reloads.initLabelValues("failed");
        metrics.gauge(
                "videoedge_signed_url_keys",
                "Signing keys in effect (current, and previous when set)",
                () -> this.keys.size());
    }

    /** Null when the config has no signedUrls section; throws when the keys cannot be read at start. */
    public static UrlSigning start(SignedUrlsConfig config, EdgeMetrics metrics) throws IOException {
        if (config == null) return null;
        Path dir = Path.of(config.keyDir);
        UrlSigning s = new UrlSigning(UrlPolicy.of(config.rules), dir, readKeys(dir), metrics);
        if (config.keyPoll > 0) s.poll(config.keyPoll);
        log.atInfo()
                .addKeyValue("keyDir", dir.toString())
                .addKeyValue("keys", s.keys.size())
                .log("signed URLs: keys loaded");
        return s;
    }

    /** The check of one request; counted unless the path has no rule ({@code off}). */
    public UrlCheck.Result check(String path, String query, Supplier<String> client) {
        UrlPolicy.Mode mode = policy.modeFor(path);
        if (mode == UrlPolicy.Mode.OFF) return UrlCheck.Result.OK;
        UrlCheck.Result r = UrlCheck.check(mode, path, query, client, keys, System.currentTimeMillis() / 1000);
        results[r.ordinal()].inc();
        return r;
    }

    /** Reads {@code current} (required, at least {@link SignedUrlsConfig#MIN_KEY_BYTES}) and {@code previous}. */
    static List<byte[]> readKeys(Path dir) throws IOException {
        List<byte[]> keys = new ArrayList<>(2);
        byte[] current = Files.readAllBytes(dir.resolve(SignedUrlsConfig.CURRENT_KEY));
        keys.add(usable(current, SignedUrlsConfig.CURRENT_KEY));
        try {
            keys.add(usable(
                    Files.readAllBytes(dir.resolve(SignedUrlsConfig.PREVIOUS_KEY)), SignedUrlsConfig.PREVIOUS_KEY));
        } catch (NoSuchFileException e) {
            // no previous key: only the current one is accepted
        }
        return List.copyOf(keys);
    }

    private static byte[] usable(byte[] key, String name) throws IOException {
        if (key.length < SignedUrlsConfig.MIN_KEY_BYTES) {
            throw new IOException("signing key " + name + " has " + key.length + " bytes, at least "
                    + SignedUrlsConfig.MIN_KEY_BYTES + " are required");
        }
        return key;
    }

    private void poll(long millis) {
        poller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "signing-keys");
            t.setDaemon(true);
            return t;
        });
        poller.scheduleWithFixedDelay(this::reload, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** Reads the files again; a changed, usable set replaces the keys in effect. */
    void reload() {
        List<byte[]> read;
        try {
            read = readKeys(keyDir);
        } catch (IOException | RuntimeException e) {
            if (!unreadable) { // log a broken set once, not every poll
                unreadable = true;
                log.atError()
                        .addKeyValue("keyDir", keyDir.toString())
                        .addKeyValue("error", e.toString())
                        .log("signed URLs: cannot read the keys; the keys in effect stay");
                reloads.labelValues("failed").inc();
            }
            return;
        }
        unreadable = false;
        if (sameKeys(read, keys)) return;
        keys = read;
        reloads.labelValues("loaded").inc();
        log.atInfo().addKeyValue("keys", read.size()).log("signed URLs: keys changed, now in effect");
    }

    private static boolean sameKeys(List<byte[]> a, List<byte[]> b) {
        if (a.size() != b.size()) return false;
        for (int i = 0; i < a.size(); i++) {
            if (!Arrays.equals(a.get(i), b.get(i))) return false;
        }
        return true;
    }

    @Override
    public void close() {
        if (poller != null) poller.shutdownNow();
    }
}
