package io.videoedge.server.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.http.Validators;
import org.junit.jupiter.api.Test;

class ObjectMetaTest {
    private static ObjectMeta meta(String lastModified) {
        return new ObjectMeta("v/a.m3u8", "application/vnd.apple.mpegurl", "\"e\"", lastModified, 10, 1, 2, 7);
    }

    @Test
    void lastModifiedIsParsedOnceAndAnsweredTheSameEveryTime() {
        ObjectMeta m = meta("Sun, 06 Nov 1994 08:49:37 GMT");
        Validators first = m.validators();
        assertThat(first).isEqualTo(new Validators(10, 784111777000L, "\"e\""));
        assertThat(m.validators()).isEqualTo(first);
    }

    @Test
    void withoutAnHttpDateNoDateValidates() {
        for (String value : new String[] {null, "yesterday", "Sun, 6 Nov 1994 08:49:37 GMT"}) {
            ObjectMeta m = meta(value);
            assertThat(m.validators().lastModifiedMillis()).as(value).isEqualTo(-1);
            assertThat(m.validators().hasLastModified()).as(value).isFalse();
        }
        assertThat(meta("Sunday, 06-Nov-94 08:49:37 GMT").validators().lastModifiedMillis())
                .as("the obsolete rfc850 form is a date too (RFC 9110 5.6.7)")
                .isEqualTo(784111777000L);
    }

    @Test
    void equalityIsTheStoredFieldsNotWhatWasAskedOfIt() {
        ObjectMeta asked = meta("Sun, 06 Nov 1994 08:49:37 GMT");
        asked.validators();
        ObjectMeta fresh = meta("Sun, 06 Nov 1994 08:49:37 GMT");
        assertThat(asked).isEqualTo(fresh).hasSameHashCodeAs(fresh);
        assertThat(asked).isNotEqualTo(meta("Mon, 07 Nov 1994 08:49:37 GMT"));
        assertThat(asked.withExpiry(99).validators()).isEqualTo(asked.validators());
        assertThat(asked.withExpiry(99).expiresAt()).isEqualTo(99);
    }

    @Test
    void aRevalidationKeepsTheLifetimeTheOriginGaveCountingFromItsConfirmation() {
        ObjectMeta m = new ObjectMeta("v/s.m4s", "video/iso.segment", "\"e\"", null, 10, 1_000, 61_000, 7);
        assertThat(m.lifetime()).isEqualTo(60_000);
        ObjectMeta confirmed = m.revalidated(100_000, 100_000 + m.lifetime(), false, Directives.NONE);
        assertThat(confirmed.fetchedAt()).isEqualTo(100_000);
        assertThat(confirmed.lifetime())
                .as("not the time since the first fetch")
                .isEqualTo(60_000);
        assertThat(confirmed
                        .revalidated(200_000, 200_000 + confirmed.lifetime(), false, Directives.NONE)
                        .expiresAt())
                .isEqualTo(260_000);
        assertThat(new ObjectMeta("k", null, null, null, 0, 5, 2, 0).lifetime())
                .as("expired when it came")
                .isZero();
    }

    @Test
    void theSameBytesAreOneFetchWithOneChecksumWhateverTheirExpiry() {
        ObjectMeta m = new ObjectMeta("v/s.m4s", "video/iso.segment", "\"e\"", null, 10, 1, 2, 7);
        assertThat(m.sameBytes(m.withExpiry(99))).as("another expiry").isTrue();
        assertThat(m.sameBytes(new ObjectMeta("v/s.m4s", "video/iso.segment", "\"e\"", null, 10, 1, 2, 8)))
                .as("another checksum")
                .isFalse();
        assertThat(m.sameBytes(new ObjectMeta("v/s.m4s", "video/iso.segment", "\"e\"", null, 10, 5, 2, 7)))
                .as("fetched again")
                .isFalse();
        assertThat(m.sameBytes(new ObjectMeta("v/t.m4s", "video/iso.segment", "\"e\"", null, 10, 1, 2, 7)))
                .as("another key")
                .isFalse();
    }
}
