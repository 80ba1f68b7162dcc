#!/usr/bin/env bash
# A change to the VideoEdge rolls the edge server: new config (ConfigMap), a new config checksum on the
# pod template, a new pod that reads it, the NodeTuning re-rendered for the new generation, and the
# status describing the new generation once the new pod serves.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
node=$(node_name)
scenario "60 a spec change (server.socket.sendBuf) rolls the server and updates status"

gen0=$(ve_jsonpath '{.metadata.generation}')
uid0=$(edge_pods -o jsonpath='{.items[0].metadata.uid}')
sum0=$(k -n "$VE_NS" get ds "$VE_NAME-edge-server" -o jsonpath='{.spec.template.metadata.annotations.videoedge\.io/config-checksum}')
old=$(ve_jsonpath '{.spec.server.socket.sendBuf}')
new=2m; [ "$old" != 2m ] || new=4m
info "generation $gen0, pod $uid0, config checksum $sum0, sendBuf $old"

k -n "$VE_NS" patch ve "$VE_NAME" --type merge -p "{\"spec\":{\"server\":{\"socket\":{\"sendBuf\":\"$new\"}}}}" >&2
gen1=$(ve_jsonpath '{.metadata.generation}')
assert_eq "metadata.generation after the patch" "$((gen0 + 1))" "$gen1"
s=$SECONDS

config_has() { k -n "$VE_NS" get configmap "$VE_NAME-edge-server" -o jsonpath='{.data.edge-server\.yaml}' | grep -q "sendBuf: $new"; }
wait_until "ConfigMap $VE_NAME-edge-server renders sendBuf: $new" 60 config_has
checksum_changed() { [ "$(k -n "$VE_NS" get ds "$VE_NAME-edge-server" -o jsonpath='{.spec.template.metadata.annotations.videoedge\.io/config-checksum}')" != "$sum0" ]; }
wait_until "DaemonSet pod template has a new config checksum" 60 checksum_changed
new_pod_ready() {
  local uid ready
  uid=$(edge_pods -o jsonpath='{.items[0].metadata.uid}')
  ready=$(edge_pods -o jsonpath='{.items[0].status.conditions[?(@.type=="Ready")].status}')
  # shellcheck disable=SC2015
  [ -n "$uid" ] && [ "$uid" != "$uid0" ] && [ "$ready" = True ] || { echo "pod $uid Ready=$ready"; return 1; }
}
wait_until "a new edge-server pod is Ready" "$E2E_TIMEOUT" new_pod_ready
status_current() {
  [ "$(ve_jsonpath '{.status.observedGeneration}')" = "$gen1" ] && [ "$(ve_condition Ready)" = True ] \
    && [ "$(ve_jsonpath '{.status.conditions[?(@.type=="Ready")].observedGeneration}')" = "$gen1" ]
}
wait_until "VideoEdge status.observedGeneration=$gen1 and Ready" "$E2E_TIMEOUT" status_current
say "       rolled in $((SECONDS - s))s"

pod=$(edge_pods -o jsonpath='{.items[0].metadata.name}')
sum1=$(k -n "$VE_NS" get pod "$pod" -o jsonpath='{.metadata.annotations.videoedge\.io/config-checksum}')
assert_eq "new pod's config checksum = DaemonSet's" \
  "$(k -n "$VE_NS" get ds "$VE_NAME-edge-server" -o jsonpath='{.spec.template.metadata.annotations.videoedge\.io/config-checksum}')" "$sum1"
assert_contains "the running server's config file has sendBuf: $new" "sendBuf: $new" \
  "$(k -n "$VE_NS" exec "$pod" -- cat /etc/videoedge/edge-server.yaml)"
assert_eq "NodeTuning renders generation $gen1" "$gen1" "$(k get nodetuning "$node" -o jsonpath='{.spec.source.generation}')"
assert_eq "NodeTuning names the new pod" "$(k -n "$VE_NS" get pod "$pod" -o jsonpath='{.metadata.uid}')" \
  "$(k get nodetuning "$node" -o jsonpath='{.spec.server.podUid}')"
assert_eq "new pod's gate videoedge.io/node-tuned" True \
  "$(k -n "$VE_NS" get pod "$pod" -o jsonpath='{.status.conditions[?(@.type=="videoedge.io/node-tuned")].status}')"
assert_eq "tuned/serving" "1/1 1/1" "$(ve_jsonpath '{.status.tuned} {.status.serving}')"
for c in Ready TuningApplied ServerAvailable; do
  assert_eq "$c observedGeneration" "$gen1" "$(ve_jsonpath "{.status.conditions[?(@.type==\"$c\")].observedGeneration}")"
done
assert_eq "serving after the roll" 200 "$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "http://$(node_ip):$HTTP_PORT/index.m3u8")"
# the new pod's cgroup got the pod settings again
assert_eq "cpuset/sched_relax_domain_level for the new pod" "1/Applied" \
  "$(nt_setting cpuset/sched_relax_domain_level actual)/$(nt_setting cpuset/sched_relax_domain_level state)"
