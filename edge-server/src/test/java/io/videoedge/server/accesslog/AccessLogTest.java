package io.videoedge.server.accesslog;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AccessLogTest {
    static AccessLine line(String path) {
        AccessLine l = new AccessLine(0, 0, "127.0.0.1", "GET", path, 200, 10, null, null, false);
        l.finish(10, true, 0);
        return l;
    }

    /** Records each write(2)-sized chunk. */
    static final class Writes extends OutputStream {
        final List<String> chunks = new ArrayList<>();
        final ByteArrayOutputStream all = new ByteArrayOutputStream();

        @Override
        public void write(int b) {
            throw new UnsupportedOperationException("the log writes whole buffers");
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            chunks.add(new String(b, off, len, StandardCharsets.UTF_8));
            all.write(b, off, len);
        }
    }

    @Test
    void linesAreWrittenWholeInBatchesAndCounted() {
        Writes out = new Writes();
        AccessLog log = new AccessLog(1, 1000, out);
        for (int i = 0; i < 500; i++) {
            log.offer(line("/seg-" + i));
        }
        log.writerStart();
        log.close();
        assertThat(log.written()).isEqualTo(500);
        assertThat(log.dropped()).isZero();
        String text = out.all.toString(StandardCharsets.UTF_8);
        assertThat(text.lines()).hasSize(500).first().asString().contains("\"path\":\"/seg-0\"");
        assertThat(out.chunks)
                .as("whole lines per write, many per write")
                .allSatisfy(c -> assertThat(c).endsWith("}\n"));
        assertThat(out.chunks.size()).isLessThan(50);
    }

    @Test
    void aFullQueueDropsAndCountsInsteadOfWaiting() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch writing = new CountDownLatch(1);
        OutputStream stuck = new OutputStream() {
            @Override
            public void write(int b) {}

            @Override
            public void write(byte[] b, int off, int len) {
                writing.countDown();
                try {
                    release.await(); // a disk that does not answer
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        AccessLog log = new AccessLog(1, 4, stuck);
        log.writerStart();
        log.offer(line("/first")); // taken by the writer, which then hangs in write
        // in write, not merely taken: until it writes, the writer would also drain what comes next
        assertThat(writing.await(10, TimeUnit.SECONDS))
                .as("the writer reached write")
                .isTrue();
        assertThat(log.queued()).isZero();
        for (int i = 0; i < 10; i++) {
            log.offer(line("/x" + i)); // never blocks: 4 queued, 6 dropped
        }
        assertThat(log.dropped()).isEqualTo(6);
        release.countDown();
        log.close();
        assertThat(log.written()).isEqualTo(5);
    }

    @Test
    void anOutputThatRefusesCountsTheLinesAsFailed() {
        OutputStream broken = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("No space left on device");
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                throw new IOException("No space left on device");
            }
        };
        AccessLog log = new AccessLog(1, 100, broken);
        log.offer(line("/a"));
        log.offer(line("/b"));
        log.writerStart();
        log.close();
        assertThat(log.failed()).isEqualTo(2);
        assertThat(log.written()).isZero();
    }

    @Test
    void sampleLogsOneResponseInN() {
        AccessLog log = new AccessLog(3, 10, OutputStream.nullOutputStream());
        int sampled = 0;
        for (int i = 0; i < 30; i++) {
            sampled += log.sampled() ? 1 : 0;
        }
        assertThat(sampled).isEqualTo(10);
        AccessLog every = new AccessLog(1, 10, OutputStream.nullOutputStream());
        assertThat(every.sampled()).isTrue();
    }
}
