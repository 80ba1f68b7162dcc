package io.videoedge.server.sample;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Generates a small HLS/fMP4-like (and DASH, TS, WebVTT) sample set, so nothing binary is committed:
 * playlists that reference real files, an init segment and media segments framed as ISO-BMFF boxes
 * (ftyp/moov, styp/moof/mdat) around seeded random payload, a TS segment of 188-byte packets. Not
 * playable video; the right names, types and sizes for a server to serve. With {@code benchSizes},
 * 2 MiB and 16 MiB segments and a 1 KiB manifest for the benchmark.
 */
public final class SampleContent {
    public static final int MANIFEST_BYTES = 1024;
    public static final int SEGMENTS = 6;
    /** Bytes of box headers around a media segment's payload: styp 16, moof+mfhd 24, mdat header 8. */
    static final int SEGMENT_OVERHEAD = 48;

    private SampleContent() {}

    /** Returns the relative paths written. */
    public static List<String> generate(Path root, boolean benchSizes) throws IOException {
        List<String> written = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(42);
        write(root, "index.m3u8", text("""
                #EXTM3U
                #EXT-X-VERSION:7
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,CODECS="avc1.64001f,mp4a.40.2"
                hls/playlist.m3u8
                """), written);
        write(root, "hls/playlist.m3u8", manifest(SEGMENTS), written);
        write(root, "hls/init.mp4", initSegment(), written);
        for (int i = 1; i <= SEGMENTS; i++) {
            write(
                    root,
                    String.format("hls/seg-%05d.m4s", i),
                    mediaSegment(i, 96 * 1024 + random.nextInt(64 * 1024), random),
                    written);
        }
        write(root, "dash/manifest.mpd", text("""
                <?xml version="1.0" encoding="UTF-8"?>
                <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT24S" minBufferTime="PT2S"
                     profiles="urn:mpeg:dash:profile:isoff-live:2011">
                  <Period><AdaptationSet mimeType="video/mp4" segmentAlignment="true">
                    <SegmentTemplate initialization="../hls/init.mp4" media="../hls/seg-$Number%05d$.m4s" startNumber="1" duration="4" timescale="1"/>
                    <Representation id="720p" bandwidth="2000000" width="1280" height="720" codecs="avc1.64001f"/>
                  </AdaptationSet></Period>
                </MPD>
                """), written);
        write(root, "subs/en.vtt", text("""
                WEBVTT

                00:00:00.000 --> 00:00:04.000
                VideoEdge sample subtitles

                """), written);
        write(root, "ts/seg-00001.ts", tsSegment(2000, random), written);
        write(root, "mp4/clip.mp4", mediaSegment(0, 256 * 1024, random), written);
        if (benchSizes) {
            write(root, "bench/seg-2m.m4s", mediaSegment(1, (2 << 20) - SEGMENT_OVERHEAD, random), written);
            write(root, "bench/seg-16m.m4s", mediaSegment(2, (16 << 20) - SEGMENT_OVERHEAD, random), written);
            write(root, "bench/manifest-1k.m3u8", manifest(SEGMENTS), written);
        }
        return written;
    }

    /** A media playlist padded with comment lines to exactly {@link #MANIFEST_BYTES}. */
    static byte[] manifest(int segments) {
        StringBuilder sb = new StringBuilder(
                "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:1\n#EXT-X-MAP:URI=\"init.mp4\"\n");
        for (int i = 1; i <= segments; i++) {
            sb.append("#EXTINF:4.000,\n").append(String.format("seg-%05d.m4s\n", i));
        }
        sb.append("#EXT-X-ENDLIST\n");
        while (sb.length() < MANIFEST_BYTES - 2) {
            sb.append('#')
                    .append("x".repeat(Math.min(60, MANIFEST_BYTES - sb.length() - 2)))
                    .append('\n');
        }
        while (sb.length() < MANIFEST_BYTES) sb.append('\n');
        sb.setLength(MANIFEST_BYTES);
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] initSegment() {
        ByteBuffer b = ByteBuffer.allocate(1024);
        box(
                b,
                "ftyp",
                "iso6".getBytes(StandardCharsets.US_ASCII),
                new byte[] {0, 0, 0, 0},
                "iso6cmfcdash".getBytes(StandardCharsets.US_ASCII));
        box(b, "moov", new byte[512]);
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    static byte[] mediaSegment(int sequence, int payload, SplittableRandom random) {
        byte[] data = new byte[payload];
        random.nextBytes(data);
        ByteBuffer mfhd = ByteBuffer.allocate(8).putInt(0).putInt(sequence);
        ByteBuffer b = ByteBuffer.allocate(payload + 256);
        box(b, "styp", "msdh".getBytes(StandardCharsets.US_ASCII), new byte[4]);
        int moofStart = b.position();
        b.putInt(0).put("moof".getBytes(StandardCharsets.US_ASCII));
        box(b, "mfhd", mfhd.array());
        b.putInt(moofStart, b.position() - moofStart);
        box(b, "mdat", data);
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    static byte[] tsSegment(int packets, SplittableRandom random) {
        byte[] ts = new byte[packets * 188];
        random.nextBytes(ts);
        for (int i = 0; i < ts.length; i += 188) {
            ts[i] = 0x47; // sync byte
        }
        return ts;
    }

    private static void box(ByteBuffer b, String type, byte[]... parts) {
        int size = 8;
        for (byte[] p : parts) size += p.length;
        b.putInt(size).put(type.getBytes(StandardCharsets.US_ASCII));
        for (byte[] p : parts) b.put(p);
    }

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void write(Path root, String relative, byte[] data, List<String> written) throws IOException {
        Path file = root.resolve(relative);
        Files.createDirectories(file.getParent());
        try (OutputStream out = Files.newOutputStream(file)) {
            out.write(data);
        }
        written.add(relative);
    }

    /** {@code SampleContent DIR [--bench]}: used by make run and make bench. */
    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: SampleContent DIR [--bench]");
            System.exit(2);
        }
        List<String> files = generate(Path.of(args[0]), args.length > 1 && args[1].equals("--bench"));
        System.out.println("generated " + files.size() + " files under " + args[0]);
    }
}
