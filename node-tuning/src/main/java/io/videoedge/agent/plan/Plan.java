package io.videoedge.agent.plan;

import io.videoedge.api.SettingState;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** Every setting of one NodeTuning on one node, in apply order. */
public record Plan(List<Setting> settings) {

    public List<Setting> changes() {
        return settings.stream().filter(Setting::needsWrite).toList();
    }

    public List<Setting> inState(SettingState state) {
        return settings.stream().filter(s -> s.state() == state).toList();
    }

    public Optional<Setting> find(String name) {
        return settings.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /**
     * A hash of what the plan asks for (names, targets, desired values): equal fingerprints mean
     * the same plan, so a value found different from it later is drift, not a new spec.
     */
    public String fingerprint() {
        String canonical = settings.stream()
                .map(s -> s.name() + "|" + s.target() + "|" + s.desired() + "|"
                        + (s.state() == SettingState.PENDING ? "pending" : ""))
                .sorted()
                .collect(Collectors.joining("\n"));
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
