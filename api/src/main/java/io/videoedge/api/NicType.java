package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * NIC driver family: picks the agent's queue and coalescing defaults. tls.mode ktls-offload is admitted
 * with auto and mlx5 only (the CRD's rule on VideoEdgeSpec, proven by CrdAdmissionIT).
 */
public enum NicType {
    @JsonProperty("auto")
    AUTO,
    @JsonProperty("mlx5")
    MLX5,
    @JsonProperty("ixgbe")
    IXGBE,
    @JsonProperty("i40e")
    I40E,
    @JsonProperty("ice")
    ICE,
    @JsonProperty("ena")
    ENA,
    @JsonProperty("virtio")
    VIRTIO;

    /** The name as written in the spec and as the kernel names the driver. */
    public String id() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The type for a driver name read from /sys/class/net/IF/device/driver, or AUTO when unknown. */
    public static NicType ofDriver(String driver) {
        if (driver == null) {
            return AUTO;
        }
        return switch (driver) {
            case "mlx5_core" -> MLX5;
            case "ixgbe" -> IXGBE;
            case "i40e" -> I40E;
            case "ice" -> ICE;
            case "ena" -> ENA;
            case "virtio_net" -> VIRTIO;
            default -> AUTO;
        };
    }
}
