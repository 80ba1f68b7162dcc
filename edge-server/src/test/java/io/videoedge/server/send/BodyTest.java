package io.videoedge.server.send;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.content.ContentStore;
import io.videoedge.server.content.OpenFile;
import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.resources.BufferPool;
import io.videoedge.server.resources.FileSource;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BodyTest {
    @Test
    void aHeldSmallFileIsCopiedFromMemoryNotReadAgain(@TempDir Path root) throws Exception {
        Path file = root.resolve("live.m3u8");
        Files.writeString(file, "#EXTM3U one");
        ContentStore store = new ContentStore(root, 60_000);
        OpenFile opened = store.open("live.m3u8");
        Files.writeString(file, "#EXTM3U two"); // in place: a read now would see "two"

        assertThat(copied(new Body.FileRegion(opened, 8, 3, EdgeMetrics.Source.CONTENT), 5))
                .as("the bytes the response's head describes, from memory")
                .isEqualTo("one");
        store.close();
    }

    @Test
    void aFileWithoutHeldBytesIsRead(@TempDir Path root) throws Exception {
        Path file = root.resolve("seg.m4s");
        Files.writeString(file, "0123456789");
        FileSource owned = FileSource.owned(new RandomAccessFile(file.toFile(), "r"));
        assertThat(copied(new Body.FileRegion(owned, 2, 4, EdgeMetrics.Source.CONTENT), 7))
                .isEqualTo("2345");
    }

    /** The body copied into a pooled buffer at {@code at}, as a string; the body is discarded. */
    private static String copied(Body body, int at) throws Exception {
        BufferPool pool = new BufferPool(4 * 1024, 1024);
        BufferPool.Chunk chunk = pool.tryAcquire();
        try {
            body.copyTo(chunk, at);
            byte[] out = new byte[(int) body.length()];
            chunk.buffer().get(at, out);
            return new String(out, StandardCharsets.US_ASCII);
        } finally {
            pool.release(chunk);
            body.discard();
        }
    }
}
