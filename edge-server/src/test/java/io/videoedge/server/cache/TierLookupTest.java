package io.videoedge.server.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class TierLookupTest {
    static final long NOW = 1_000_000;

    static ObjectMeta meta(long expiresAt) {
        return new ObjectMeta("k", "video/mp4", null, null, 100, 0, expiresAt, 0);
    }

    static MemoryTier.Entry inMemory(long expiresAt) {
        MemoryTier tier = new MemoryTier(1 << 20, 1 << 20);
        return tier.allocate(meta(expiresAt));
    }

    static DiskTier.Entry onDisk(long expiresAt, boolean verified) {
        return new DiskTier.Entry(Path.of("/nonexistent/k.obj"), meta(expiresAt), 64, 164, verified);
    }

    @Test
    void aFreshMemoryCopyIsAHitAndTheDiskIsNotAskedAbout() {
        MemoryTier.Entry m = inMemory(NOW + 1);
        assertThat(TierLookup.of(m, null, NOW)).isEqualTo(new TierLookup.MemoryHit(m));
    }

    @Test
    void anExpiredCopyIsRevalidatedWhereverItIs() {
        MemoryTier.Entry m = inMemory(NOW);
        assertThat(TierLookup.of(m, null, NOW)).isEqualTo(new TierLookup.Expired(m, null));
        DiskTier.Entry d = onDisk(NOW - 1, true);
        assertThat(TierLookup.of(null, d, NOW)).isEqualTo(new TierLookup.Expired(null, d));
        assertThat(new TierLookup.Expired(null, d).meta()).isSameAs(d.meta());
    }

    @Test
    void onDiskAFreshVerifiedCopyIsAHitAnUnverifiedOneIsCheckedFirstEvenWhenExpired() {
        DiskTier.Entry fresh = onDisk(NOW + 1, true);
        assertThat(TierLookup.of(null, fresh, NOW)).isEqualTo(new TierLookup.DiskHit(fresh));
        DiskTier.Entry unverified = onDisk(NOW + 1, false);
        assertThat(TierLookup.of(null, unverified, NOW)).isEqualTo(new TierLookup.Unverified(unverified));
        DiskTier.Entry unverifiedExpired = onDisk(NOW - 1, false);
        assertThat(TierLookup.of(null, unverifiedExpired, NOW)).isInstanceOf(TierLookup.Unverified.class);
    }

    @Test
    void nothingCachedIsAbsent() {
        assertThat(TierLookup.of(null, null, NOW)).isInstanceOf(TierLookup.Absent.class);
    }

    @Test
    void aStaleCopyAnswersAFailingOriginWithinStaleWhileErrorButNeverA404() {
        ObjectMeta expired = meta(NOW - 1_000);
        assertThat(TierLookup.staleServable(expired, 502, NOW, 5_000)).isTrue();
        assertThat(TierLookup.staleServable(expired, 504, NOW, 5_000)).isTrue();
        assertThat(TierLookup.staleServable(expired, 404, NOW, 5_000))
                .as("gone at the origin")
                .isFalse();
        assertThat(TierLookup.staleServable(expired, 502, NOW, 1_000))
                .as("past the window")
                .isFalse();
        assertThat(TierLookup.staleServable(expired, 502, NOW, 0))
                .as("staleWhileError 0")
                .isFalse();
    }

    @Test
    void anExpiredCopyIsServedWhileRevalidatingOnlyWithinStaleWhileRevalidate() {
        ObjectMeta expired = meta(NOW - 1_000);
        assertThat(TierLookup.servableWhileRevalidating(expired, NOW, 5_000)).isTrue();
        assertThat(TierLookup.servableWhileRevalidating(expired, NOW, 1_000))
                .as("past the window")
                .isFalse();
        assertThat(TierLookup.servableWhileRevalidating(expired, NOW, 0))
                .as("0: the request waits")
                .isFalse();
    }

    @Test
    void aCopyTheOriginForbadeToServeStaleIsNeverServedStale() {
        ObjectMeta strict = new ObjectMeta("k", "video/mp4", null, null, 100, 0, NOW - 1_000, 0, 100, true);
        assertThat(TierLookup.staleServable(strict, 502, NOW, 5_000)).isFalse();
        assertThat(TierLookup.servableWhileRevalidating(strict, NOW, 5_000)).isFalse();
    }
}
