package io.videoedge.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.http.RequestHeadParser.Complete;
import io.videoedge.server.http.RequestHeadParser.Continue;
import io.videoedge.server.http.RequestHeadParser.Refused;
import io.videoedge.server.http.RequestHeadParser.Started;
import io.videoedge.server.http.RequestHeadParser.Step;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import one.nio.http.Request;
import org.junit.jupiter.api.Test;

class RequestHeadParserTest {
    private final RequestHeadParser parser = new RequestHeadParser(512, 64);

    /** Feeds lines (no CR LF) and returns the last step. */
    private Step feed(String... lines) {
        Step last = null;
        for (String line : lines) {
            byte[] b = ("xx" + line).getBytes(StandardCharsets.UTF_8); // offset 2: the parser must honour start
            last = parser.line(b, 2, b.length - 2);
        }
        return last;
    }

    private static RejectedRequest rejection(Step step) {
        assertThat(step).isInstanceOf(Refused.class);
        return ((Refused) step).rejection();
    }

    @Test
    void aGetWithHostCompletesWithItsHeaders() {
        assertThat(feed("GET /v/a.mp4?x=1 HTTP/1.1")).isInstanceOf(Started.class);
        assertThat(parser.inHead()).isTrue();
        assertThat(feed("Host: edge", "Range: bytes=0-1")).isInstanceOf(Continue.class);
        Step done = feed("");
        assertThat(done).isInstanceOf(Complete.class);
        Request r = ((Complete) done).request();
        assertThat(r.getMethod()).isEqualTo(Request.METHOD_GET);
        assertThat(r.getURI()).isEqualTo("/v/a.mp4?x=1");
        assertThat(r.getHeader("Range:")).isEqualTo("bytes=0-1");
        assertThat(((Complete) done).bodyLength()).isZero();
        assertThat(parser.inHead()).isFalse();
    }

    @Test
    void emptyLinesBeforeARequestAreIgnored() {
        assertThat(feed("", "")).isInstanceOf(Continue.class);
        assertThat(parser.inHead()).isFalse();
        assertThat(feed("GET / HTTP/1.0", "")).isInstanceOf(Complete.class); // HTTP/1.0 needs no Host
    }

    @Test
    void aSmallBodyIsToBeSkippedALargeOneRefused() {
        assertThat(((Complete) feed("POST /x HTTP/1.1", "Host: a", "Content-Length: 10", "")).bodyLength())
                .isEqualTo(10);
        RejectedRequest large = rejection(feed("GET /x HTTP/1.1", "Host: a", "Content-Length: 70000", ""));
        assertThat(large.status()).startsWith("413");
        RejectedRequest post = rejection(feed("POST /x HTTP/1.1", "Host: a", "Content-Length: 70000", ""));
        assertThat(post.status()).startsWith("405");
    }

    @Test
    void headerProblemsAreBadRequests() {
        List<String[]> cases = new ArrayList<>();
        cases.add(new String[] {"Host: a", "Host: b"}); // two Hosts
        cases.add(new String[] {"X: 1"}); // HTTP/1.1 without Host
        cases.add(new String[] {"Host: a", "Content-Length: 1x"});
        cases.add(new String[] {"Host: a", "Content-Length: 1", "Content-Length: 2"});
        cases.add(new String[] {"Host: a", "Content-Length: 0", "Content-Length: 30"});
        cases.add(new String[] {"Host: a", "Transfer-Encoding: chunked"});
        cases.add(new String[] {"Host: a", " folded"});
        cases.add(new String[] {"Host: a", "Bad Name: x"});
        cases.add(new String[] {"Host: a", "X: a\u0001b"});
        for (String[] headers : cases) {
            feed("GET /x HTTP/1.1");
            Step last = null;
            for (String h : headers) {
                last = feed(h);
                if (last instanceof Refused) break;
            }
            if (!(last instanceof Refused)) last = feed("");
            RejectedRequest r = rejection(last);
            assertThat(r.status()).as(String.join(" | ", headers)).startsWith("400");
            assertThat(r.closesConnection()).isTrue();
            assertThat(parser.inHead()).isFalse();
        }
    }

    @Test
    void requestLineProblems() {
        assertThat(rejection(feed("GET /x")).status()).startsWith("400");
        assertThat(rejection(feed("GET /x HTTP/2.0")).status()).startsWith("505");
        assertThat(rejection(feed("GET /" + "a".repeat(64) + " HTTP/1.1")).status())
                .startsWith("414");
        // an unknown method is a request (answered 405 later), not a refusal of the line
        assertThat(feed("BREW /pot HTTP/1.1")).isInstanceOf(Started.class);
    }

    @Test
    void theHeadIsBoundedInBytesAndCount() {
        feed("GET /x HTTP/1.1");
        RejectedRequest big = rejection(feed("X-Big: " + "v".repeat(600)));
        assertThat(big.status()).startsWith("431");
        assertThat(big.getMethod()).isEqualTo(Request.METHOD_GET);

        RequestHeadParser many = new RequestHeadParser(1 << 20, 64);
        byte[] start = "GET /x HTTP/1.1".getBytes(StandardCharsets.UTF_8);
        many.line(start, 0, start.length);
        Step step = null;
        for (int i = 0; i <= RequestHeadParser.MAX_HEADERS; i++) {
            byte[] h = ("X-" + i + ": v").getBytes(StandardCharsets.UTF_8);
            step = many.line(h, 0, h.length);
        }
        assertThat(rejection(step).status()).startsWith("431");
    }

    @Test
    void incompleteLinesAreRefusedOnlyOnceTheyCannotFit() {
        assertThat(parser.incomplete(64 + 32)).isNull();
        assertThat(parser.incomplete(64 + 33).rejection().status()).startsWith("414");
        feed("GET /x HTTP/1.1");
        assertThat(parser.incomplete(400)).isNull();
        assertThat(parser.incomplete(600).rejection().status()).startsWith("431");
    }
}
