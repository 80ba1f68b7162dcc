package io.videoedge.server.content;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import io.videoedge.server.http.HttpDates;
import io.videoedge.server.http.Validators;

/**
 * A file under the content root, open once and shared by every response that sends it: sendfile and
 * positional reads take an explicit offset, so one descriptor serves concurrent responses. Reference
 * counted: the cache holds one reference while the entry is current, each response one until its
 * body is written; the descriptor closes when the last is released. The header values derived from
 * the file are formatted once here.
 */
public final class OpenFile implements io.videoedge.server.send.FileSource {
    private final Path path;
    private final RandomAccessFile file;
    private final Validators validators;
    private final String contentType;
    private final String lastModified;
    final long checkedAt;
    private final AtomicInteger refs = new AtomicInteger(1);

    OpenFile(Path path, RandomAccessFile file, Validators validators, String contentType, long checkedAt) {
        this.path = path;
        this.file = file;
        this.validators = validators;
        this.contentType = contentType;
        this.lastModified = HttpDates.format(validators.lastModifiedMillis());
        this.checkedAt = checkedAt;
    }

    public Path path() {
        return path;
    }

    @Override
    public RandomAccessFile file() {
        return file;
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

    /** Takes a reference; false when the file was already closed (the caller looks it up again). */
    public boolean retain() {
        for (int r = refs.get(); r > 0; r = refs.get()) {
            if (refs.compareAndSet(r, r + 1)) {
                return true;
            }
        }
        return false;
    }

    /** Gives a reference back; the last one closes the descriptor. */
    @Override
    public void release() {
        if (refs.decrementAndGet() == 0) {
            try {
                file.close();
            } catch (IOException e) {
                // closed either way
            }
        }
    }
}
