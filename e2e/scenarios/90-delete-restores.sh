#!/usr/bin/env bash
# Deleting the VideoEdge restores every original value on the node (compared with the values recorded
# before install, and with the originals the NodeTuning reported), removes the NodeTuning (after its
# agent restored the node), the DaemonSet, ConfigMap and PodMonitor, and the server stops listening.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
node=$(node_name)
ip=$(node_ip)
scenario "90 deleting the VideoEdge restores the node's original values"

# what the agent says it changed, and the originals it holds
reported=$(nt_json | jq -r '.status.settings[] | select(.original != null and (.name | startswith("sysctl/"))) | "\(.name | sub("^sysctl/"; ""))=\(.original)"')
info "NodeTuning originals: $(tr '\n' ' ' <<<"$reported")"
# the agent changed at least these (congestion control and e2e/manifests/videoedge.yaml's 4 sysctls): each
# must have its original reported, or the comparison with the NodeTuning's originals below checks nothing
for n in "${NET_SYSCTLS[@]}" "${VM_SYSCTLS[@]}"; do
  grep -q "^$n=" <<<"$reported" || fail "the NodeTuning reports no original for sysctl/$n (it reported: $(tr '\n' ' ' <<<"$reported"))"
done
pass "the NodeTuning reports originals for the $(( ${#NET_SYSCTLS[@]} + ${#VM_SYSCTLS[@]} )) sysctls the e2e VideoEdge changes ($(grep -c . <<<"$reported") in all)"

s=$SECONDS
k -n "$VE_NS" delete ve "$VE_NAME" --wait=false >&2
restoring() { [ "$(ve_condition Ready 2>/dev/null)" = False ] || ! k -n "$VE_NS" get ve "$VE_NAME" >/dev/null 2>&1; }
wait_until "VideoEdge reports not Ready while restoring (or is gone)" 60 restoring
gone() { ! k get nodetuning "$node" >/dev/null 2>&1; }
wait_until "NodeTuning $node deleted (the agent released its finalizer after restoring)" "$E2E_TIMEOUT" gone
wait_until "VideoEdge $VE_NS/$VE_NAME deleted (its finalizer waits for the NodeTuning)" "$E2E_TIMEOUT" \
  k -n "$VE_NS" wait --for=delete "ve/$VE_NAME" --timeout=5s
say "       deleted and restored in $((SECONDS - s))s"
for o in "ds/$VE_NAME-edge-server" "configmap/$VE_NAME-edge-server"; do
  wait_until "$o garbage-collected" "$E2E_TIMEOUT" k -n "$VE_NS" wait --for=delete "$o" --timeout=5s
done
if monitoring_present; then
  wait_until "podmonitor/$VE_NAME-edge-server garbage-collected" "$E2E_TIMEOUT" k -n "$VE_NS" wait --for=delete "podmonitor/$VE_NAME-edge-server" --timeout=5s
fi
no_pods() { [ -z "$(edge_pods -o name)" ]; }
wait_until "edge-server pods gone" "$E2E_TIMEOUT" no_pods
not_listening() { ! curl -sS --max-time 3 -o /dev/null "http://$ip:$HTTP_PORT/index.m3u8" 2>/dev/null; }
wait_until "nothing listens on $ip:$HTTP_PORT any more" 60 not_listening

# every value as it was before install
for n in "${NET_SYSCTLS[@]}" "${VM_SYSCTLS[@]}"; do
  assert_eq "$n restored (recorded before install)" "$(original "$n")" "$(node_sysctl "$n")"
done
while IFS='=' read -r n v; do
  [ -n "$n" ] || continue
  assert_eq "$n = the original the NodeTuning reported" "$v" "$(node_sysctl "$n")"
done <<<"$reported"
assert_eq "vm.swappiness on this machine (global)" "$(original vm.swappiness)" "$(sysctl -n vm.swappiness)"
assert_eq "vm.min_free_kbytes on this machine (global)" "$(original vm.min_free_kbytes)" "$(sysctl -n vm.min_free_kbytes)"
# the journal stays after a restore (emptied of originals); a missing one would hide what it still held
journal=$(node_exec cat /var/lib/videoedge/agent/journal.json) || fail "the agent's journal /var/lib/videoedge/agent/journal.json is gone"
assert_eq "agent journal holds no originals any more" 0 "$(jq '[.. | objects | select(has("original"))] | length' <<<"$journal")"
info "journal: $(head -c 300 <<<"$journal")"
