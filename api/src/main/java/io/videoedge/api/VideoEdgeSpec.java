package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;
import java.util.Map;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value =
                "!has(self.tls) || !has(self.tls.mode) || self.tls.mode != 'ktls-offload' || !has(self.nic) || !has(self.nic.type) "
                        + "|| self.nic.type in ['auto', 'mlx5']",
        fieldPath = ".tls.mode",
        message =
                "tls.mode 'ktls-offload' needs a NIC that encrypts TLS records itself: set nic.type to mlx5 "
                        + "(ConnectX-6 Dx and later) or auto (the agent checks the NIC and falls back to 'ktls'), or use tls.mode 'ktls'")
@ValidationRule(
        value =
                "(!has(self.server) || !has(self.server.http) || !has(self.server.http.enabled) || self.server.http.enabled) "
                        + "|| (has(self.tls) && has(self.tls.mode) && self.tls.mode != 'none' "
                        + "&& (!has(self.server) || !has(self.server.https) || !has(self.server.https.enabled) || self.server.https.enabled))",
        fieldPath = ".server.http.enabled",
        message =
                "no acceptor would listen: enable server.http, or set tls.mode (and leave server.https enabled) to serve HTTPS")
@ValidationRule(
        value = "!has(self.tuning) || !has(self.tuning.kernelModules) || size(self.tuning.kernelModules) < 16 "
                + "|| 'tls' in self.tuning.kernelModules || !has(self.tls) || !has(self.tls.mode) "
                + "|| !(self.tls.mode in ['ktls', 'ktls-offload'])",
        fieldPath = ".tuning.kernelModules",
        message =
                "kernel TLS adds the tls module to tuning.kernelModules, which holds 16 at most: list tls among them, "
                        + "or at most 15 others")
@ValidationRule(
        value = Patterns.WMEM_MAX_HOLDS_SEND_BUF,
        fieldPath = ".tuning.sysctls",
        message = "tuning.sysctls sets net.core.wmem_max below server.socket.sendBuf (in bytes): Linux caps SO_SNDBUF "
                + "at wmem_max, so the server would not get the send buffer it asks for. Raise it, or leave it out: the "
                + "agent then raises the node's value to at least sendBuf")
@ValidationRule(
        value = Patterns.RMEM_MAX_HOLDS_RECV_BUF,
        fieldPath = ".tuning.sysctls",
        message = "tuning.sysctls sets net.core.rmem_max below server.socket.recvBuf (in bytes): Linux caps SO_RCVBUF "
                + "at rmem_max, so the server would not get the receive buffer it asks for. Raise it, or leave it out: the "
                + "agent then raises the node's value to at least recvBuf")
@ValidationRule(
        value = "!has(self.nodeSelector) || self.nodeSelector.all(k, k.matches('" + Patterns.LABEL_KEY + "') "
                + "&& (!k.contains('/') || k.matches('^[^/]{1,253}/')))",
        fieldPath = ".nodeSelector",
        messageExpression =
                "'nodeSelector keys are label keys (an optional DNS-subdomain prefix and /, then a name of up "
                        + "to 63 letters, digits, -, _ and ., starting and ending alphanumeric): not ' + self.nodeSelector.filter(k,"
                        + " !k.matches('" + Patterns.LABEL_KEY
                        + "') || (k.contains('/') && !k.matches('^[^/]{1,253}/')))[0]")
@ValidationRule(
        value = "!has(self.nodeSelector) || self.nodeSelector.all(k, self.nodeSelector[k].matches('"
                + Patterns.LABEL_VALUE + "'))",
        fieldPath = ".nodeSelector",
        messageExpression = "'nodeSelector values are label values (up to 63 letters, digits, -, _ and ., starting and "
                + "ending alphanumeric): not the one of ' + self.nodeSelector.filter(k, !self.nodeSelector[k].matches('"
                + Patterns.LABEL_VALUE + "'))[0]")
public record VideoEdgeSpec(
        @JsonPropertyDescription(
                "Labels a node must carry to serve video; every matching node is tuned and runs one edge server (a node "
                        + "tainted NoSchedule or NoExecute needs a matching toleration: without one its server is never placed, "
                        + "its status names the taint, and a node new to the VideoEdge stalls in its rollout "
                        + "turn past progressDeadlineSeconds). "
                        + "A change adds and removes nodes (a node that leaves gets its originals back); it restarts"
                        + " no server on a node that stays. Default: videoedge.io/role=edge.")
        @Default("{\"videoedge.io/role\": \"edge\"}")
        @Size(min = 1, max = 16)
        Map<String, @Size(max = 63) String> nodeSelector,

        @JsonPropertyDescription("Tolerations for the edge server pods, so they run on tainted edge nodes. A change"
                + " restarts no running server.")
        @Size(max = 32)
        List<Toleration> tolerations,

        @JsonPropertyDescription(
                "NIC tuning: driver type (drives defaults), interfaces, queues, coalescing, IRQ affinity, RPS/RFS.")
        @Default("{}")
        NicSpec nic,

        @JsonPropertyDescription(
                "The one-nio edge server: dedicated cores, selectors, ports, socket buffers, cache, origin. Fields marked Live "
                        + "reach the running servers without a restart; a change of any other field restarts the edge servers, node by node "
                        + "within rollout.maxUnavailable, each drained first, except maxUnavailable (it only paces rollouts).")
        @Default("{}")
        ServerSpec server,

        @JsonPropertyDescription(
                "TLS for the HTTPS acceptor: userspace OpenSSL, kernel TLS, or kernel TLS offloaded to the NIC.")
        @Default("{}")
        TlsSpec tls,

        @JsonPropertyDescription(
                "Kernel tuning of every selected node: congestion control, sysctls, cpuset relax level, NUMA, modules.")
        @Default("{}")
        TuningSpec tuning,

        @JsonPropertyDescription(
                "How changes reach the nodes: node by node within maxUnavailable, health-gated, paused on "
                        + "trouble. Server fields marked live in their description reach the running servers without a restart.")
        @Default("{}")
        RolloutSpec rollout) {

    public VideoEdgeSpec withNodeSelector(Map<String, String> nodeSelector) {
        return new VideoEdgeSpec(nodeSelector, tolerations, nic, server, tls, tuning, rollout);
    }

    public VideoEdgeSpec withTolerations(List<Toleration> tolerations) {
        return new VideoEdgeSpec(nodeSelector, tolerations, nic, server, tls, tuning, rollout);
    }

    public VideoEdgeSpec withNic(NicSpec nic) {
        return new VideoEdgeSpec(nodeSelector, tolerations, nic, server, tls, tuning, rollout);
    }

    public VideoEdgeSpec withServer(ServerSpec server) {
        return new VideoEdgeSpec(nodeSelector, tolerations, nic, server, tls, tuning, rollout);
    }

    public VideoEdgeSpec withTls(TlsSpec tls) {
        return new VideoEdgeSpec(nodeSelector, tolerations, nic, server, tls, tuning, rollout);
    }

    public VideoEdgeSpec withTuning(TuningSpec tuning) {
        return new VideoEdgeSpec(nodeSelector, tolerations, nic, server, tls, tuning, rollout);
    }

    public VideoEdgeSpec withRollout(RolloutSpec rollout) {
        return new VideoEdgeSpec(nodeSelector, tolerations, nic, server, tls, tuning, rollout);
    }
}
