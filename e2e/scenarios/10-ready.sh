#!/usr/bin/env bash
# The VideoEdge is Ready, counts 1/1 tuned and serving, and its node's NodeTuning lists every applied
# setting with the original it replaced (the value recorded on the node before install).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
scenario "10 VideoEdge Ready; status and NodeTuning report what was done"
node=$(node_name)

assert_eq "Ready" True "$(ve_condition Ready)"
assert_eq "TuningApplied" True "$(ve_condition TuningApplied)"
assert_eq "ServerAvailable" True "$(ve_condition ServerAvailable)"
assert_eq "status.observedGeneration = metadata.generation" "$(ve_jsonpath '{.metadata.generation}')" \
  "$(ve_jsonpath '{.status.observedGeneration}')"
assert_eq "Progressing (the rollout of the spec)" "True RolloutComplete" \
  "$(ve_jsonpath '{.status.conditions[?(@.type=="Progressing")].status} {.status.conditions[?(@.type=="Progressing")].reason}')"
assert_eq "nodes selected/tuned/serving/updated" "1/1/1/1" \
  "$(ve_jsonpath '{.status.nodes.selected}/{.status.nodes.tuned}/{.status.nodes.serving}/{.status.nodes.updated}')"
row=$(k -n "$VE_NS" get ve "$VE_NAME" --no-headers)
info "kubectl get ve: $row"
assert_match "kubectl get ve columns READY TUNED SERVING UPDATED TLS" "^$VE_NAME +True +1/1 +1/1 +1/1 +[a-z-]+ " "$row"
assert_eq "the node carries the agent label the operator set" true \
  "$(k get node "$node" -o jsonpath='{.metadata.labels.videoedge\.io/node-agent}')"
# a node tuned as far as it can be, with settings it cannot take (no tls module, a veth without IRQs),
# is "Degraded" in the summary, as its agent must report: not read from the agent's own Degraded condition,
# but from the kernel (no tls module: module/tls Unsupported, asserted below, so Degraded whatever else
# holds) or, with a tls module, from the settings it lists (Degraded exactly when one is not in place: on
# kind, each queue's rps_cpus on the read-only /sys, scenario 20)
nt=$(nt_json)
kernel=$(node_exec uname -r)
ktls_module=false
if node_exec test -d /sys/module/tls || node_exec sh -c "grep -qs '/tls.ko' /lib/modules/$kernel/modules.dep"; then
  ktls_module=true
fi
if [ "$ktls_module" = false ]; then
  want=Degraded
else
  want=Applied
  not_in_place=$(jq -r '[.status.settings[]? | select(.state != "Applied" and .state != "Unchanged") | "\(.name) \(.state)"] | join(", ")' <<<"$nt")
  [ -z "$not_in_place" ] || want=Degraded
  info "settings not in place: ${not_in_place:-none}"
fi
assert_eq "the agent's Degraded condition (tuning $want)" "$([ "$want" = Degraded ] && echo True || echo False)" \
  "$(jq -r '.status.conditions[] | select(.type == "Degraded") | .status' <<<"$nt")"
# the status lists only nodes that need attention (here: an agent reporting problems, or kTLS asked for
# and unavailable); a healthy node's detail is in its NodeTuning
nt_ktls=$(jq -r '.status.capabilities.ktls // ""' <<<"$nt")
if [ "$want" = Degraded ] || [ "$nt_ktls" = unavailable ]; then
  assert_eq "nodes.needingAttention" 1 "$(ve_jsonpath '{.status.nodes.needingAttention}')"
  assert_eq "nodesNeedingAttention[0] node, tuning (agent's Degraded condition), server" "$node $want Ready" \
    "$(ve_jsonpath '{.status.nodesNeedingAttention[0].node} {.status.nodesNeedingAttention[0].tuning} {.status.nodesNeedingAttention[0].server}')"
  info "nodesNeedingAttention[0].message: $(ve_jsonpath '{.status.nodesNeedingAttention[0].message}')"
else
  assert_eq "a healthy node is not listed: nodes.needingAttention" 0 "$(ve_jsonpath '{.status.nodes.needingAttention}')"
  assert_match "nodesNeedingAttention empty" '^(\[\])?$' "$(ve_jsonpath '{.status.nodesNeedingAttention}')"
fi

# kernel TLS: what this kernel can do decides what must be reported (/sys/module is global: the kernel's)
if [ "$ktls_module" = true ]; then
  assert_match "ktls on the node (its NodeTuning: tls module loaded or loadable)" '^(available|loadable)$' "$nt_ktls"
  assert_match "TLS column: kernel TLS serves" "^$VE_NAME +True +1/1 +1/1 +1/1 +ktls " "$row"
