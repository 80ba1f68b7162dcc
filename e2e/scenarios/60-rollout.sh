#!/usr/bin/env bash
# A live server change (socket options) reaches the running server through the mounted ConfigMap: same
# pod, no restart, a download in flight completes, new connections get the new values (read back from
# live sockets), the NodeTuning is untouched. A restart-only change (selectors) is rolled out: the pod is
# drained (gate Draining), evicted and replaced, the NodeTuning names the new pod and keeps its tuning.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
node=$(node_name)
ip=$(node_ip)
scenario "60 live reconfigure (socket options) without a restart; a restart change drains and replaces the pod"

pod0=$(edge_pods -o jsonpath='{.items[0].metadata.name}')
uid0=$(edge_pods -o jsonpath='{.items[0].metadata.uid}')
nt_gen0=$(k get nodetuning "$node" -o jsonpath='{.metadata.generation}')
rev0=$(k -n "$VE_NS" get ds "$VE_NAME-edge-server" -o jsonpath='{.spec.template.metadata.annotations.videoedge\.io/pod-revision}')
gen0=$(ve_jsonpath '{.metadata.generation}')
lowat0=$(ve_jsonpath '{.spec.server.socket.notsentLowat}')
info "pod $pod0, pod revision $rev0, NodeTuning generation $nt_gen0, notsentLowat $lowat0"

# a download in flight while the config changes
body="$STATE_DIR/live-download.bin"
start_download "$ip" "$HTTP_PORT" /bench/seg-16m.m4s "$body"
old_session=$(sockets "$ip" | jq -c "[.sessions.items[] | select(.localPort == $HTTP_PORT)][0]")
info "in flight: $old_session"
applied0=$(reloads_applied "$ip")

k -n "$VE_NS" patch ve "$VE_NAME" --type merge \
  -p '{"spec":{"server":{"socket":{"notsentLowat":"256k","recvBuf":"96k"}}}}' >&2
gen1=$(ve_jsonpath '{.metadata.generation}')
assert_eq "metadata.generation after the patch" "$((gen0 + 1))" "$gen1"
s=$SECONDS
config_has() { k -n "$VE_NS" get configmap "$VE_NAME-edge-server" -o jsonpath='{.data.edge-server\.yaml}' | grep -q "notsentLowat: 256k"; }
wait_until "ConfigMap renders notsentLowat: 256k" 60 config_has
# the kubelet swaps the mounted file (its sync period: 10 s in e2e/kind/cluster.yaml), the server reloads it
reloaded() { [ "$(reloads_applied "$ip")" -gt "${applied0:-0}" ]; }
wait_until "the server applied the new config live (videoedge_config_reloads_total{result=applied})" 120 reloaded
say "       applied live $((SECONDS - s))s after the patch"
listening() {
  # a listening socket of the HTTP port: its options are what new connections inherit
  sockets "$ip" | jq -e "[.listening[] | select(.localPort == $HTTP_PORT)][0] | .notsentLowat == 262144 and .recvBuf == 98304"
}
wait_until "the listening socket has TCP_NOTSENT_LOWAT 256k and SO_RCVBUF 96k (getsockopt)" 30 listening
# a new connection reads back the new values on its live socket
new_session=$(new_connection_options "$ip" "$HTTP_PORT")
assert_contains "a new connection's live socket has notsentLowat 262144" '"notsentLowat":262144' "$new_session"
assert_contains "  ... and recvBuf 98304 (the kernel's rb: $(jq '.recvBufKernel' <<<"$new_session"))" '"recvBuf":98304' "$new_session"
old_now=$(sockets "$ip" | jq -c "[.sessions.items[] | select(.localPort == $HTTP_PORT and .remote == $(jq '.remote' <<<"$old_session"))][0] // empty")
assert_contains "the download was still in flight after the change, with its socket's old options" \
  "\"notsentLowat\":$(jq '.notsentLowat' <<<"$old_session")" "$old_now"
wait "$DOWNLOAD"
assert_eq "the download in flight completed with the object's bytes" \
  "$(node_exec sha256sum "$CONTENT_PATH/bench/seg-16m.m4s" | cut -d' ' -f1)" "$(sha256sum "$body" | cut -d' ' -f1)"
assert_eq "same pod (no restart)" "$uid0" "$(edge_pods -o jsonpath='{.items[0].metadata.uid}')"
assert_eq "container restarts" 0 "$(edge_pods -o jsonpath='{.items[0].status.containerStatuses[0].restartCount}')"
assert_eq "pod revision unchanged" "$rev0" \
  "$(k -n "$VE_NS" get ds "$VE_NAME-edge-server" -o jsonpath='{.spec.template.metadata.annotations.videoedge\.io/pod-revision}')"
