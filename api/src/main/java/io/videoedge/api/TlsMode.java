package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How the HTTPS acceptor encrypts. */
public enum TlsMode {
  /** No HTTPS acceptor. */
  @JsonProperty("none") NONE,
  /** Userspace OpenSSL: every byte goes through SSL_write, no sendfile. */
  @JsonProperty("openssl") OPENSSL,
  /** Kernel TLS in software (the `tls` module): the kernel encrypts, sendfile works. */
  @JsonProperty("ktls") KTLS,
  /** Kernel TLS offloaded to the NIC (mlx5 with crypto): the NIC encrypts. */
  @JsonProperty("ktls-offload") KTLS_OFFLOAD;

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
