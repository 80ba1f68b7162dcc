package io.videoedge.server.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SampleContentTest {
    @Test
    void generatesPlaylistsThatReferenceExistingFiles(@TempDir Path dir) throws Exception {
        SampleContent.generate(dir, false);
        String playlist = Files.readString(dir.resolve("hls/playlist.m3u8"));
        assertThat(playlist).startsWith("#EXTM3U");
        for (String line : playlist.split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                assertThat(dir.resolve("hls").resolve(line)).exists();
            }
        }
        assertThat(Files.readString(dir.resolve("index.m3u8"))).contains("hls/playlist.m3u8");
        assertThat(dir.resolve("bench")).doesNotExist();
    }

    @Test
    void segmentsAreIsoBmffBoxes(@TempDir Path dir) throws Exception {
        SampleContent.generate(dir, false);
        ByteBuffer seg = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("hls/seg-00001.m4s")));
        int total = 0;
        StringBuilder types = new StringBuilder();
        while (seg.hasRemaining()) {
            int size = seg.getInt(seg.position());
            types.append(new String(new byte[] {
                        seg.get(seg.position() + 4),
                        seg.get(seg.position() + 5),
                        seg.get(seg.position() + 6),
                        seg.get(seg.position() + 7)
                    }))
                    .append(' ');
            seg.position(seg.position() + size);
            total += size;
        }
        assertThat(types.toString().trim()).isEqualTo("styp moof mdat");
        assertThat(total).isEqualTo(Files.size(dir.resolve("hls/seg-00001.m4s")));
        byte[] ts = Files.readAllBytes(dir.resolve("ts/seg-00001.ts"));
        assertThat(ts.length % 188).isZero();
        assertThat(ts[188]).isEqualTo((byte) 0x47);
    }

    @Test
    void benchSizesAreExact(@TempDir Path dir) throws Exception {
        SampleContent.generate(dir, true);
        assertThat(Files.size(dir.resolve("bench/seg-2m.m4s"))).isEqualTo(2L << 20);
        assertThat(Files.size(dir.resolve("bench/seg-16m.m4s"))).isEqualTo(16L << 20);
        assertThat(Files.size(dir.resolve("bench/manifest-1k.m3u8"))).isEqualTo(1024);
    }
}
