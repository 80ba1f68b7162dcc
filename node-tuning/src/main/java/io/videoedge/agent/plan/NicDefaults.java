package io.videoedge.agent.plan;

import io.videoedge.api.NicType;

/**
 * What each NIC family gets when the spec leaves queues or coalescing out. Throughput over
 * latency (video serving): adaptive moderation off, tens of microseconds between interrupts,
 * one combined queue per online CPU up to what RSS can use.
 *
 * @param setQueues whether to set combined queues by default at all
 * @param queueCap most queues worth having (null = the NIC's maximum)
 * @param rxUsecs default rx-usecs, null = leave
 * @param txUsecs default tx-usecs, null = leave
 * @param adaptiveRx default adaptive-rx, null = leave
 */
public record NicDefaults(boolean setQueues, Integer queueCap, Integer rxUsecs, Integer txUsecs, Boolean adaptiveRx) {

    public static NicDefaults of(NicType type) {
        return switch (type) {
            // mlx5 ships adaptive moderation on with rx-usecs 8: tuned for latency
            case MLX5 -> new NicDefaults(true, null, 64, 64, false);
            // 82599 RSS hashes into at most 16 queues (4 bits of the hash): more queues only feed
            // Flow Director, which the seed saw miss; RPS spreads beyond 16 cores. TX shares the
            // TxRx vector's rate, so only rx-usecs is set; ixgbe has no adaptive-rx switch.
            case IXGBE -> new NicDefaults(true, 16, 100, null, null);
            // the seed turned adaptive moderation off on i40e: it optimises latency, not throughput
            case I40E, ICE -> new NicDefaults(true, null, 100, 100, false);
            // ENA offers at most 32 queues; rx-usecs only counts with adaptive-rx off
            case ENA -> new NicDefaults(true, 32, 64, 64, false);
            // virtio: one queue pair per vCPU; coalescing only on hypervisors with notification
            // coalescing, so it is left alone unless asked
            case VIRTIO -> new NicDefaults(true, null, null, null, null);
            // unknown driver (veth, bridge, bond): nothing by default, only what the spec asks
            case AUTO -> new NicDefaults(false, null, null, null, null);
        };
    }
}
