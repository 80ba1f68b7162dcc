package io.videoedge.server.http;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/** IMF-fixdate (RFC 9110 5.6.7): "Sun, 06 Nov 1994 08:49:37 GMT". */
public final class HttpDates {
    private static final DateTimeFormatter IMF_FIXDATE = DateTimeFormatter.ofPattern(
                    "EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
            .withZone(ZoneOffset.UTC);

    private static volatile CachedNow now = new CachedNow(-1, "");

    /**
     * The last value parsed per slot (by hash): bounded, whatever clients send. Shared without a lock:
     * an entry is an immutable record (final fields), so a thread sees a whole one or an older one.
     */
    private static final Parsed[] RECENT = new Parsed[256];

    private record Parsed(String text, long seconds) {}

    private HttpDates() {}

    public static String format(long epochMillis) {
        return IMF_FIXDATE.format(Instant.ofEpochMilli(epochMillis));
    }

    /**
     * Seconds since the epoch, or -1 when the value is not an IMF-fixdate (then it is ignored). The values
     * seen repeat (clients send back the Last-Modified they were given, origins repeat theirs), and
     * {@code DateTimeFormatter} costs microseconds: recent ones are answered from {@link #RECENT}.
     */
    public static long parseSeconds(String value) {
        if (value == null) return -1;
        int slot = value.hashCode() & (RECENT.length - 1);
        Parsed recent = RECENT[slot];
        if (recent != null && recent.text.equals(value)) {
            return recent.seconds;
        }
        long seconds = parse(value);
        RECENT[slot] = new Parsed(value, seconds);
        return seconds;
    }

    private static long parse(String value) {
        try {
            return ZonedDateTime.parse(value.trim(), IMF_FIXDATE).toEpochSecond();
        } catch (DateTimeParseException e) {
            return -1;
        }
    }

    /** The whole Date header line ("Date: ..."), made once per second. */
    public static String dateHeader() {
        long second = System.currentTimeMillis() / 1000;
        CachedNow cached = now;
        if (cached.second != second) {
            cached = new CachedNow(second, "Date: " + format(second * 1000));
            now = cached;
        }
        return cached.header;
    }

    private record CachedNow(long second, String header) {}
}
