package io.videoedge.server.resources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BufferPoolTest {
    @Test
    void lendsDirectBuffersOfTheChunkSizeUpToTheCount() {
        BufferPool pool = new BufferPool(4 * 1024, 1024);
        assertThat(pool.chunks()).isEqualTo(4);
        BufferPool.Chunk[] taken = new BufferPool.Chunk[4];
        for (int i = 0; i < 4; i++) {
            taken[i] = pool.tryAcquire();
            assertThat(taken[i].buffer().isDirect()).isTrue();
            assertThat(taken[i].buffer().capacity()).isEqualTo(1024);
            assertThat(taken[i].address()).isNotZero();
        }
        assertThat(pool.usedBytes()).isEqualTo(4096);
        assertThat(pool.tryAcquire()).isNull();
        assertThat(pool.exhaustedCount()).isEqualTo(1);
        for (BufferPool.Chunk c : taken) pool.release(c);
        assertThat(pool.usedBytes()).isZero();
    }

    @Test
    void theBufferReleasedLastIsLentFirst() {
        BufferPool pool = new BufferPool(4 * 1024, 1024);
        BufferPool.Chunk a = pool.tryAcquire();
        BufferPool.Chunk b = pool.tryAcquire();
        pool.release(a);
        pool.release(b);
        assertThat(pool.tryAcquire()).isSameAs(b);
        assertThat(pool.tryAcquire()).isSameAs(a);
    }

    @Test
    void waitingAcquireGivesUpAtTheTimeoutAndReleasingTwiceIsAnError() throws Exception {
        BufferPool pool = new BufferPool(1024, 1024);
        BufferPool.Chunk only = pool.acquire(10);
        assertThat(pool.acquire(1)).isNull();
        pool.release(only);
        assertThatThrownBy(() -> pool.release(only)).isInstanceOf(IllegalStateException.class);
    }
}
