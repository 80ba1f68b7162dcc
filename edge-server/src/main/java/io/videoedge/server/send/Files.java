package io.videoedge.server.send;

import java.io.Closeable;
import java.io.IOException;

final class Files {
    private Files() {
    }

    static void closeQuietly(Closeable c) {
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
