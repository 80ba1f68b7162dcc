package io.videoedge.server.accesslog;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AccessLineTest {
    static final long T0_MILLIS = 1_795_514_983_766L; // 2026-11-24T10:09:43.766Z

    @Test
    void aCompleteTlsResponseFromTheCache() {
        AccessLine l = new AccessLine(
                T0_MILLIS,
                1_000_000_000L,
                "10.0.0.7",
                "GET",
                "/hls/seg-1.m4s",
                200,
                2_097_152,
                "hit-memory",
                "TLSv1.3",
                true);
        l.finish(2_097_152, true, 1_041_500_000L);
        LineBuffer b = new LineBuffer(16);
        l.appendJson(b);
        assertThat(b.toString())
                .isEqualTo("{\"time\":\"2026-11-24T10:09:43.766Z\",\"client\":\"10.0.0.7\",\"method\":\"GET\","
                        + "\"path\":\"/hls/seg-1.m4s\",\"status\":200,\"bytes\":2097152,\"ms\":41,\"complete\":true,"
                        + "\"cache\":\"hit-memory\",\"tls\":\"TLSv1.3\",\"ktls\":true}\n");
    }

    @Test
    void plainHttpHasNoTlsFieldsAndACutResponseSaysSo() {
        AccessLine l = new AccessLine(T0_MILLIS, 0, "::1", "GET", "/a", 200, 100, null, null, false);
        l.finish(40, false, 5_000_000L);
        LineBuffer b = new LineBuffer(16);
        l.appendJson(b);
        assertThat(b.toString())
                .contains("\"bytes\":40,\"ms\":5,\"complete\":false}")
                .doesNotContain("tls", "cache");
    }

    @Test
    void aPathCannotBreakTheLine() {
        LineBuffer b = new LineBuffer(4);
        b.string("/a\"b\\c\nd\u0001e\u007ff\u00e9");
        assertThat(b.toString()).isEqualTo("\"/a\\\"b\\\\c\\nd\\u0001e\\u007ff\\u00e9\"");
    }

    @Test
    void numbersAndTimes() {
        LineBuffer b = new LineBuffer(1);
        b.num(0)
                .ch(' ')
                .num(-42)
                .ch(' ')
                .num(Long.MAX_VALUE)
                .ch(' ')
                .num(Long.MIN_VALUE)
                .ch(' ');
        b.time(T0_MILLIS).ch(' ').time(T0_MILLIS + 234).ch(' ').time(5);
        assertThat(b.toString())
                .isEqualTo("0 -42 9223372036854775807 -9223372036854775808 2026-11-24T10:09:43.766Z "
                        + "2026-11-24T10:09:44.000Z 1970-01-01T00:00:00.005Z");
    }
}
