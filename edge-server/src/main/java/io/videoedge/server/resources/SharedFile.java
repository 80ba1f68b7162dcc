package io.videoedge.server.resources;

import java.io.RandomAccessFile;

/**
 * An open file shared by several responses: sendfile and positional reads take an explicit offset,
 * so one descriptor serves them all. It closes when the last reference is released.
 */
public class SharedFile extends RefCounted implements FileSource {
    private final RandomAccessFile file;

    public SharedFile(RandomAccessFile file) {
        this.file = file;
    }

    @Override
    public final RandomAccessFile file() {
        return file;
    }

    @Override
    protected final void free() {
        Files.closeQuietly(file); // closed either way
    }
}
