package io.videoedge.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NegotiationTest {
    private static final long MTIME = 1_700_000_000_000L;
    /** The server's clock: a day after the object was modified. */
    private static final long NOW = MTIME + 86_400_000L;

    private final Validators v = Validators.of(1000, MTIME);
    private final String lastModified = HttpDates.format(MTIME);

    @Test
    void plainGetIsTheWholeObject() {
        assertThat(Negotiation.decide(v, null, null, null, null, NOW)).isEqualTo(new Decision(200, 0, 1000));
    }

    @Test
    void etagIsStrongAndDerivedFromTimeAndLength() {
        assertThat(v.etag()).isEqualTo("\"6553f100-3e8\"");
    }

    @Test
    void matchingIfNoneMatchIsNotModified() {
        assertThat(Negotiation.decide(v, v.etag(), null, null, null, NOW)).isEqualTo(Decision.NOT_MODIFIED);
        assertThat(Negotiation.decide(v, "\"x\", W/" + v.etag(), null, null, null, NOW))
                .isEqualTo(Decision.NOT_MODIFIED);
        assertThat(Negotiation.decide(v, "*", null, null, null, NOW)).isEqualTo(Decision.NOT_MODIFIED);
    }

    @Test
    void ifNoneMatchWinsOverIfModifiedSince() {
        assertThat(Negotiation.decide(v, "\"other\"", lastModified, null, null, NOW)
                        .status())
                .isEqualTo(200);
    }

    @Test
    void ifModifiedSinceComparesSeconds() {
        assertThat(Negotiation.decide(v, null, lastModified, null, null, NOW)).isEqualTo(Decision.NOT_MODIFIED);
        assertThat(Negotiation.decide(v, null, HttpDates.format(MTIME + 3_600_000), null, null, NOW))
                .isEqualTo(Decision.NOT_MODIFIED);
        assertThat(Negotiation.decide(v, null, HttpDates.format(MTIME - 1000), null, null, NOW)
                        .status())
                .isEqualTo(200);
        assertThat(Negotiation.decide(v, null, "yesterday", null, null, NOW).status())
                .isEqualTo(200);
    }

    @Test
    void ifModifiedSinceInTheFutureIsNotAValidator() {
        assertThat(Negotiation.decide(v, null, HttpDates.format(NOW), null, null, NOW))
                .isEqualTo(Decision.NOT_MODIFIED);
        assertThat(Negotiation.decide(v, null, HttpDates.format(NOW + 1000), null, null, NOW)
                        .status())
                .isEqualTo(200);
        assertThat(Negotiation.decide(v, null, "Fri, 01 Jan 2100 00:00:00 GMT", null, null, NOW)
                        .status())
                .isEqualTo(200);
    }

    @Test
    void theExactLastModifiedValidatesEvenWhenItIsAheadOfOurClock() {
        // a file touched into the future, or an origin whose clock runs ahead: the client echoes our own date
        Validators ahead = Validators.of(1000, NOW + 3_600_000);
        assertThat(Negotiation.decide(ahead, null, HttpDates.format(NOW + 3_600_000), null, null, NOW))
                .isEqualTo(Decision.NOT_MODIFIED);
        assertThat(Negotiation.decide(ahead, null, HttpDates.format(NOW + 7_200_000), null, null, NOW)
                        .status())
                .isEqualTo(200);
    }

    @Test
    void withoutLastModifiedNoDateValidates() {
        Validators none = new Validators(1000, -1, "\"e\"");
        assertThat(Negotiation.decide(none, null, HttpDates.format(NOW), null, null, NOW)
                        .status())
                .isEqualTo(200);
        assertThat(Negotiation.decide(none, null, "Thu, 01 Jan 1970 00:00:00 GMT", null, null, NOW)
                        .status())
                .isEqualTo(200);
        assertThat(Negotiation.decide(none, null, null, "bytes=0-0", "Thu, 01 Jan 1970 00:00:00 GMT", NOW)
                        .status())
                .isEqualTo(200);
        assertThat(Negotiation.decide(none, null, null, "bytes=0-0", "\"e\"", NOW)
                        .status())
                .isEqualTo(206);
    }

    @Test
    void rangeGivesPartialContentOrUnsatisfiable() {
        assertThat(Negotiation.decide(v, null, null, "bytes=10-19", null, NOW)).isEqualTo(new Decision(206, 10, 10));
        assertThat(Negotiation.decide(v, null, null, "bytes=1000-", null, NOW))
                .isEqualTo(Decision.RANGE_NOT_SATISFIABLE);
        assertThat(Negotiation.decide(v, null, null, "bytes=0-1,3-4", null, NOW).status())
                .isEqualTo(200);
    }

    @Test
    void ifRangeHonoursTheRangeOnlyForTheCurrentVersion() {
        assertThat(Negotiation.decide(v, null, null, "bytes=0-0", v.etag(), NOW).status())
                .isEqualTo(206);
        assertThat(Negotiation.decide(v, null, null, "bytes=0-0", lastModified, NOW)
                        .status())
                .isEqualTo(206);
        assertThat(Negotiation.decide(v, null, null, "bytes=0-0", "\"stale\"", NOW)
                        .status())
                .isEqualTo(200);
        assertThat(Negotiation.decide(v, null, null, "bytes=0-0", "W/" + v.etag(), NOW)
                        .status())
                .isEqualTo(200);
        assertThat(Negotiation.decide(v, null, null, "bytes=0-0", HttpDates.format(MTIME + 1000), NOW)
                        .status())
                .isEqualTo(200);
    }

    @Test
    void anOriginsWeakEtagMatchesIfNoneMatchButNeverIfRange() {
        Validators weak = new Validators(1000, MTIME, "W/\"v1\"");
        assertThat(Negotiation.decide(weak, "W/\"v1\"", null, null, null, NOW)).isEqualTo(Decision.NOT_MODIFIED);
        assertThat(Negotiation.decide(weak, "\"v1\"", null, null, null, NOW)).isEqualTo(Decision.NOT_MODIFIED);
        assertThat(Negotiation.decide(weak, "\"v2\", W/\"v1\"", null, null, null, NOW))
                .isEqualTo(Decision.NOT_MODIFIED);
        assertThat(Negotiation.decide(weak, "W/\"v2\"", null, null, null, NOW).status())
                .isEqualTo(200);
        assertThat(Negotiation.decide(weak, null, null, "bytes=0-0", "W/\"v1\"", NOW)
                        .status())
                .as("If-Range compares strongly: a weak tag never matches")
                .isEqualTo(200);
    }

    @Test
    void conditionalBeatsRange() {
        assertThat(Negotiation.decide(v, v.etag(), null, "bytes=0-0", null, NOW))
                .isEqualTo(Decision.NOT_MODIFIED);
    }

    @Test
    void datesAreImfFixdate() {
        assertThat(HttpDates.format(784111777000L)).isEqualTo("Sun, 06 Nov 1994 08:49:37 GMT");
        assertThat(HttpDates.parseSeconds("Sun, 06 Nov 1994 08:49:37 GMT")).isEqualTo(784111777L);
    }
}
