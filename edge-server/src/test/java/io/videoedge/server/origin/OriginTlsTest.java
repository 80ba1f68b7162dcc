package io.videoedge.server.origin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;

class OriginTlsTest {
    private static Collection<List<?>> san(Object... typeAndValue) {
        List<List<?>> names = new java.util.ArrayList<>();
        for (int i = 0; i < typeAndValue.length; i += 2) names.add(List.of(typeAndValue[i], typeAndValue[i + 1]));
        return names;
    }

    @Test
    void dnsNamesMatchExactlyAndCaseInsensitively() {
        assertThat(OriginTls.matches(san(2, "origin.example.com"), "origin.example.com"))
                .isTrue();
        assertThat(OriginTls.matches(san(2, "Origin.Example.COM"), "origin.example.com."))
                .isTrue();
        assertThat(OriginTls.matches(san(2, "origin.example.com"), "other.example.com"))
                .isFalse();
        assertThat(OriginTls.matches(san(2, "example.com"), "origin.example.com"))
                .isFalse();
    }

    @Test
    void aWildcardIsOneWholeLeftMostLabel() {
        assertThat(OriginTls.matches(san(2, "*.example.com"), "origin.example.com"))
                .isTrue();
        assertThat(OriginTls.matches(san(2, "*.example.com"), "a.b.example.com"))
                .isFalse();
        assertThat(OriginTls.matches(san(2, "*.example.com"), "example.com")).isFalse();
        assertThat(OriginTls.matches(san(2, "*.com"), "example.com")).isFalse();
        assertThat(OriginTls.matches(san(2, "o*.example.com"), "origin.example.com"))
                .isFalse();
        assertThat(OriginTls.matches(san(2, "origin.*.com"), "origin.example.com"))
                .isFalse();
    }

    @Test
    void anIpHostNeedsAnIpAddressEntry() {
        assertThat(OriginTls.matches(san(7, "127.0.0.1"), "127.0.0.1")).isTrue();
        assertThat(OriginTls.matches(san(2, "127.0.0.1"), "127.0.0.1"))
                .as("a DNS entry never names an IP")
                .isFalse();
        assertThat(OriginTls.matches(san(7, "0:0:0:0:0:0:0:1"), "[::1]")).isTrue();
        assertThat(OriginTls.matches(san(7, "10.0.0.1"), "127.0.0.1")).isFalse();
        assertThat(OriginTls.matches(san(7, "127.0.0.1"), "localhost"))
                .as("no resolution")
                .isFalse();
    }

    @Test
    void noSubjectAltNameNamesNothing() {
        assertThat(OriginTls.matches(null, "origin.example.com")).isFalse();
        assertThat(OriginTls.matches(san(1, "admin@origin.example.com"), "origin.example.com"))
                .isFalse();
    }
}
