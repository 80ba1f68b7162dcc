package io.videoedge.operator.render;

import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The session ticket keys every edge server of a VideoEdge shares (pure): the data of the Secret
 * {@code <name>-ticket-keys}, keys named {@code t<unix seconds>} (48 random bytes each; the number:
 * when the key starts to encrypt). A key encrypts for {@link #PERIOD} and decrypts for one more. Its
 * successor is added {@link #LEAD} before its time, so that every node has it (a Secret volume reaches
 * a pod within about a minute) and all of them switch at that time, not when each kubelet delivered it;
 * a ticket from one node then resumes on every other.
 */
public final class TicketKeyRing {
    public static final Duration PERIOD = Duration.ofHours(1);
    public static final Duration LEAD = Duration.ofMinutes(3);
    public static final int KEY_BYTES = 48;
    static final Duration FIRST_KEY_BACKDATE = Duration.ofMinutes(1);
    private static final Pattern NAME = Pattern.compile("t([0-9]{1,12})");

    private TicketKeyRing() {}

    /**
     * What the Secret should hold now and when to look again.
     *
     * @param data the Secret's data as stored (base64 values), null or empty when there is none
     */
    public record Next(SortedMap<String, String> data, Instant recheckAt) {}

    public static Next next(Map<String, String> data, Instant now, Supplier<byte[]> random) {
        long nowSeconds = now.getEpochSecond();
        TreeMap<Long, String> keys = new TreeMap<>(); // by time: the valid keys as stored
        if (data != null) {
            data.forEach((name, value) -> {
                Matcher m = NAME.matcher(name);
                if (m.matches() && decodedLength(value) == KEY_BYTES) keys.put(Long.parseLong(m.group(1)), value);
            });
        }
        if (keys.isEmpty()) {
            // the first key: in effect at once, also on a node whose clock is up to a minute behind ours
            keys.put(nowSeconds - FIRST_KEY_BACKDATE.toSeconds(), encode(random.get()));
        }
        long newest = keys.lastKey();
        long successorDue = newest + PERIOD.toSeconds() - LEAD.toSeconds();
        if (newest <= nowSeconds && successorDue <= nowSeconds) {
            // late (an operator that was down) or on time: the successor starts LEAD from now at the earliest
            long at = Math.max(newest + PERIOD.toSeconds(), nowSeconds + LEAD.toSeconds());
            keys.put(at, encode(random.get()));
        }
        // keep the keys still to come and the two newest in effect (current, previous)
        SortedMap<String, String> next = new TreeMap<>();
        int inEffect = 0;
        for (Long at : keys.descendingKeySet()) {
            if (at > nowSeconds || inEffect++ < 2) next.put("t" + at, keys.get(at));
        }
        long recheck = keys.lastKey() > nowSeconds
                ? keys.lastKey() // then the oldest leaves
                : keys.lastKey() + PERIOD.toSeconds() - LEAD.toSeconds();
        return new Next(next, Instant.ofEpochSecond(Math.max(recheck, nowSeconds + 1)));
    }

    private static int decodedLength(String value) {
        try {
            return Base64.getDecoder().decode(value).length;
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }

    private static String encode(byte[] key) {
        if (key.length != KEY_BYTES) throw new IllegalArgumentException("a ticket key has " + KEY_BYTES + " bytes");
        return Base64.getEncoder().encodeToString(key);
    }
}
