package io.videoedge.server.resources;

import java.io.RandomAccessFile;

/**
 * An open file shared by several responses: sendfile and positional reads take an explicit offset,
 * so one descriptor serves them all. It closes when the last reference is released.
 */
public class SharedFile extends RefCounted implements FileSource {
    private final RandomAccessFile file;
    private volatile Runnable afterClose;

    public SharedFile(RandomAccessFile file) {
        this.file = file;
    }

    /**
     * Runs {@code action} once the file is closed (by the last release); set while a reference is held.
     * It runs on the releasing thread, a selector's too: it must not block.
     */
    public final void afterClose(Runnable action) {
        afterClose = action;
    }

    @Override
    public final RandomAccessFile file() {
        return file;
    }

    @Override
    protected final void free() {
        Files.closeQuietly(file); // closed either way
        Runnable action = afterClose;
        if (action != null) action.run();
    }
}
