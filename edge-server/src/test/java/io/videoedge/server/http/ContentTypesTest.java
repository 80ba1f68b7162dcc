package io.videoedge.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ContentTypesTest {
    @ParameterizedTest
    @CsvSource({
        "v/movie.mp4, video/mp4",
        "v/seg-1.m4s, video/iso.segment",
        "v/clip.M4V, video/x-m4v",
        "v/seg.ts, video/mp2t",
        "v/index.m3u8, application/vnd.apple.mpegurl",
        "v/manifest.mpd, application/dash+xml",
        "v/a.webm, video/webm",
        "v/subs.vtt, text/vtt",
        "v/noext, application/octet-stream",
        "v.dir/noext, application/octet-stream",
        "v/x.unknown, application/octet-stream",
    })
    void typeByExtension(String path, String type) {
        assertThat(ContentTypes.of(path)).isEqualTo(type);
    }
}
