package io.videoedge.server.guard;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class TcpInfoTest {
    @Test
    void bytesAckedIsTheLittleEndianU64AtOffset120() {
        ByteBuffer b = ByteBuffer.allocate(232).order(ByteOrder.LITTLE_ENDIAN); // Linux 6.x returns 232 bytes
        b.putLong(112, 0x7fffffffffffffffL); // max_pacing_rate, just before
        b.putLong(120, 5_000_000_123L);
        b.putLong(128, 77); // bytes_received, just after
        assertThat(TcpInfo.bytesAcked(b.array())).isEqualTo(5_000_000_123L);
    }

    @Test
    void aMissingOrShortStructSaysUnknown() {
        assertThat(TcpInfo.bytesAcked(null)).isEqualTo(-1);
        assertThat(TcpInfo.bytesAcked(new byte[104])).isEqualTo(-1);
    }
}
