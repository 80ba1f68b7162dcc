package io.videoedge.server.cache;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MemoryTierTest {
    private static ObjectMeta meta(String key, long length) {
        return new ObjectMeta(key, "t", null, null, length, 0, Long.MAX_VALUE, 0);
    }

    private static void put(MemoryTier t, String key, int length) {
        MemoryTier.Entry e = t.allocate(meta(key, length));
        assertThat(e).as(key).isNotNull();
        t.publish(e);
        e.release();
    }

    @Test
    void evictsLeastRecentlyUsedUntilTheNewObjectFits() {
        MemoryTier t = new MemoryTier(1 << 20, 512 * 1024);
        put(t, "a", 300_000);
        put(t, "b", 300_000);
        put(t, "c", 300_000);
        t.get("a").release(); // a is more recent than b now
        put(t, "d", 300_000);
        assertThat(t.contains("b")).isFalse();
        assertThat(t.contains("a")).isTrue();
        assertThat(t.contains("c")).isTrue();
        assertThat(t.contains("d")).isTrue();
        assertThat(t.evictions()).isEqualTo(1);
        assertThat(t.usedBytes()).isLessThanOrEqualTo(t.capacityBytes());
    }

    @Test
    void anEvictedEntryStaysReadableUntilItsLastReaderReleasesIt() {
        MemoryTier t = new MemoryTier(1 << 20, 1 << 20);
        MemoryTier.Entry a = t.allocate(meta("a", 600_000));
        t.publish(a);
        MemoryTier.Entry reading = t.get("a"); // a response still sending it
        a.release();
        long before = t.usedBytes();
        assertThat(t.allocate(meta("b", 600_000))).as("a cannot be freed yet").isNull();
        assertThat(t.contains("a")).as("but it is out of the index").isFalse();
        reading.release();
        assertThat(t.usedBytes()).isLessThan(before);
        assertThat(t.allocate(meta("b", 600_000))).isNotNull();
    }

    /**
     * A drop decided on one entry (a revalidation's refusal, EdgeCache#dropVersion) does not take out another stored for
     * the key since (a purge, then a new fill).
     */
    @Test
    void removingAnEntryLeavesOneStoredForItsKeySince() {
        MemoryTier t = new MemoryTier(1 << 20, 512 * 1024);
        put(t, "a", 1000);
        MemoryTier.Entry looked = t.get("a");
        put(t, "a", 2000); // stored since
        t.remove(looked);
        looked.release();
        MemoryTier.Entry now = t.get("a");
        assertThat(now).isNotNull();
        assertThat(now.meta().length()).isEqualTo(2000);
        t.remove(now);
        now.release();
        assertThat(t.contains("a")).as("the entry it still is: removed").isFalse();
    }

    @Test
    void objectsOverTheMaximumAreNotKept() {
        MemoryTier t = new MemoryTier(1 << 20, 1000);
        assertThat(t.accepts(1001)).isFalse();
        assertThat(t.allocate(meta("x", 1001))).isNull();
        assertThat(t.accepts(0)).isFalse();
    }
}