else
  info "this kernel ($kernel) has no tls module (no /sys/module/tls, nothing in /lib/modules/$kernel): kTLS cannot run here"
  assert_eq "its NodeTuning: capabilities.ktls" unavailable "$nt_ktls"
  assert_eq "nodesNeedingAttention[0].ktls" unavailable "$(ve_jsonpath '{.status.nodesNeedingAttention[0].ktls}')"
  assert_match "nodesNeedingAttention[0].message leads with kernel TLS" \
    '^kernel TLS unavailable: the server uses userspace OpenSSL' "$(ve_jsonpath '{.status.nodesNeedingAttention[0].message}')"
  assert_eq "Degraded (kTLS requested, unavailable)" True "$(ve_jsonpath '{.status.conditions[?(@.type=="Degraded")].status}')"
  # the specific reason leads, though the agent reports module/tls (and perhaps more) Unsupported too
  assert_eq "Degraded reason" KernelTlsUnavailable "$(ve_jsonpath '{.status.conditions[?(@.type=="Degraded")].reason}')"
  assert_contains "Degraded message says the server falls back to OpenSSL" \
    "kernel TLS is unavailable on $node: the edge server falls back to userspace OpenSSL" \
    "$(ve_jsonpath '{.status.conditions[?(@.type=="Degraded")].message}')"
  assert_eq "module/tls reported" Unsupported "$(nt_setting module/tls state)"
  assert_match "TLS column: what serves (tls.mode ktls asked, OpenSSL serves)" "^$VE_NAME +True +1/1 +1/1 +1/1 +openssl " "$row"
  assert_eq "nodesNeedingAttention[0].tls" openssl "$(ve_jsonpath '{.status.nodesNeedingAttention[0].tls}')"
  assert_eq "status.tls (one node)" openssl "$(ve_jsonpath '{.status.tls}')"
fi

# the pod is Ready through the readiness gate the operator opens once the node is tuned
pod=$(edge_pods -o jsonpath='{.items[0].metadata.name}')
assert_eq "pod $pod condition videoedge.io/node-tuned" True \
  "$(k -n "$VE_NS" get pod "$pod" -o jsonpath='{.status.conditions[?(@.type=="videoedge.io/node-tuned")].status}')"
assert_eq "pod QoS class" Guaranteed "$(k -n "$VE_NS" get pod "$pod" -o jsonpath='{.status.qosClass}')"

# NodeTuning: Applied for its latest spec, carrying the current tuning revision, each setting with its original
k get nodetuning "$node" >&2
nt=$(nt_json)
assert_eq "NodeTuning Applied" True "$(jq -r '.status.conditions[] | select(.type == "Applied") | .status' <<<"$nt")"
assert_eq "NodeTuning's agent saw its latest spec" "$(jq -r '.metadata.generation' <<<"$nt")" \
  "$(jq -r '.status.observedGeneration' <<<"$nt")"
assert_eq "NodeTuning carries the rollout's tuning revision" "$(ve_jsonpath '{.status.rollout.revision}' | cut -d- -f1)" \
  "$(jq -r '.metadata.annotations["videoedge.io/tuning-revision"]' <<<"$nt")"
assert_eq "NodeTuning owner labels" "$VE_NS/$VE_NAME" \
  "$(jq -r '.metadata.labels | "\(.["videoedge.io/videoedge-namespace"])/\(.["videoedge.io/videoedge"])"' <<<"$nt")"
# e2e/manifests/videoedge.yaml declares 4 sysctls (tuning.sysctls: tcp_notsent_lowat, somaxconn,
# swappiness, min_free_kbytes): a failed or empty read must not make the loop below check nothing
decl=$(ve_sysctls) || fail "could not read the VideoEdge's sysctls (kubectl get ve $VE_NAME)"
assert_eq "sysctls the VideoEdge declares (4 in e2e/manifests/videoedge.yaml)" 4 "$(grep -c . <<<"$decl" || true)"
while IFS='=' read -r name value; do
  assert_eq "sysctl/$name desired/actual/state" "$value/$value/Applied" \
    "$(nt_setting "sysctl/$name" desired "$nt")/$(nt_setting "sysctl/$name" actual "$nt")/$(nt_setting "sysctl/$name" state "$nt")"
  assert_eq "sysctl/$name original = value before install" "$(original "$name")" "$(nt_setting "sysctl/$name" original "$nt")"
done <<<"$decl"
cc=sysctl/net.ipv4.tcp_congestion_control
assert_eq "$cc" "bbr/Applied/$(original net.ipv4.tcp_congestion_control)" \
  "$(nt_setting $cc actual "$nt")/$(nt_setting $cc state "$nt")/$(nt_setting $cc original "$nt")"
cgroup=$(jq -r '.status.capabilities.cgroup' <<<"$nt")
for s in cpuset/sched_relax_domain_level cpuset/memory_spread_page; do
  if [ "$cgroup" = v1 ]; then
    assert_eq "$s (cgroup v1, the server pod's cgroup)" "1/Applied" "$(nt_setting "$s" actual "$nt")/$(nt_setting "$s" state "$nt")"
  else
    assert_eq "$s (cgroup v2: no such file)" Unsupported "$(nt_setting "$s" state "$nt")"
  fi
done
info "settings: $(jq -c '[.status.settings[] | "\(.name)=\(.actual // "-") (\(.state), was \(.original // "-"))"]' <<<"$nt")"
