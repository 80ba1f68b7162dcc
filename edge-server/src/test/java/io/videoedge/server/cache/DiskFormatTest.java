package io.videoedge.server.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class DiskFormatTest {
    private final ObjectMeta meta = new ObjectMeta(
            "hls/seg-1.m4s",
            "video/iso.segment",
            "\"abc\"",
            "Sun, 06 Nov 1994 08:49:37 GMT",
            1234,
            1_700_000_000_000L,
            1_700_000_600_000L,
            0xCAFEBABE);

    @Test
    void roundTrips() {
        byte[] h = DiskFormat.encode(meta, true);
        assertThat(DiskFormat.headerLength(ByteBuffer.wrap(h))).isEqualTo(h.length);
        assertThat(DiskFormat.decode(ByteBuffer.wrap(h))).isEqualTo(meta);
    }

    @Test
    void anObjectThatMustNotBeServedStaleKeepsThatOnDisk() {
        ObjectMeta strict = new ObjectMeta("k", null, "\"e\"", null, 10, 1, 2, 7, 10, true);
        ObjectMeta decoded = DiskFormat.decode(ByteBuffer.wrap(DiskFormat.encode(strict, true)));
        assertThat(decoded).isEqualTo(strict);
        assertThat(decoded.mustRevalidate()).isTrue();
        assertThat(decoded.withExpiry(3).mustRevalidate())
                .as("kept across a revalidation")
                .isTrue();
        assertThat(DiskFormat.decode(ByteBuffer.wrap(DiskFormat.encode(meta, true)))
                        .mustRevalidate())
                .isFalse();
    }

    @Test
    void theLifetimeIsKnownForFilesOfThisEdgeOnlyAndARevalidationMakesItKnown() {
        byte[] h = DiskFormat.encode(meta, true);
        assertThat(DiskFormat.decode(ByteBuffer.wrap(h)).lifetime()).isEqualTo(600_000);
        // an older edge's file: no lifetime flag (it moved the expiry on a 304, not the time it was fetched)
        ByteBuffer older = ByteBuffer.wrap(h.clone());
        older.putInt(DiskFormat.FLAGS_OFFSET, DiskFormat.COMPLETE);
        ObjectMeta decoded = DiskFormat.decode(older);
        assertThat(decoded.lifetime()).isEqualTo(-1);
        assertThat(decoded.sameBytes(meta)).isTrue();
        ObjectMeta confirmed = decoded.revalidated(1_700_001_000_000L, 1_700_001_060_000L, false, Directives.NONE);
        assertThat(DiskFormat.flags(true, confirmed) & DiskFormat.LIFETIME_KNOWN)
                .isNotZero();
        assertThat(confirmed.lifetime()).isEqualTo(60_000);
    }

    @Test
    void absentValuesStayAbsent() {
        ObjectMeta bare = new ObjectMeta("k", null, null, null, 0, 1, 2, 0);
        assertThat(DiskFormat.decode(ByteBuffer.wrap(DiskFormat.encode(bare, true))))
                .isEqualTo(bare);
    }

    @Test
    void aSliceKeepsItsObjectsLength() {
        ObjectMeta slice =
                new ObjectMeta("v/big.mp4\u00010/4194304", "video/mp4", "\"e\"", null, 4096, 1, 2, 7, 1L << 30);
        ObjectMeta decoded = DiskFormat.decode(ByteBuffer.wrap(DiskFormat.encode(slice, true)));
        assertThat(decoded).isEqualTo(slice);
        assertThat(decoded.validators().length()).isEqualTo(1L << 30);
        assertThat(decoded.sameVersion(slice)).isTrue();
        assertThat(decoded.sameVersion(new ObjectMeta("k", null, "\"f\"", null, 4096, 1, 2, 7, 1L << 30)))
                .isFalse();
    }

    @Test
    void theOriginsDirectivesAreKeptAndFilesWithoutThemReadAsBefore() {
        Directives d = Directives.of("public, max-age=600", "Thu, 01 Jan 2037 00:00:00 GMT");
        ObjectMeta whole = meta.withDirectives(d);
        assertThat(DiskFormat.decode(ByteBuffer.wrap(DiskFormat.encode(whole, true))))
                .isEqualTo(whole);
        ObjectMeta slice = new ObjectMeta("v/big.mp4\u00010/4194304", null, "\"e\"", null, 4096, 1, 2, 7, 1L << 30)
                .withDirectives(Directives.of("max-age=60", null));
        ObjectMeta decodedSlice = DiskFormat.decode(ByteBuffer.wrap(DiskFormat.encode(slice, true)));
        assertThat(decodedSlice).isEqualTo(slice);
        assertThat(decodedSlice.objectLength()).isEqualTo(1L << 30);
        assertThat(DiskFormat.decode(
                                ByteBuffer.wrap(DiskFormat.encode(meta.withDirectives(Directives.of(null, "0")), true)))
                        .directives())
                .isEqualTo(new Directives(null, "0"));
        // the file an older edge wrote (four lines), and one a later edge might write (a line more)
        String older = "hls/seg-1.m4s\nvideo/iso.segment\n\"abc\"\n\n";
        assertThat(DiskFormat.decode(header(older)).directives()).isSameAs(Directives.NONE);
        assertThat(DiskFormat.decode(header("k\n\n\n\n\nmax-age=1\n\nlater\n"))
                        .directives()
                        .cacheControl())
                .isEqualTo("max-age=1");
        assertThat(DiskFormat.decode(header("k\n\n\n\n\nmax-age=1\n")))
                .as("seven lines")
                .isNull();
    }

    @Test
    void aChunkedBodysHeaderIsAsLongBeforeAsAfterItsLengthIsKnown() {
        ObjectMeta before =
                new ObjectMeta("k", null, null, null, 0, 1, 2, 0, 0).withDirectives(Directives.of("max-age=60", null));
        ObjectMeta after = before.withBody(123_456_789, 42, 123_456_789);
        assertThat(DiskFormat.encode(after, true)).hasSameSizeAs(DiskFormat.encode(before, false));
        assertThat(DiskFormat.decode(ByteBuffer.wrap(DiskFormat.encode(after, true))))
                .isEqualTo(after);
    }

    @Test
    void directivesTooLongForTheHeaderAreNotKept() {
        ObjectMeta huge = meta.withDirectives(Directives.of("x".repeat(DiskFormat.MAX_HEADER), null));
        byte[] h = DiskFormat.encode(huge, true);
        assertThat(DiskFormat.headerLength(ByteBuffer.wrap(h))).isEqualTo(h.length);
        assertThat(DiskFormat.decode(ByteBuffer.wrap(h))).isEqualTo(meta);
    }

    /** A refresh writes the flags, both times and the text as one range (DiskTier#writeRefresh). */
    @Test
    void theFlagsTheTimesAndTheTextFollowEachOther() {
        assertThat(DiskFormat.FETCHED_OFFSET).isEqualTo(DiskFormat.FLAGS_OFFSET + Integer.BYTES);
        assertThat(DiskFormat.EXPIRES_OFFSET).isEqualTo(DiskFormat.FETCHED_OFFSET + Long.BYTES);
        assertThat(DiskFormat.FIXED).isEqualTo(DiskFormat.EXPIRES_OFFSET + Long.BYTES);
    }

    /** A 304's new directives are written where the old ones are when they fit; the body does not move. */
    @Test
    void newDirectivesAreWrittenInPlaceWhenTheyFit() {
        ObjectMeta stored = meta.withDirectives(Directives.of("public, max-age=600", "Thu, 01 Jan 2037 00:00:00 GMT"));
        byte[] h = DiskFormat.encode(stored, true);
        ObjectMeta confirmed = stored.withDirectives(Directives.of("max-age=60", null));
        byte[] text = DiskFormat.textInPlace(confirmed, h.length);
        assertThat(text).hasSize(h.length - DiskFormat.FIXED);
        ByteBuffer rewritten = ByteBuffer.wrap(h.clone()).put(DiskFormat.FIXED, text);
        assertThat(DiskFormat.headerLength(rewritten)).isEqualTo(h.length);
        assertThat(DiskFormat.decode(rewritten)).isEqualTo(confirmed);

        assertThat(DiskFormat.textInPlace(
                        stored.withDirectives(Directives.of("public, max-age=6000", "Thu, 01 Jan 2037 00:00:00 GMT")),
                        h.length))
                .as("one byte too long for the room")
                .isNull();
        byte[] withoutDirectives = DiskFormat.encode(meta, true);
        assertThat(DiskFormat.textInPlace(confirmed, withoutDirectives.length))
                .as("a file written without directives has no room for them")
                .isNull();
        assertThat(DiskFormat.textInPlace(meta, withoutDirectives.length))
                .as("none to write")
                .isNull();
    }

    /** A complete header around {@code text}, the metadata lines. */
    private static ByteBuffer header(String text) {
        byte[] t = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.wrap(DiskFormat.encode(new ObjectMeta("k", null, null, null, 0, 1, 2, 0), true));
        ByteBuffer h = ByteBuffer.allocate(DiskFormat.FIXED + t.length);
        h.put(b.array(), 0, DiskFormat.FIXED).put(t).putInt(4, DiskFormat.FIXED + t.length);
        return h.flip();
    }

    @Test
    void incompleteOrForeignHeadersAreRejected() {
        assertThat(DiskFormat.decode(ByteBuffer.wrap(DiskFormat.encode(meta, false))))
                .as("never completed")
                .isNull();
        byte[] h = DiskFormat.encode(meta, true);
        h[0] = 'X';
        assertThat(DiskFormat.decode(ByteBuffer.wrap(h))).isNull();
        assertThat(DiskFormat.headerLength(ByteBuffer.wrap(h))).isEqualTo(-1);
    }

    @Test
    void validatorsComeFromTheOrigin() {
        assertThat(meta.validators().etag()).isEqualTo("\"abc\"");
        assertThat(meta.validators().lastModifiedMillis()).isEqualTo(784111777000L);
        assertThat(meta.fresh(1_700_000_599_999L)).isTrue();
        assertThat(meta.fresh(1_700_000_600_000L)).isFalse();
    }
}
