package io.videoedge.server.content;

import io.videoedge.server.http.HttpDates;
import io.videoedge.server.http.Validators;
import io.videoedge.server.resources.SharedFile;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

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
        this.wholeHead = ("HTTP/1.1 200 OK\r\n"
                        + "Content-Length: " + validators.length() + "\r\n"
                        + "Content-Type: " + contentType + "\r\n"
                        + "Accept-Ranges: bytes\r\n"
                        + "Last-Modified: " + lastModified + "\r\n"
                        + "ETag: " + validators.etag() + "\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
    }

    /**
     * The status line and entity headers of a 200 with the whole file, in the order and bytes a
     * response built header by header has: formatted once per open file, not per request.
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
