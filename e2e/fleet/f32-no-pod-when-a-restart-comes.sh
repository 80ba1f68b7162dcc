#!/usr/bin/env bash
# A node already out of service with no edge-server pod (a taint keeps the DaemonSet from placing one)
# when a restart change comes: the node has nothing to change, yet its turn starts and takes the only
# room (maxUnavailable 1), so the other node keeps its old server; past progressDeadlineSeconds the
# rollout pauses naming it (it used to wait for it forever, Progressing RollingOut, no alert). A fixed
# node and a new spec then complete on both.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
read -r w1 w2 <<<"$(fleet_nodes)"
scenario "f32 $w2 has no edge-server pod when a restart change comes: the rollout pauses naming it; $w1 keeps its server"

taint=videoedge.test/no-edge-server=true:NoSchedule
sel=$(ve_jsonpath '{.spec.server.selectors}')
next=1; [ "$sel" != 1 ] || next=2
deadline=$(ve_jsonpath '{.spec.rollout.progressDeadlineSeconds}')
uid1=$(pod_on "$w1" .metadata.uid)

k taint node "$w2" "$taint" >&2
k -n "$VE_NS" delete pod "$(pod_on "$w2")" --wait=true >&2
sleep 5
assert_eq "no edge-server pod on $w2 (the DaemonSet does not tolerate the taint)" "" "$(pod_on "$w2")"

k -n "$VE_NS" patch ve "$VE_NAME" --type merge \
  -p "{\"spec\":{\"server\":{\"selectors\":$next},\"rollout\":{\"progressDeadlineSeconds\":20}}}" >&2
progressing() { ve_jsonpath '{.status.conditions[?(@.type=="Progressing")].message}'; }
paused() {
  [ "$(ve_rollout)" = "False RolloutPaused" ] && [[ $(progressing) == *"node $w2 failed"* ]] \
    || { echo "Progressing $(ve_rollout): $(progressing)"; return 1; }
}
wait_until "the rollout pauses, naming $w2" "$E2E_TIMEOUT" paused
info "Progressing: $(progressing)"
assert_contains "the reason names the missing server" "no edge-server pod on this node" "$(progressing)"
assert_eq "$w1 kept its server all along (the room was $w2's, then the rollout paused)" "$uid1" "$(pod_on "$w1" .metadata.uid)"
assert_eq "$w1 keeps serving" 200 "$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "http://$(nip "$w1"):$HTTP_PORT/index.m3u8")"
event=$(k -n "$VE_NS" get events --field-selector "involvedObject.name=$VE_NAME,reason=RolloutPaused" -o jsonpath='{.items[-1:].message}')
assert_contains "Warning Event RolloutPaused names $w2" "node $w2 failed revision" "$event"

# the node fixed (taint gone: the DaemonSet places a pod), a new spec: both on it
k taint node "$w2" "${taint%%=*}-" >&2
k -n "$VE_NS" patch ve "$VE_NAME" --type merge \
  -p "{\"spec\":{\"server\":{\"selectors\":$sel},\"rollout\":{\"progressDeadlineSeconds\":$deadline}}}" >&2
both() { [ -n "$(pod_on "$w1")" ] && [ -n "$(pod_on "$w2")" ] && [ "$(ve_jsonpath '{.status.nodes.serving}')" = 2 ] && rollout_complete; }
wait_until "the fixed node and a new spec: both serving, the rollout complete" "$E2E_TIMEOUT" both
