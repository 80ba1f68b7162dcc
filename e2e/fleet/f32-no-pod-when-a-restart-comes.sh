#!/usr/bin/env bash
# A node already out of service with no edge-server pod (a taint keeps the DaemonSet from placing one)
# when a restart change comes: the node has nothing to change, yet its turn starts and takes the only
# room (maxUnavailable 1), so the other node keeps its old server; past progressDeadlineSeconds the
# rollout pauses naming it (it used to wait for it forever, Progressing RollingOut, no alert). Its last
# good tuning is the revision's own, so autoRevert has nothing to give back: once the node is fixed and
# serves for the soak time, the rollout goes on by itself.
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

since=$(date -u +%FT%TZ)
k -n "$VE_NS" patch ve "$VE_NAME" --type merge \
  -p "{\"spec\":{\"server\":{\"selectors\":$next},\"rollout\":{\"progressDeadlineSeconds\":20}}}" >&2
progressing() { ve_jsonpath '{.status.conditions[?(@.type=="Progressing")].message}'; }
paused() {
  [ "$(ve_rollout)" = "False RolloutPaused" ] && [[ $(progressing) == *"node $w2 failed"* ]] \
    || { echo "Progressing $(ve_rollout): $(progressing)"; return 1; }
}
wait_until "the rollout pauses, naming $w2" "$E2E_TIMEOUT" paused
info "Progressing: $(progressing)"
assert_contains "the reason names the missing server and the taint that keeps it off" \
  "no edge-server pod on this node: the DaemonSet places none, as spec.tolerations does not tolerate its taint $taint" \
  "$(progressing)"
assert_eq "$w1 kept its server all along (the room was $w2's, then the rollout paused)" "$uid1" "$(pod_on "$w1" .metadata.uid)"
assert_eq "$w1 keeps serving" 200 "$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "http://$(nip "$w1"):$HTTP_PORT/index.m3u8")"
assert_eq "nodesNeedingAttention: $w2 Failed (its last good tuning is the revision's own: nothing to revert)" "$w2=Failed" \
  "$(ve_jsonpath '{range .status.nodesNeedingAttention[*]}{.node}={.rollout} {end}' | xargs)"
events=$(events_since "$since" "involvedObject.kind=VideoEdge,involvedObject.name=$VE_NAME,reason=RolloutPaused")
assert_contains "a Warning Event RolloutPaused names $w2 and its missing server" \
  "Warning RolloutPaused node $w2 failed revision $(ve_jsonpath '{.status.rollout.revision}'): not tuned and serving within progressDeadlineSeconds (20 s): server: no edge-server pod" "$events"

# the node fixed (the taint gone: the DaemonSet places a pod of the new template): once it soaked, its
# failure no longer holds and the rollout goes on by itself, $w1 in its turn
k taint node "$w2" "${taint%%=*}-" >&2
resumed() {
  [ -n "$(pod_on "$w1")" ] && [ "$(pod_on "$w1" .metadata.uid)" != "$uid1" ] && [ -n "$(pod_on "$w2")" ] \
    && [ "$(ve_jsonpath '{.status.nodes.serving}')" = 2 ] && rollout_complete
}
wait_until "the rollout resumes by itself: $w1's server replaced in its turn, both serving, complete" "$E2E_TIMEOUT" resumed
k -n "$VE_NS" patch ve "$VE_NAME" --type merge -p "{\"spec\":{\"rollout\":{\"progressDeadlineSeconds\":$deadline}}}" >&2
wait_until "progressDeadlineSeconds back to $deadline (a rollout setting: nothing restarts)" "$E2E_TIMEOUT" rollout_complete
