package io.videoedge.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HttpDatesTest {
    @Test
    void aDateParsedAgainIsTheSameDate() {
        String lm = "Sun, 06 Nov 1994 08:49:37 GMT";
        for (int i = 0; i < 3; i++) {
            assertThat(HttpDates.parseSeconds(lm)).isEqualTo(784111777L);
            assertThat(HttpDates.parseSeconds(new String(lm))).isEqualTo(784111777L); // an equal, not the same, string
        }
    }

    @Test
    void valuesSharingATableSlotEachKeepTheirOwnDate() {
        // distinct dates, many more than the table's 256 slots: every slot is shared and overwritten in turn
        List<String> dates = new ArrayList<>();
        for (long s = 1_700_000_000L; dates.size() < 2_000; s += 86_399) {
            dates.add(HttpDates.format(s * 1000));
        }
        for (int round = 0; round < 3; round++) {
            for (String d : dates) {
                assertThat(HttpDates.parseSeconds(d) * 1000).as(d).isEqualTo(parseSlowly(d));
            }
        }
    }

    @Test
    void theTwoObsoleteFormsAreReadAsRfc9110AsksOfEveryRecipient() {
        assertThat(HttpDates.parseSeconds("Sunday, 06-Nov-94 08:49:37 GMT")).isEqualTo(784111777L);
        assertThat(HttpDates.parseSeconds("Sun Nov  6 08:49:37 1994")).isEqualTo(784111777L);
        assertThat(HttpDates.parseSeconds("Thu Nov 16 08:49:37 2000")).isEqualTo(974364577L);
        // a two-digit year is in the century that puts it at most 50 years ahead
        int year = java.time.Year.now(java.time.ZoneOffset.UTC).getValue();
        String ahead = String.format("%02d", (year + 49) % 100);
        String behind = String.format("%02d", (year + 51) % 100);
        assertThat(java.time.Instant.ofEpochSecond(HttpDates.parseSeconds(rfc850("01-Jan-" + ahead)))
                        .atZone(java.time.ZoneOffset.UTC)
                        .getYear())
                .isEqualTo(year + 49);
        assertThat(java.time.Instant.ofEpochSecond(HttpDates.parseSeconds(rfc850("01-Jan-" + behind)))
                        .atZone(java.time.ZoneOffset.UTC)
                        .getYear())
                .isEqualTo(year + 51 - 100);
    }

    /** "Weekday, dd-Mon-yy 00:00:00 GMT" with the weekday that date has. */
    private static String rfc850(String date) {
        java.time.format.DateTimeFormatter in = new java.time.format.DateTimeFormatterBuilder()
                .appendPattern("dd-MMM-")
                .appendValueReduced(
                        java.time.temporal.ChronoField.YEAR,
                        2,
                        2,
                        java.time.LocalDate.now(java.time.ZoneOffset.UTC).minusYears(49))
                .toFormatter(java.util.Locale.US);
        java.time.LocalDate d = java.time.LocalDate.parse(date, in);
        return d.getDayOfWeek().getDisplayName(java.time.format.TextStyle.FULL, java.util.Locale.US) + ", " + date
                + " 00:00:00 GMT";
    }

    @Test
    void notAnHttpDateIsIgnoredEveryTime() {
        for (int i = 0; i < 2; i++) {
            for (String v : new String[] {
                "",
                "yesterday",
                "Sun, 6 Nov 1994 08:49:37 GMT",
                "Mon, 06 Nov 1994 08:49:37 GMT",
                "Sun Nov 6 08:49:37 1994"
            }) {
                assertThat(HttpDates.parseSeconds(v)).as(v).isEqualTo(-1);
            }
        }
        assertThat(HttpDates.parseSeconds(null)).isEqualTo(-1);
    }

    /** What the table must agree with: the formatter itself, through format's inverse. */
    private static long parseSlowly(String d) {
        return java.time.ZonedDateTime.parse(d, java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME)
                        .toEpochSecond()
                * 1000;
    }
}
