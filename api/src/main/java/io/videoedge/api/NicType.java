package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/** NIC driver family; drives queue and coalescing defaults and whether kTLS offload is possible. */
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

    /** Drivers that can encrypt TLS records on the NIC (kTLS TX offload) in the upstream kernel. */
    public boolean canOffloadTls() {
        return this == MLX5;
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
