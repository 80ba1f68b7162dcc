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
@ValidationRule(
        value = "!has(self.mode) || self.mode == 'none' || (has(self.secretName) && self.secretName != '')",
        fieldPath = ".secretName",
        message = "tls.secretName is required when tls.mode is not 'none': name a Secret of type kubernetes.io/tls "
                + "(tls.crt, tls.key) in the VideoEdge's namespace")
@ValidationRule(
        value = "!has(self.protocols) || self.protocols.all(p, p in ['TLSv1.2', 'TLSv1.3'])",
        fieldPath = ".protocols",
        message = "tls.protocols may list only TLSv1.2 and TLSv1.3 (older versions are insecure)")
@ValidationRule(
        value = "!has(self.earlyData) || !has(self.earlyData.enabled) || !self.earlyData.enabled "
                + "|| !has(self.protocols) || 'TLSv1.3' in self.protocols",
        fieldPath = ".earlyData.enabled",
        message = "earlyData (0-RTT) is a TLS 1.3 feature: add TLSv1.3 to tls.protocols or disable earlyData")
@ValidationRule(
        value = "!has(self.earlyData) || !has(self.earlyData.enabled) || !self.earlyData.enabled "
                + "|| !has(self.earlyData.maxSize) || self.earlyData.maxSize > 0",
        fieldPath = ".earlyData.maxSize",
        message = "earlyData.maxSize must be at least 1 byte while earlyData is enabled (0 would accept no early data)")
@ValidationRule(
        value = "!has(self.secretName) || self.secretName == '' || self.secretName.matches('" + Patterns.DNS_SUBDOMAIN
                + "')",
        fieldPath = ".secretName",
        message =
                "tls.secretName is a Secret's name: lower-case letters, digits, '-' and '.', starting and ending with "
                        + "a letter or digit")
public record TlsSpec(
        @JsonPropertyDescription(
                "none (no HTTPS); openssl (userspace OpenSSL); ktls (kernel TLS: sendfile over TLS, encrypted by "
                        + "the kernel in software; the NIC's TLS offload is left as it is, and where it is on already the kernel offers the sessions to the NIC); "
                        + "ktls-offload (kernel TLS, and each node's agent turns on the NIC's TLS TX offload, ethtool -K IF tls-hw-tx-offload on, "
                        + "so the NIC encrypts what the server sends: mlx5 ConnectX-6 Dx and later with crypto can). On a NIC that cannot "
                        + "(virtio, veth and most others: the feature is missing or fixed off), the node's NodeTuning reports "
                        + "ethtool/IF/tls-hw-tx-offload Unsupported with the reason, and kernel TLS encrypts in software there, as with ktls. "
                        + "The server's videoedge_ktls_sessions_current{direction=\"tx\",kind=\"device\"} counts the node's kTLS sessions "
                        + "whose sending side the NIC encrypts (every kTLS socket of the host's network namespace, not only the "
                        + "server's). When the node lacks kTLS, the server falls back to openssl and the status says so (Degraded "
                        + "reason KernelTlsUnavailable; its agent reports module/tls Unsupported).")
        @Default("none")
        TlsMode mode,

        @JsonPropertyDescription(
                "Secret of type kubernetes.io/tls with the certificate chain and key; required unless mode is none.")
        @Size(max = 253)
        String secretName,

        @JsonPropertyDescription("TLS versions offered: TLSv1.2 and/or TLSv1.3.")
        @Default("[\"TLSv1.2\", \"TLSv1.3\"]")
        @Size(min = 1, max = 2)
        List<@Size(max = 16) String> protocols,

        @JsonPropertyDescription(
                "Stateless session resumption with session tickets, under keys every node of this VideoEdge shares, so a "
                        + "client that moves to another node (a DNS or anycast change) resumes there without a full handshake. "
                        + "The operator keeps the keys in the Secret <name>-ticket-keys (owned by the VideoEdge) and rotates them "
                        + "hourly: a key encrypts new tickets for an hour and still decrypts them for one more. Each new key is "
                        + "added three minutes before its hour, so that every node has it, and the servers switch to it at that "
                        + "time.")
        @Default("true")
        Boolean sessionTickets,

        @JsonPropertyDescription("TLS 1.3 early data (0-RTT) for resumed sessions.") @Default("{}")
        EarlyData earlyData) {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record EarlyData(
            @JsonPropertyDescription(
                    "Accept 0-RTT data. Replayable: only idempotent GET/HEAD are served from early data.")
            @Default("false")
            Boolean enabled,

            @JsonPropertyDescription("Largest early data accepted, bytes (one-nio maxEarlyDataSize).")
            @Default("4096")
            @Min(0)
            @Max(16384)
            Integer maxSize) {}
}
