package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.mode) || self.mode == 'none' || (has(self.secretName) && self.secretName != '')", fieldPath = ".secretName",
    message = "tls.secretName is required when tls.mode is not 'none': name a Secret of type kubernetes.io/tls "
        + "(tls.crt, tls.key) in the VideoEdge's namespace")
@ValidationRule(value = "!has(self.protocols) || self.protocols.all(p, p in ['TLSv1.2', 'TLSv1.3'])", fieldPath = ".protocols",
    message = "tls.protocols may list only TLSv1.2 and TLSv1.3 (older versions are insecure)")
@ValidationRule(value = "!has(self.earlyData) || !has(self.earlyData.enabled) || !self.earlyData.enabled "
    + "|| !has(self.protocols) || 'TLSv1.3' in self.protocols", fieldPath = ".earlyData.enabled",
    message = "earlyData (0-RTT) is a TLS 1.3 feature: add TLSv1.3 to tls.protocols or disable earlyData")
public record TlsSpec(
    @JsonPropertyDescription("none (no HTTPS), openssl (userspace OpenSSL), ktls (kernel TLS in software: sendfile over TLS), "
        + "ktls-offload (kernel TLS on the NIC, mlx5). When the node lacks kTLS, the server falls back to openssl and the "
        + "status says so (reason KernelTlsUnavailable).")
    @Default("none")
    TlsMode mode,

    @JsonPropertyDescription("Secret of type kubernetes.io/tls with the certificate chain and key; required unless mode is none.")
    @Size(max = 253)
    String secretName,

    @JsonPropertyDescription("TLS versions offered: TLSv1.2 and/or TLSv1.3.")
    @Default("[\"TLSv1.2\", \"TLSv1.3\"]")
    @Size(min = 1, max = 2)
    List<@Size(max = 16) String> protocols,

    @JsonPropertyDescription("Stateless session resumption with session tickets. Each node's server makes its own keys "
        + "in memory and rotates them hourly: a key encrypts new tickets for an hour and still decrypts them for one more. "
        + "Keys are per node, so a ticket resumes a session only on the node that issued it.")
    @Default("true")
    Boolean sessionTickets,

    @JsonPropertyDescription("TLS 1.3 early data (0-RTT) for resumed sessions.")
    @Default("{}")
    EarlyData earlyData) {

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record EarlyData(
      @JsonPropertyDescription("Accept 0-RTT data. Replayable: only idempotent GET/HEAD are served from early data.")
      @Default("false")
      Boolean enabled,

      @JsonPropertyDescription("Largest early data accepted, bytes (one-nio maxEarlyDataSize).")
      @Default("4096")
      @Min(0) @Max(16384)
      Integer maxSize) {
  }
}
