package io.videoedge.operator.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LabelListTest {
    @Test
    void keyValuePairsInOrder() {
        assertThat(LabelList.parse("release=kps, team=video,example.com/tier=edge,empty="))
                .containsExactly(
                        java.util.Map.entry("release", "kps"),
                        java.util.Map.entry("team", "video"),
                        java.util.Map.entry("example.com/tier", "edge"),
                        java.util.Map.entry("empty", ""));
        assertThat(LabelList.parse("")).isEmpty();
        assertThat(LabelList.parse("  ")).isEmpty();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "release                | 'release' is not key=value",
                "=kps                   | '' is not a label key",
                "Bad/release=kps        | 'Bad/release' is not a label key",
                "-release=kps           | '-release' is not a label key",
                "release=kube prometheus | is not a label value",
                "release=a,release=b    | label 'release' is given twice",
            })
    void wrongLabelsAreRefusedByName(String list, String message) {
        assertThatThrownBy(() -> LabelList.parse(list))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }
}
