package io.videoedge.server.http;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.Locale;

/**
 * HTTP dates (RFC 9110 5.6.7): sent as IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT"; read also in the two
 * obsolete forms every recipient must take, rfc850-date ("Sunday, 06-Nov-94 08:49:37 GMT", its two-digit
 * year in the century that puts it at most 50 years ahead) and asctime-date ("Sun Nov  6 08:49:37 1994").
 */
public final class HttpDates {
    private static final DateTimeFormatter IMF_FIXDATE = DateTimeFormatter.ofPattern(
                    "EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
            .withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter RFC_850 = new DateTimeFormatterBuilder()
            .appendPattern("EEEE, dd-MMM-")
            .appendValueReduced(
                    ChronoField.YEAR, 2, 2, LocalDate.now(ZoneOffset.UTC).minusYears(49))
            .appendPattern(" HH:mm:ss 'GMT'")
            .toFormatter(Locale.US)
            .withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter ASCTIME =
            DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.US).withZone(ZoneOffset.UTC);

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
     * Seconds since the epoch, or -1 when the value is no HTTP date (then it is ignored). The values
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
        String v = value.trim();
        if (v.length() < 4) return -1;
        // the form from its shape, so a value that is no date costs one attempt: "Sun," "Sun " "Sunday,"
        DateTimeFormatter form = v.charAt(3) == ',' ? IMF_FIXDATE : v.charAt(3) == ' ' ? ASCTIME : RFC_850;
        try {
            return ZonedDateTime.parse(v, form).toEpochSecond();
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
