package io.videoedge.server.origin;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.http.HttpDates;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FreshnessTest {
    private static final long NOW = 1_700_000_000_000L;
    private static final long TTL = 600_000;

    @Test
    void onlyOkResponsesAreStored() {
        assertThat(Freshness.of(206, null, null, NOW, TTL).storable()).isFalse();
        assertThat(Freshness.of(404, null, null, NOW, TTL).storable()).isFalse();
    }

    @Test
    void noStoreAndPrivateForbidStoring() {
        assertThat(Freshness.of(200, "no-store", null, NOW, TTL)).isEqualTo(Freshness.NOT_STORABLE);
        assertThat(Freshness.of(200, "public, max-age=60, private", null, NOW, TTL))
                .isEqualTo(Freshness.NOT_STORABLE);
    }

    @Test
    void noCacheMustRevalidateAndProxyRevalidateForbidServingStale() {
        assertThat(Freshness.of(200, "no-cache", null, NOW, TTL).mustRevalidate())
                .isTrue();
        assertThat(Freshness.of(200, "max-age=60, must-revalidate", null, NOW, TTL))
                .isEqualTo(new Freshness(true, NOW + 60_000, true));
        assertThat(Freshness.of(200, "Proxy-Revalidate", null, NOW, TTL).mustRevalidate())
                .isTrue();
        assertThat(Freshness.of(200, "public, s-maxage=60", null, NOW, TTL).mustRevalidate())
                .as("s-maxage gives the lifetime only")
                .isFalse();
        assertThat(Freshness.of(200, null, null, NOW, TTL).mustRevalidate()).isFalse();
    }

    @Test
    void aBodyThatSetsACookieIsNotStored() {
        OriginHead withCookie =
                new OriginHead(200, Map.of("set-cookie", "session=abc", "cache-control", "max-age=60"), 0);
        assertThat(Freshness.ofBody(withCookie, NOW, TTL)).isEqualTo(Freshness.NOT_STORABLE);
        OriginHead without = new OriginHead(200, Map.of("cache-control", "max-age=60"), 0);
        assertThat(Freshness.ofBody(without, NOW, TTL)).isEqualTo(new Freshness(true, NOW + 60_000));
    }

    @Test
    void aBodyThatVariesOnEverythingIsNotStored() {
        for (String vary : new String[] {"*", "Accept-Encoding, *", " * "}) {
            OriginHead head = new OriginHead(200, Map.of("vary", vary, "cache-control", "max-age=60"), 0);
            assertThat(Freshness.ofBody(head, NOW, TTL)).as(vary).isEqualTo(Freshness.NOT_STORABLE);
        }
        OriginHead byEncoding =
                new OriginHead(200, Map.of("vary", "Accept-Encoding", "cache-control", "max-age=60"), 0);
        assertThat(Freshness.ofBody(byEncoding, NOW, TTL))
                .as("other Vary values are stored, as before (the edge serves one representation)")
                .isEqualTo(new Freshness(true, NOW + 60_000));
    }

    @Test
    void noStoreOrPrivateAfterNoCacheStillForbidsStoring() {
        assertThat(Freshness.of(200, "no-cache, no-store, must-revalidate", null, NOW, TTL))
                .isEqualTo(Freshness.NOT_STORABLE);
        assertThat(Freshness.of(200, "No-Cache, Private", null, NOW, TTL)).isEqualTo(Freshness.NOT_STORABLE);
        assertThat(Freshness.of(200, "max-age=60, no-cache", null, NOW, TTL).expiresAt())
                .as("no-cache wins over a lifetime before it")
                .isEqualTo(NOW);
    }

    @Test
    void lifetimeComesFromSMaxAgeThenMaxAgeThenExpiresThenTheDefault() {
        assertThat(Freshness.of(200, "max-age=60, s-maxage=120", null, NOW, TTL).expiresAt())
                .isEqualTo(NOW + 120_000);
        assertThat(Freshness.of(200, "public, max-age=60", HttpDates.format(NOW + 999_000), NOW, TTL)
                        .expiresAt())
                .isEqualTo(NOW + 60_000);
        assertThat(Freshness.of(200, null, HttpDates.format(NOW + 30_000), NOW, TTL)
                        .expiresAt())
                .isEqualTo(NOW + 30_000);
        assertThat(Freshness.of(200, null, "0", NOW, TTL).expiresAt())
                .as("invalid Expires: already expired")
                .isEqualTo(NOW);
        assertThat(Freshness.of(200, null, null, NOW, TTL).expiresAt()).isEqualTo(NOW + TTL);
    }

    /**
     * An Expires lifetime is Expires less Date (RFC 9111 4.2.1), counted from when the answer was current at its
     * source: an origin clock an hour ahead of the edge's changes nothing, and an answer that came with an Age of
     * 2^31 seconds (a shield's largest) is expired, where Expires alone kept it fresh and made its lifetime, given
     * again by a bare 304, decades long.
     */
    @Test
    void anExpiresLifetimeIsExpiresLessDate() {
        String aheadDate = HttpDates.format(NOW + 3_600_000);
        String aheadExpires = HttpDates.format(NOW + 3_600_000 + 60_000);
        assertThat(Freshness.of(200, null, aheadExpires, aheadDate, NOW, TTL).expiresAt())
                .as("the origin's clock an hour ahead")
                .isEqualTo(NOW + 60_000);
        OriginHead ahead = new OriginHead(200, Map.of("expires", aheadExpires, "date", aheadDate), 0);
        assertThat(Freshness.ofBody(ahead, NOW, TTL).expiresAt()).isEqualTo(NOW + 60_000);

        long currentAt = NOW - (1L << 31) * 1000; // asked at NOW, Age 2^31
        OriginHead aged = new OriginHead(
                200,
                Map.of("expires", HttpDates.format(NOW + 60_000), "date", HttpDates.format(NOW), "age", "2147483648"),
                0);
        Freshness f = Freshness.ofBody(aged, currentAt, TTL);
        assertThat(f.expiresAt()).as("expired long ago").isEqualTo(currentAt + 60_000);
        assertThat(f.expiresAt() - currentAt)
                .as("its lifetime, which a bare 304 gives again")
                .isEqualTo(60_000);

        OriginHead agedWithoutDate =
                new OriginHead(200, Map.of("expires", HttpDates.format(NOW + 60_000), "age", "2147483648"), 0);
        assertThat(Freshness.ofBody(agedWithoutDate, currentAt, TTL).expiresAt())
                .as("no Date: the time the edge asked stands for it, so the Age counts against Expires too")
                .isEqualTo(currentAt + 60_000);
        OriginHead withoutDate = new OriginHead(200, Map.of("expires", HttpDates.format(NOW + 60_000)), 0);
        assertThat(Freshness.ofBody(withoutDate, NOW, TTL).expiresAt())
                .as("no Date, no Age: until Expires")
                .isEqualTo(NOW + 60_000);
        assertThat(Freshness.ofBody(withoutDate, NOW + 999, TTL).expiresAt())
                .as("asked within a second: until Expires, not a part of a second after it")
                .isEqualTo(NOW + 60_000);
        assertThat(Freshness.ofNotModified(
                                agedWithoutDate, currentAt, TTL, 60_000, false, null, HttpDates.format(NOW + 60_000))
                        .expiresAt())
                .as("a 304 the same")
                .isEqualTo(currentAt + 60_000);

        assertThat(Freshness.of(200, null, HttpDates.format(NOW - 5_000), HttpDates.format(NOW), NOW, TTL)
                        .expiresAt())
                .as("Expires before Date: expired")
                .isEqualTo(NOW);
        assertThat(Freshness.of(200, null, HttpDates.format(NOW + 30_000), "soon", NOW - 10_000, TTL)
                        .expiresAt())
                .as("a Date that does not parse: Expires as the edge's clock reads it")
                .isEqualTo(NOW + 30_000);
    }

    @Test
    void a304WithoutCacheControlOrExpiresGivesTheStoredLifetimeAgainNotTheDefault() {
        OriginHead bare = new OriginHead(304, Map.of("etag", "\"e\""), 0);
        assertThat(Freshness.ofNotModified(bare, NOW, TTL, 60_000, false, null, null))
                .as("max-age=60 stored")
                .isEqualTo(new Freshness(true, NOW + 60_000));
        assertThat(Freshness.ofNotModified(bare, NOW, TTL, 0, true, null, null))
                .as("no-cache stored: revalidated on every use, never served stale")
                .isEqualTo(new Freshness(true, NOW, true));
        assertThat(Freshness.ofNotModified(bare, NOW, TTL, -1, false, null, null))
                .as("lifetime not known (an older edge's file)")
                .isEqualTo(new Freshness(true, NOW + TTL));
    }

    @Test
    void a304sOwnCacheControlOrExpiresDecides() {
        OriginHead cc = new OriginHead(304, Map.of("cache-control", "max-age=5"), 0);
        assertThat(Freshness.ofNotModified(cc, NOW, TTL, 60_000, true, "max-age=5", null))
                .as("its Cache-Control says anew whether it may be served stale")
                .isEqualTo(new Freshness(true, NOW + 5_000, false));
        OriginHead expires = new OriginHead(304, Map.of("expires", HttpDates.format(NOW + 30_000)), 0);
        assertThat(Freshness.ofNotModified(expires, NOW, TTL, 60_000, true, null, HttpDates.format(NOW + 30_000)))
                .as("Expires alone leaves the stale rule as it was")
                .isEqualTo(new Freshness(true, NOW + 30_000, true));
    }

    @Test
    void a304CarryingOneOfTheTwoIsJudgedWithTheStoredOther() {
        OriginHead onlyPublic = new OriginHead(304, Map.of("cache-control", "public"), 0);
        assertThat(Freshness.ofNotModified(
                        onlyPublic, NOW, TTL, 60_000, false, "public", HttpDates.format(NOW - 1_000)))
                .as("the stored Expires has passed: stale (expired as it is confirmed), not cache.ttl")
                .isEqualTo(new Freshness(true, NOW));
        OriginHead onlyExpires = new OriginHead(304, Map.of("expires", HttpDates.format(NOW + 30_000)), 0);
        assertThat(Freshness.ofNotModified(
                        onlyExpires,
                        NOW,
                        TTL,
                        60_000,
                        false,
                        "max-age=5, must-revalidate",
                        HttpDates.format(NOW + 30_000)))
                .as("the stored max-age wins over the new Expires")
                .isEqualTo(new Freshness(true, NOW + 5_000, true));
    }

    @Test
    void noCacheIsStoredButAlwaysRevalidated() {
        Freshness f = Freshness.of(200, "no-cache", null, NOW, TTL);
        assertThat(f.storable()).isTrue();
        assertThat(f.expiresAt()).isEqualTo(NOW);
    }
}
