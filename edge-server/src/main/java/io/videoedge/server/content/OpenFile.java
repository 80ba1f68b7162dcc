package io.videoedge.server.content;

import io.videoedge.server.http.HttpDates;
import io.videoedge.server.http.Validators;
import io.videoedge.server.resources.SharedFile;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import one.nio.http.Response;

/**
 * A file under the content root, open once and shared by every response that sends it
 * ({@link SharedFile}): the cache holds one reference while the entry is current, each response one
 * until its body is written. The header values derived from the file are formatted once here, and a
 * small file's bytes are held here too, read once with the metadata they match.
 */
public final class OpenFile extends SharedFile {
    private final Path path;
    private final Validators validators;
    private final String contentType;
    private final String lastModified;
    private final byte[] heldBytes;
    private final List<String> entityHeaders;
    private final byte[] wholeHead;
    final long checkedAt;

    OpenFile(
            Path path,
            RandomAccessFile file,
            Validators validators,
            String contentType,
            long checkedAt,
            byte[] heldBytes) {
        super(file);
        this.heldBytes = heldBytes;
        this.path = path;
        this.validators = validators;
        this.contentType = contentType;
        this.lastModified = HttpDates.format(validators.lastModifiedMillis());
        this.checkedAt = checkedAt;
        this.entityHeaders = List.of(
                "Content-Type: " + contentType,
                "Accept-Ranges: bytes",
                "Last-Modified: " + lastModified,
                "ETag: " + validators.etag());
        StringBuilder head = new StringBuilder(256)
                .append("HTTP/1.1 ")
                .append(Response.OK)
                .append("\r\nContent-Length: ")
                .append(validators.length())
                .append("\r\n");
        for (String h : entityHeaders) {
            head.append(h).append("\r\n");
        }
        this.wholeHead = head.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /**
     * The header lines that describe the file in every 200 and 206 response, after Content-Length (and
     * Content-Range): type, Accept-Ranges and the validators, formatted once per open file.
     */
    public List<String> entityHeaders() {
        return entityHeaders;
    }

    /**
     * The status line, Content-Length and {@link #entityHeaders} of a 200 with the whole file, as the
     * bytes a response built header by header has: made once per open file, not per request (shared:
     * read it, never write it).
     */
    public byte[] wholeHead() {
        return wholeHead;
    }

    public Path path() {
        return path;
    }

    public Validators validators() {
        return validators;
    }

    public String contentType() {
        return contentType;
    }

    public String lastModified() {
        return lastModified;
    }

    /** The file's bytes as they were when it was opened, for a small file ({@link ContentStore}); else null. */
    @Override
    public byte[] heldBytes() {
        return heldBytes;
    }
}
