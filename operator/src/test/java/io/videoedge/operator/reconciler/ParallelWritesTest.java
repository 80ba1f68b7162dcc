package io.videoedge.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ParallelWritesTest {
    @Test
    void writesSideBySideButNeverMoreThanTheBoundAtOnce() {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        Set<Integer> done = ConcurrentHashMap.newKeySet();
        // each write waits until IN_FLIGHT writes are under way (or a moment passes): one at a time would
        // never see more than one
        CountDownLatch full = new CountDownLatch(ParallelWrites.IN_FLIGHT);
        List<Integer> items = IntStream.range(0, 200).boxed().toList();
        ParallelWrites.each(items, i -> {
            most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            full.countDown();
            try {
                full.await(2, TimeUnit.SECONDS);
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            done.add(i);
            inFlight.decrementAndGet();
        });
        assertThat(done).hasSize(200);
        assertThat(most.get()).isEqualTo(ParallelWrites.IN_FLIGHT);
    }

    @Test
    void aFailureIsRethrownAfterEveryOtherWriteHasEnded() {
        Set<Integer> done = ConcurrentHashMap.newKeySet();
        assertThatThrownBy(() ->
                        ParallelWrites.each(IntStream.range(0, 50).boxed().toList(), i -> {
                            if (i == 7 || i == 30) {
                                throw new IllegalStateException("write " + i + " failed");
                            }
                            done.add(i);
                        }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("write ")
                .satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));
        assertThat(done).hasSize(48);
    }
}
