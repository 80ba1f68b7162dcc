package io.videoedge.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ByteRangeTest {
    @ParameterizedTest(name = "{0} of {1} bytes -> start {2}, length {3}")
    @CsvSource(
            delimiter = '|',
            value = {
                "bytes=0-0        | 100 | 0  | 1",
                "bytes=0-99       | 100 | 0  | 100",
                "bytes=10-19      | 100 | 10 | 10",
                "bytes=90-        | 100 | 90 | 10",
                "bytes=90-1000    | 100 | 90 | 10",
                "bytes=-10        | 100 | 90 | 10",
                "bytes=-1000      | 100 | 0  | 100",
                "BYTES=5-5        | 100 | 5  | 1",
                "bytes= 1-2       | 100 | 1  | 2",
                "bytes=0-99999999999999999999 | 100 | 0 | 100",
            })
    void satisfiableRanges(String header, long size, long start, long length) {
        assertThat(ByteRange.parse(header, size)).isEqualTo(new ByteRange(start, length));
    }

    @ParameterizedTest(name = "{0} of {1} bytes is unsatisfiable")
    @CsvSource(
            delimiter = '|',
            value = {
                "bytes=100-       | 100",
                "bytes=100-200    | 100",
                "bytes=-0         | 100",
                "bytes=0-         | 0",
                "bytes=-5         | 0",
                "bytes=99999999999999999999- | 100",
            })
    void unsatisfiableRanges(String header, long size) {
        assertThat(ByteRange.parse(header, size)).isSameAs(ByteRange.UNSATISFIABLE);
    }

    @ParameterizedTest(name = "{0} is ignored")
    @CsvSource(
            delimiter = '|',
            value = {
                "items=0-1",
                "bytes=",
                "bytes=a-b",
                "bytes=5-1",
                "bytes=0-1,5-6",
                "bytes=--1",
                "bytes=1",
                "bytes=-",
                "bytes=+1-2",
            })
    void ignoredRanges(String header) {
        assertThat(ByteRange.parse(header, 100)).isSameAs(ByteRange.IGNORE);
    }
}
