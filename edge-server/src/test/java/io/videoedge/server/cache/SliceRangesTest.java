package io.videoedge.server.cache;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SliceRangesTest {
    @Test
    void theFirstByteOfOnePlainRangeElseZero() {
        assertThat(SliceRanges.firstByte(null)).isZero();
        assertThat(SliceRanges.firstByte("bytes=0-1048575")).isZero();
        assertThat(SliceRanges.firstByte("bytes=5000000-")).isEqualTo(5_000_000);
        assertThat(SliceRanges.firstByte("BYTES=7-9")).isEqualTo(7);
        assertThat(SliceRanges.firstByte("bytes=-500"))
                .as("suffix: the length is unknown")
                .isZero();
        assertThat(SliceRanges.firstByte("bytes=10-20,30-40"))
                .as("several ranges")
                .isZero();
        assertThat(SliceRanges.firstByte("bytes=x-1")).isZero();
        assertThat(SliceRanges.firstByte("items=5-9")).isZero();
    }

    @Test
    void contentRangeNeedsAKnownLengthAndOrderedBounds() {
        assertThat(SliceRanges.contentRange("bytes 0-4194303/1073741824")).containsExactly(0, 4194303, 1073741824);
        assertThat(SliceRanges.contentRange("bytes 10-10/11")).containsExactly(10, 10, 11);
        assertThat(SliceRanges.contentRange("bytes 0-9/*")).isNull();
        assertThat(SliceRanges.contentRange("bytes */100")).isNull();
        assertThat(SliceRanges.contentRange("bytes 9-0/100")).isNull();
        assertThat(SliceRanges.contentRange("bytes 0-100/100"))
                .as("last past the end")
                .isNull();
        assertThat(SliceRanges.contentRange(null)).isNull();
        assertThat(SliceRanges.contentRange("0-9/10")).isNull();
    }

    @Test
    void sliceKeysCannotCollideWithObjectKeys() {
        assertThat(SliceRanges.key("v/a.mp4", 4194304, 4194304)).isEqualTo("v/a.mp4\u00014194304/4194304");
        assertThat(SliceRanges.key("v/a.mp4", 0, 4194304)).isNotEqualTo(SliceRanges.key("v/a.mp4", 0, 1048576));
    }
}
