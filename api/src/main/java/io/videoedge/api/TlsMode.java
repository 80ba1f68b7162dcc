package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How the HTTPS acceptor encrypts. */
public enum TlsMode {
    /** No HTTPS acceptor. */
    @JsonProperty("none")
    NONE,
    /** Userspace OpenSSL: every byte goes through SSL_write, no sendfile. */
    @JsonProperty("openssl")
    OPENSSL,
    /**
     * Kernel TLS (the `tls` module): the kernel encrypts in software, sendfile works. The NIC's TLS offload is left
     * as it is: where it is on already, the kernel offers the sessions to the NIC.
     */
    @JsonProperty("ktls")
    KTLS,
    /**
     * Kernel TLS with the NIC's TLS TX offload turned on by the node agent (mlx5 with crypto): the NIC encrypts
     * what the server sends. Where the NIC cannot, the agent reports it Unsupported and the kernel encrypts in
     * software, as with {@link #KTLS}.
     */
    @JsonProperty("ktls-offload")
    KTLS_OFFLOAD;

    public String id() {
        return switch (this) {
            case NONE -> "none";
            case OPENSSL -> "openssl";
            case KTLS -> "ktls";
            case KTLS_OFFLOAD -> "ktls-offload";
        };
    }

    /** Whether this mode needs the kernel's `tls` module. */
    public boolean usesKernelTls() {
        return this == KTLS || this == KTLS_OFFLOAD;
    }
}
