package io.videoedge.server.signing;

import io.videoedge.server.config.SignedUrlsConfig;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** Which paths need a token: the longest rule prefix that starts the path decides; no rule, no token. */
public final class UrlPolicy {
    /** What a rule asks of the paths under its prefix. */
    public enum Mode {
        /** 403 without a valid token. */
        REQUIRED,
        /** A token is checked when the request has one (403 when it is not valid); none is fine. */
        OPTIONAL,
        /** No check, even of a token the request carries. */
        OFF
    }

    private record Rule(String prefix, Mode mode) {}

    private final List<Rule> rules; // longest prefix first

    private UrlPolicy(List<Rule> rules) {
        this.rules = rules;
    }

    /** The policy of a validated config section (prefixes start with "/", modes known). */
    public static UrlPolicy of(SignedUrlsConfig.Rule[] rules) {
        return new UrlPolicy(Arrays.stream(rules == null ? new SignedUrlsConfig.Rule[0] : rules)
                .map(r -> new Rule(r.prefix, Mode.valueOf(r.mode.toUpperCase(Locale.ROOT))))
                .sorted(Comparator.comparingInt((Rule r) -> r.prefix.length()).reversed())
                .toList());
    }

    /** The mode for a path as the server sees it (leading "/", decoded, normalised). */
    public Mode modeFor(String path) {
        for (Rule r : rules) {
            if (path.startsWith(r.prefix)) return r.mode;
        }
        return Mode.OFF;
    }

    /** True when no path needs a check (every rule off, or none). */
    public boolean checksNothing() {
        return rules.stream().allMatch(r -> r.mode == Mode.OFF);
    }
}
