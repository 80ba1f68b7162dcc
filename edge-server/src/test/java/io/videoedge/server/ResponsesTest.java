package io.videoedge.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.content.ContentStore;
import io.videoedge.server.content.OpenFile;
import io.videoedge.server.http.ByteRange;
import io.videoedge.server.http.Decision;
import io.videoedge.server.http.HttpDates;
import io.videoedge.server.send.BodyResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import one.nio.http.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The head of a whole file is partly prebuilt when the file is opened (OpenFile.wholeHead): on the
 * wire it must be the very bytes of a head built header by header, the headers added later included.
 */
class ResponsesTest {
    @TempDir
    Path root;

    @Test
    void aWholeFilesPrebuiltHeadIsTheHeadBuiltHeaderByHeader() throws Exception {
        Files.writeString(root.resolve("a.m3u8"), "#EXTM3U\n#EXT-X-VERSION:7\n");
        OpenFile file = new ContentStore(root, 60_000).open("a.m3u8");
        long length = file.validators().length();

        Response r = Responses.forObject(Decision.full(length), file, true);
        r.addHeader("Connection: keep-alive"); // as the session adds it
        String date = dateOf(r);

        Response byHand = new Response(Response.OK);
        byHand.addHeader("Content-Length: " + length);
        byHand.addHeader("Content-Type: " + file.contentType());
        byHand.addHeader("Accept-Ranges: bytes");
        byHand.addHeader("Last-Modified: " + file.lastModified());
        byHand.addHeader("ETag: " + file.validators().etag());
        byHand.addHeader(date);
        byHand.addHeader("Connection: keep-alive");

        assertThat(r).isInstanceOf(BodyResponse.class);
        assertThat(new String(r.toBytes(false), StandardCharsets.ISO_8859_1))
                .isEqualTo(new String(byHand.toBytes(false), StandardCharsets.ISO_8859_1))
                .startsWith("HTTP/1.1 200 OK\r\nContent-Length: " + length + "\r\n")
                .endsWith("\r\nConnection: keep-alive\r\n\r\n");
        assertThat(r.getStatus()).isEqualTo(200);
        ((BodyResponse) r).discardIfNotSent();
    }

    @Test
    void aRangeIsBuiltHeaderByHeader() throws Exception {
        Files.writeString(root.resolve("b.vtt"), "WEBVTT\n\n00:00.000 --> 00:01.000\nhi\n");
        OpenFile file = new ContentStore(root, 60_000).open("b.vtt");

        Response r = Responses.forObject(Decision.partial(new ByteRange(2, 4)), file, true);

        assertThat(new String(r.toBytes(false), StandardCharsets.ISO_8859_1))
                .startsWith("HTTP/1.1 206 Partial Content\r\nContent-Length: 4\r\nContent-Range: bytes 2-5/")
                .contains("\r\nETag: " + file.validators().etag() + "\r\n");
        ((BodyResponse) r).discardIfNotSent();
    }

    private static String dateOf(Response r) {
        String date = r.getHeader("Date:");
        assertThat(date).isNotNull();
        assertThat(HttpDates.parseSeconds(date)).isPositive();
        return "Date: " + date;
    }
}
