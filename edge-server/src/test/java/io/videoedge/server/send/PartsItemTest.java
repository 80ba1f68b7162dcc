package io.videoedge.server.send;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.videoedge.server.resources.SharedFile;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * Whether a sliced body is starved decides whether a miss's head leaves at once or waits for the
 * first body bytes (EdgeSession#writeResponse): a part that is known and has data is not starved.
 */
class PartsItemTest {
    /** A fill that has {@code filled} bytes of its object. */
    private record Growing(long filled) implements GrowingFile {
        @Override
        public boolean broken() {
            return false;
        }

        @Override
        public int headerLength() {
            return 0;
        }

        @Override
        public SharedFile file() {
            return null;
        }

        @Override
        public boolean parkUnlessReady(long position, Runnable waker) {
            return position >= filled;
        }
    }

    /** Parts that hand out {@code next} once (null: not known yet), or throw {@code failure}. */
    private static final class OneShotParts implements BodyParts {
        private Body next;
        private final IOException failure;
        int polls;

        OneShotParts(Body next, IOException failure) {
            this.next = next;
            this.failure = failure;
        }

        @Override
        public Body poll() throws IOException {
            polls++;
            if (failure != null) throw failure;
            Body b = next;
            next = null;
            return b;
        }

        @Override
        public boolean parkUnlessReady(Runnable waker) {
            return next == null && failure == null;
        }

        @Override
        public void discard() {}
    }

    private static PartsItem item(BodyParts parts) {
        return new PartsItem(parts, 1000, true, null, null);
    }

    @Test
    void aKnownPartWithDataIsNotStarvedAndIsTakenOnce() {
        OneShotParts parts = new OneShotParts(new Body.FillRegion(new Growing(500), 0, 1000), null);
        PartsItem item = item(parts);
        assertThat(item.starved()).isFalse();
        assertThat(item.starved()).isFalse();
        assertThat(parts.polls)
                .as("the part is kept for the write, not asked for again")
                .isEqualTo(1);
    }

    @Test
    void aKnownPartWhoseDataIsStillComingIsStarved() {
        PartsItem item = item(new OneShotParts(new Body.FillRegion(new Growing(0), 0, 1000), null));
        assertThat(item.starved()).isTrue();
    }

    @Test
    void anUnknownPartIsStarved() {
        assertThat(item(new OneShotParts(null, null)).starved()).isTrue();
    }

    @Test
    void aPartThatWillNeverComeIsNotStarvedAndTheWriteThrowsItsFailure() {
        IOException cut = new IOException("the slice at 0 failed");
        PartsItem item = item(new OneShotParts(null, cut));
        assertThat(item.starved()).isFalse();
        assertThatThrownBy(() -> item.write(null)).isSameAs(cut);
    }
}