assert_eq "NodeTuning spec untouched (generation)" "$nt_gen0" "$(k get nodetuning "$node" -o jsonpath='{.metadata.generation}')"
status_current() {
  [ "$(ve_jsonpath '{.status.observedGeneration}')" = "$1" ] && [ "$(ve_condition Ready)" = True ] \
    && [ "$(ve_jsonpath '{.status.conditions[?(@.type=="Progressing")].reason}')" = RolloutComplete ]
}
wait_until "VideoEdge status.observedGeneration=$gen1, Ready, rollout complete" "$E2E_TIMEOUT" status_current "$gen1"

# ---- a restart-only field: the pod is drained, evicted and replaced
gate_watch_start
k -n "$VE_NS" patch ve "$VE_NAME" --type merge -p '{"spec":{"server":{"selectors":1}}}' >&2
gen2=$(ve_jsonpath '{.metadata.generation}')
s=$SECONDS
draining() {
  [ "$(k -n "$VE_NS" get pod "$pod0" -o jsonpath='{.status.conditions[?(@.type=="videoedge.io/node-tuned")].reason}' 2>/dev/null)" = Draining ] \
    || [ "$(k -n "$VE_NS" get pod "$pod0" -o jsonpath='{.metadata.deletionTimestamp}' 2>/dev/null)" != "" ] \
    || ! k -n "$VE_NS" get pod "$pod0" >/dev/null 2>&1
}
wait_until "the old pod is taken out of service (gate Draining) or already evicted" 60 draining
new_pod_ready() {
  local uid ready
  uid=$(edge_pods -o jsonpath='{.items[?(@.metadata.deletionTimestamp)]}')
  [ -z "$uid" ] || { echo "old pod still terminating"; return 1; }
  uid=$(edge_pods -o jsonpath='{.items[0].metadata.uid}')
  ready=$(edge_pods -o jsonpath='{.items[0].status.conditions[?(@.type=="Ready")].status}')
  # shellcheck disable=SC2015
  [ -n "$uid" ] && [ "$uid" != "$uid0" ] && [ "$ready" = True ] || { echo "pod $uid Ready=$ready"; return 1; }
}
wait_until "a new edge-server pod is Ready" "$E2E_TIMEOUT" new_pod_ready
wait_until "VideoEdge status.observedGeneration=$gen2, Ready, rollout complete" "$E2E_TIMEOUT" status_current "$gen2"
say "       restarted in $((SECONDS - s))s"
gate_watch_stop
drained_on "$node" && pass "the old pod was out of service, its gate Draining, before it was evicted (watched)" \
  || fail "the old pod was not out of service with its gate Draining before its eviction (every change watched: $(sort -u "$STATE_DIR/gates" | tr '\n' ';'))"
pod=$(edge_pods -o jsonpath='{.items[0].metadata.name}')
assert_eq "new pod's revision = DaemonSet's" \
  "$(k -n "$VE_NS" get ds "$VE_NAME-edge-server" -o jsonpath='{.spec.template.metadata.annotations.videoedge\.io/pod-revision}')" \
  "$(k -n "$VE_NS" get pod "$pod" -o jsonpath='{.metadata.annotations.videoedge\.io/pod-revision}')"
assert_contains "the running server's config file has selectors: 1" "selectors: 1" \
  "$(k -n "$VE_NS" exec "$pod" -- cat /etc/videoedge/config/edge-server.yaml)"
assert_eq "NodeTuning names the new pod" "$(k -n "$VE_NS" get pod "$pod" -o jsonpath='{.metadata.uid}')" \
  "$(k get nodetuning "$node" -o jsonpath='{.spec.server.podUid}')"
assert_eq "new pod's gate videoedge.io/node-tuned" True \
  "$(k -n "$VE_NS" get pod "$pod" -o jsonpath='{.status.conditions[?(@.type=="videoedge.io/node-tuned")].status}')"
assert_eq "tuned/serving/updated" "1/1 1/1 1/1" "$(ve_jsonpath '{.status.tuned} {.status.serving} {.status.updated}')"
for c in Ready TuningApplied ServerAvailable Progressing; do
  assert_eq "$c observedGeneration" "$gen2" "$(ve_jsonpath "{.status.conditions[?(@.type==\"$c\")].observedGeneration}")"
done
assert_eq "serving after the restart" 200 "$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "http://$ip:$HTTP_PORT/index.m3u8")"
# the new pod's cgroup got the pod settings again (cgroup v1; on v2 there is no such file, as in scenario 10)
nt=$(nt_json)
if [ "$(jq -r '.status.capabilities.cgroup' <<<"$nt")" = v1 ]; then
  assert_eq "cpuset/sched_relax_domain_level for the new pod" "1/Applied" \
    "$(nt_setting cpuset/sched_relax_domain_level actual "$nt")/$(nt_setting cpuset/sched_relax_domain_level state "$nt")"
else
  assert_eq "cpuset/sched_relax_domain_level for the new pod (cgroup v2: no such file)" Unsupported \
    "$(nt_setting cpuset/sched_relax_domain_level state "$nt")"
fi
