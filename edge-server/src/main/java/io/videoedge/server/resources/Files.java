package io.videoedge.server.resources;

import java.io.Closeable;
import java.io.IOException;

public final class Files {
    private Files() {}

    public static void closeQuietly(Closeable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (IOException e) {
            // nothing useful to do: the descriptor is gone either way
        }
    }
}
