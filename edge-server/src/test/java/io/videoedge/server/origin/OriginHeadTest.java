package io.videoedge.server.origin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ProtocolException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OriginHeadTest {
    private static OriginHead parse(String s) throws ProtocolException {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        int end = OriginHead.endOfHead(ByteBuffer.wrap(b), 0, b.length); // as the origin client reads: find, then parse
        return end < 0 ? null : OriginHead.parse(b, end);
    }

    @Test
    void parsesStatusHeadersAndWhereTheBodyStarts() throws Exception {
        OriginHead h = parse(
                "HTTP/1.1 200 OK\r\nContent-Length: 12\r\nETag: \"x\"\r\nCache-Control: a\r\ncache-control: b\r\n\r\nbody");
        assertThat(h.status()).isEqualTo(200);
        assertThat(h.contentLength()).isEqualTo(12);
        assertThat(h.header("etag")).isEqualTo("\"x\"");
        assertThat(h.header("cache-control")).isEqualTo("a, b");
        assertThat(h.headLength()).isEqualTo(86); // 17 + 20 + 11 + 18 + 18 + 2
        assertThat(h.keepAlive()).isTrue();
        assertThat(h.chunked()).isFalse();
    }

    @Test
    void anAnswerWasCurrentAtItsSourceItsAgeBeforeItCame() throws Exception {
        assertThat(parse("HTTP/1.1 200 OK\r\nAge: 30\r\n\r\n").currentAt(100_000))
                .isEqualTo(70_000);
        assertThat(parse("HTTP/1.1 200 OK\r\n\r\n").currentAt(100_000)).isEqualTo(100_000);
        for (String ignored : new String[] {"-5", "1.5", "", "soon", ", 40"}) {
            assertThat(OriginHead.ageSeconds(ignored)).as(ignored).isZero();
        }
        assertThat(OriginHead.ageSeconds(" 7 ")).isEqualTo(7);
        assertThat(OriginHead.ageSeconds("30, 40"))
                .as("a list: its first member")
                .isEqualTo(30);
        assertThat(OriginHead.ageSeconds("99999999999999999999999")).isEqualTo(1L << 31);
        assertThat(OriginHead.ageSeconds("4294967296")).isEqualTo(1L << 31);
        assertThat(OriginHead.ageSeconds("9999999999999999999"))
                .as("above Long.MAX_VALUE")
                .isEqualTo(1L << 31);
    }

    @Test
    void aFieldOfOneValueSentTwiceKeepsItsFirstLine() throws Exception {
        OriginHead h = parse("HTTP/1.1 429 Too Many Requests\r\n"
                + "Retry-After: 5\r\nExpires: Thu, 01 Dec 2026 16:00:00 GMT\r\nAge: 3\r\nCache-Control: a\r\n"
                + "Retry-After: 7\r\nExpires: Fri, 02 Dec 2026 16:00:00 GMT\r\nAge: 9\r\nCache-Control: b\r\n\r\n");
        assertThat(h.header("retry-after")).isEqualTo("5");
        assertThat(h.header("expires")).isEqualTo("Thu, 01 Dec 2026 16:00:00 GMT");
        assertThat(h.ageSeconds()).isEqualTo(3);
        assertThat(h.header("cache-control")).as("a list field: joined").isEqualTo("a, b");
        assertThatThrownBy(() -> parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n")
                        .contentLength())
                .as("two lengths: refused")
                .isInstanceOf(ProtocolException.class);
    }

    @Test
    void aValueWithABareLineBreakOrNulIsRefusedNotRelayed() {
        assertThatThrownBy(() -> parse("HTTP/1.1 200 OK\r\nContent-Type: text/html\nX-Injected: 1\r\n\r\n"))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("content-type");
        assertThatThrownBy(() -> parse("HTTP/1.1 200 OK\r\nETag: \"a\rb\"\r\n\r\n"))
                .isInstanceOf(ProtocolException.class);
        assertThatThrownBy(() -> parse("HTTP/1.1 200 OK\r\nETag: \"a\0b\"\r\n\r\n"))
                .isInstanceOf(ProtocolException.class);
    }

    @Test
    void aHeadWithoutHeadersAndValuesWithColons() throws Exception {
        OriginHead bare = parse("HTTP/1.1 204 No Content\r\n\r\n");
        assertThat(bare.status()).isEqualTo(204);
        assertThat(bare.headers()).isEmpty();
        assertThat(bare.headLength()).isEqualTo(27);
        OriginHead h = parse("HTTP/1.1 301 Moved\r\nLocation:  http://o:8080/a  \r\nX-A:\r\nServer: x\r\n\r\n");
        assertThat(h.header("location")).isEqualTo("http://o:8080/a");
        assertThat(h.header("x-a")).isEmpty();
        assertThat(h.header("server")).isEqualTo("x");
        assertThat(h.headers()).hasSize(3);
    }

    @Test
    void theEndOfAHeadIsFoundWhereverTheReadsSplitIt() {
        byte[] bytes = "HTTP/1.1 200 OK\r\nA: 1\r\n\r\n\r\nbody".getBytes(StandardCharsets.ISO_8859_1);
        ByteBuffer b = ByteBuffer.allocateDirect(bytes.length).put(0, bytes);
        for (int split = 0; split <= bytes.length; split++) {
            // two reads, as the origin client scans them: the first split bytes, then the rest
            int first = OriginHead.endOfHead(b, 0, split);
            int end = first >= 0 ? first : OriginHead.endOfHead(b, split, bytes.length);
            assertThat(end).as("split after %d bytes", split).isEqualTo(25);
        }
        assertThat(OriginHead.endOfHead(b, 0, 24)).isEqualTo(-1);
    }

    @Test
    void anIncompleteHeadIsNull() throws Exception {
        assertThat(parse("HTTP/1.1 200 OK\r\nContent-Le")).isNull();
    }

    @Test
    void framingAndConnectionHeaders() throws Exception {
        OriginHead h = parse("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
        assertThat(h.chunked()).isTrue();
        assertThat(h.contentLength()).isEqualTo(-1);
        assertThat(h.keepAlive()).isFalse();
    }

    @Test
    void rejectsWhatIsNotHttp() {
        assertThatThrownBy(() -> parse("SSH-2.0-OpenSSH\r\n\r\n")).isInstanceOf(ProtocolException.class);
        assertThatThrownBy(() -> parse("HTTP/1.1 2x0 OK\r\n\r\n")).isInstanceOf(ProtocolException.class);
        assertThatThrownBy(() -> parse("HTTP/1.1 200 OK\r\nno colon\r\n\r\n")).isInstanceOf(ProtocolException.class);
        assertThatThrownBy(() -> parse("HTTP/1.1 200 OK\r\nA: 1\r\nno colon\r\nB: 2\r\n\r\n"))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("no colon");
        assertThatThrownBy(() -> parse("HTTP/1.1 200 OK\r\n: empty name\r\n\r\n"))
                .isInstanceOf(ProtocolException.class);
        assertThatThrownBy(() ->
                        parse("HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n").contentLength())
                .isInstanceOf(ProtocolException.class);
    }
}
