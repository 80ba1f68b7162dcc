package io.videoedge.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NegotiationTest {
    private static final long MTIME = 1_700_000_000_000L;
    private final Validators v = Validators.of(1000, MTIME);
    private final String lastModified = HttpDates.format(MTIME);

    @Test
    void plainGetIsTheWholeObject() {
        assertThat(Negotiation.decide(v, null, null, null, null)).isEqualTo(new Decision(200, 0, 1000));
    }

    @Test
    void etagIsStrongAndDerivedFromTimeAndLength() {
        assertThat(v.etag()).isEqualTo("\"6553f100-3e8\"");
    }

    @Test
    void matchingIfNoneMatchIsNotModified() {
        assertThat(Negotiation.decide(v, v.etag(), null, null, null)).isEqualTo(Decision.NOT_MODIFIED);
        assertThat(Negotiation.decide(v, "\"x\", W/" + v.etag(), null, null, null)).isEqualTo(Decision.NOT_MODIFIED);
        assertThat(Negotiation.decide(v, "*", null, null, null)).isEqualTo(Decision.NOT_MODIFIED);
    }

    @Test
    void ifNoneMatchWinsOverIfModifiedSince() {
        assertThat(Negotiation.decide(v, "\"other\"", lastModified, null, null).status()).isEqualTo(200);
    }

    @Test
    void ifModifiedSinceComparesSeconds() {
        assertThat(Negotiation.decide(v, null, lastModified, null, null)).isEqualTo(Decision.NOT_MODIFIED);
        assertThat(Negotiation.decide(v, null, HttpDates.format(MTIME + 3_600_000), null, null)).isEqualTo(Decision.NOT_MODIFIED);
        assertThat(Negotiation.decide(v, null, HttpDates.format(MTIME - 1000), null, null).status()).isEqualTo(200);
        assertThat(Negotiation.decide(v, null, "yesterday", null, null).status()).isEqualTo(200);
    }

    @Test
    void rangeGivesPartialContentOrUnsatisfiable() {
        assertThat(Negotiation.decide(v, null, null, "bytes=10-19", null)).isEqualTo(new Decision(206, 10, 10));
        assertThat(Negotiation.decide(v, null, null, "bytes=1000-", null)).isEqualTo(Decision.RANGE_NOT_SATISFIABLE);
        assertThat(Negotiation.decide(v, null, null, "bytes=0-1,3-4", null).status()).isEqualTo(200);
    }

    @Test
    void ifRangeHonoursTheRangeOnlyForTheCurrentVersion() {
        assertThat(Negotiation.decide(v, null, null, "bytes=0-0", v.etag()).status()).isEqualTo(206);
        assertThat(Negotiation.decide(v, null, null, "bytes=0-0", lastModified).status()).isEqualTo(206);
        assertThat(Negotiation.decide(v, null, null, "bytes=0-0", "\"stale\"").status()).isEqualTo(200);
        assertThat(Negotiation.decide(v, null, null, "bytes=0-0", "W/" + v.etag()).status()).isEqualTo(200);
        assertThat(Negotiation.decide(v, null, null, "bytes=0-0", HttpDates.format(MTIME + 1000)).status()).isEqualTo(200);
    }

    @Test
    void conditionalBeatsRange() {
        assertThat(Negotiation.decide(v, v.etag(), null, "bytes=0-0", null)).isEqualTo(Decision.NOT_MODIFIED);
    }

    @Test
    void datesAreImfFixdate() {
        assertThat(HttpDates.format(784111777000L)).isEqualTo("Sun, 06 Nov 1994 08:49:37 GMT");
        assertThat(HttpDates.parseSeconds("Sun, 06 Nov 1994 08:49:37 GMT")).isEqualTo(784111777L);
    }
}
