package io.videoedge.server.guard;

/**
 * Reads Linux's {@code struct tcp_info} (getsockopt TCP_INFO) as the kernel returns it: only what the
 * defences need.
 */
public final class TcpInfo {
    /** {@code tcpi_bytes_acked} (Linux 4.1+): 8 bytes of flags, 24 u32 fields, pacing_rate, max_pacing_rate. */
    static final int BYTES_ACKED_OFFSET = 120;

    private TcpInfo() {}

    /**
     * Bytes of this connection the peer has acknowledged, i.e. taken into its receive buffer, or -1 when
     * the struct is missing or too short (an older kernel, a closed socket). Unlike bytes written to the
     * socket, this advances as the client reads, not in bursts of half a send buffer.
     */
    public static long bytesAcked(byte[] tcpInfo) {
        if (tcpInfo == null || tcpInfo.length < BYTES_ACKED_OFFSET + 8) {
            return -1;
        }
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (tcpInfo[BYTES_ACKED_OFFSET + i] & 0xff); // host order: little-endian on x86-64 and arm64
        }
        return v;
    }
}
