package io.videoedge.server.content;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ContentPathTest {
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "/a.mp4              | a.mp4",
                "/v/1/seg.m4s        | v/1/seg.m4s",
                "//v///seg.m4s       | v/seg.m4s",
                "/v/./seg.m4s        | v/seg.m4s",
                "/v/seg%20one.m4s    | v/seg one.m4s",
                "/v/%D0%B2.mp4       | v/в.mp4",
                "/v%2Fseg.m4s        | v/seg.m4s",
                "/...                | ...",
                "/..a/b              | ..a/b",
            })
    void normalizes(String raw, String expected) {
        assertThat(ContentPath.normalize(raw)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "//", "/./"})
    void rootIsEmpty(String raw) {
        assertThat(ContentPath.normalize(raw)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/../etc/passwd",
                "/v/../../etc/passwd",
                "/v/..",
                "/%2e%2e/etc/passwd",
                "/%2E%2E%2Fetc",
                "/v/%2e%2e%2f%2e%2e%2fetc",
                "/v/.%2e/x",
                "/a%00.mp4",
                "/a\\..\\b",
                "/a%5c..%5cb",
                "/a%",
                "/a%2",
                "/a%zz",
                "/%C0%AE%C0%AE/etc",
                "/%ff",
                "relative/path",
                "",
                "/a\tb",
                "/a%0d%0aSet-Cookie:x",
            })
    void refusesTraversalAndMalformedPaths(String raw) {
        assertThat(ContentPath.normalize(raw)).isNull();
    }

    /** The shortcut for paths already normal gives what the segment walk gives, for every mix of tricky segments. */
    @Test
    void theNormalPathShortcutAgreesWithTheSegmentWalk() {
        String[] segments = {"", ".", "..", "...", ".a", "a.", "..a", "a..", "a", "b.m3u8"};
        java.util.List<String> paths = new java.util.ArrayList<>(java.util.List.of("/"));
        for (int length = 1; length <= 4; length++) {
            java.util.List<String> longer = new java.util.ArrayList<>();
            for (String p : paths) {
                for (String s : segments) {
                    longer.add((p.equals("/") ? "" : p) + "/" + s);
                }
            }
            paths.addAll(longer);
        }
        int shortcut = 0;
        for (String p : new java.util.LinkedHashSet<>(paths)) {
            String walked = ContentPath.normalizeSegments(p);
            assertThat(ContentPath.normalize(p)).as(p).isEqualTo(walked);
            if (ContentPath.isNormal(p)) {
                shortcut++;
                assertThat(p.substring(1)).as(p).isEqualTo(walked);
            }
        }
        assertThat(shortcut).as("paths taking the shortcut").isGreaterThan(100);
    }
}
