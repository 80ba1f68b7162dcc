package io.videoedge.server.resources;

import java.io.RandomAccessFile;

/** An open file a send item reads from; released (once) when the item is done with it. */
public interface FileSource {
    RandomAccessFile file();

    void release();

    /**
     * The whole file's bytes when they are held in memory (small content-root files, read once when
     * opened), else null: a sender copies from them instead of reading the file.
     */
    default byte[] heldBytes() {
        return null;
    }

    /** A file opened for one response, closed on release. */
    static FileSource owned(RandomAccessFile file) {
        return new FileSource() {
            @Override
            public RandomAccessFile file() {
                return file;
            }

            @Override
            public void release() {
                Files.closeQuietly(file);
            }
        };
    }
}
