#!/usr/bin/env bash
# A change that one node cannot take (its /proc/sys file is read-only there): the rollout pauses
# naming that node, the node that took it keeps serving, autoRevert gives the failed node its last
# good tuning back (and it serves); a fixed spec then completes on both.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
read -r w1 w2 <<<"$(fleet_nodes)"
scenario "f30 a change that fails on $w2 only: paused, named, reverted; $w1 keeps serving"

sysctl=net.ipv4.tcp_notsent_lowat
file=/proc/sys/net/ipv4/tcp_notsent_lowat
good=$(nt_sysctl "$w2" $sysctl)
bad=65536; [ "$good" != "$bad" ] || bad=81920
info "$w2 keeps $sysctl=$good; the change to $bad will fail there"
# the fault: the sysctl file read-only where w2's agent sees it (a read-only bind mount in its container)
agent=$(k -n "$CHART_NS" get pods -l app.kubernetes.io/component=node-agent --field-selector "spec.nodeName=$w2" -o name)
k -n "$CHART_NS" exec "$agent" -- sh -c "mount --bind /host$file /host$file && mount -o remount,ro,bind /host$file"
if k -n "$CHART_NS" exec "$agent" -- sh -c "echo $good > /host$file" 2>/dev/null; then
  fail "the fault did not take: /host$file is writable in $w2's agent"
fi
pass "the agent on $w2 cannot write /host$file (read-only)"

since=$(date -u +%FT%TZ)
set_sysctl $sysctl "$bad"
paused() {
  [ "$(ve_rollout)" = "False RolloutPaused" ] && [[ $(ve_jsonpath '{.status.conditions[?(@.type=="Progressing")].message}') == *"node $w2 failed"* ]] \
    || { echo "Progressing $(ve_rollout): $(ve_jsonpath '{.status.rollout.message}')"; return 1; }
}
wait_until "the rollout pauses, naming $w2" "$E2E_TIMEOUT" paused
info "Progressing: $(ve_jsonpath '{.status.conditions[?(@.type=="Progressing")].message}')"
reverted() {
  [ "$(nt_sysctl "$w2" $sysctl)" = "$good" ] && [ "$(nt_field "$w2" '{.status.conditions[?(@.type=="Applied")].status}')" = True ] \
    && [ "$(pod_on "$w2" '.status.conditions[] | select(.type == "Ready") | .status')" = True ]
}
wait_until "autoRevert: $w2's NodeTuning back to $sysctl=$good, applied, its server Ready" "$E2E_TIMEOUT" reverted
# the status, not the pod read a moment ago, is what the asserts below read: the gate closed for the failed
# revision and reopened for the reverted one within a second, and a kubelet that computed Ready from the
# closed gate keeps the pod NotReady until its next sync (up to a minute); the status says so meanwhile
serving_again() { [ "$(ve_jsonpath '{.status.nodes.serving}')" = 2 ]; }
wait_until "the status counts $w2 serving again" "$E2E_TIMEOUT" serving_again
assert_eq "$w2: $sysctl in the node is the last good value" "$good" "$(nsysctl "$w2" $sysctl)"
assert_eq "$w1 took the change" "$bad" "$(nsysctl "$w1" $sysctl)"
for n in $w1 $w2; do
  assert_eq "$n keeps serving" 200 "$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "http://$(nip "$n"):$HTTP_PORT/index.m3u8")"
done
assert_eq "nodesNeedingAttention rollout ($w1, updated and serving, is not listed)" "$w2=Reverted" \
  "$(ve_jsonpath '{range .status.nodesNeedingAttention[*]}{.node}={.rollout} {end}' | xargs)"
assert_eq "nodes.needingAttention" 1 "$(ve_jsonpath '{.status.nodes.needingAttention}')"
assert_eq "Degraded" "True RolloutPaused" "$(ve_jsonpath '{.status.conditions[?(@.type=="Degraded")].status} {.status.conditions[?(@.type=="Degraded")].reason}')"
assert_eq "status.rollout.state" Paused "$(ve_jsonpath '{.status.rollout.state}')"
# the printer columns (Ready, Tuned, Serving, Updated) come from .status.serving and friends, which can
# still say 1/2 serving for the moment the kubelet above kept the pod NotReady: waited for like the status
row_settled() {
  local row
  row=$(k -n "$VE_NS" get ve "$VE_NAME" --no-headers)
  echo "$row"
  [[ $row =~ ^$VE_NAME\ +False\ +1/2\ +2/2\ +1/2\  ]]
}
wait_until "kubectl get ve: UPDATED 1/2 (Ready False, Tuned 1/2, Serving 2/2)" "$E2E_TIMEOUT" row_settled
info "kubectl get ve: $(k -n "$VE_NS" get ve "$VE_NAME" --no-headers)"
event=$(events_since "$since" "involvedObject.kind=VideoEdge,involvedObject.name=$VE_NAME,reason=RolloutPaused")
assert_contains "Warning Event RolloutPaused names $w2 and the revert" "Warning RolloutPaused node $w2 failed revision" "$event"
assert_contains "  ... and the revert" "last good tuning" "$event"
# paused means paused: nothing moves while it holds (any write to a NodeTuning's spec bumps its generation;
# a resumed rollout re-targeting $w2, however briefly, would too)
moved() {
  for n in "$w1" "$w2"; do k get nodetuning "$n" -o jsonpath='{.metadata.generation} '; done
  ve_jsonpath '{.status.rollout.revision}'
}
still=$(moved)
sleep 5
assert_eq "paused: both NodeTunings' generations and the rollout's revision unchanged for 5 s" "$still" "$(moved)"
assert_eq "$w2 still on its last good tuning while paused" "$good" "$(nt_sysctl "$w2" $sysctl)"

# the node fixed, a new spec: a new revision rolls out to both
k -n "$CHART_NS" exec "$agent" -- umount "/host$file"
fixed=98304
set_sysctl $sysctl "$fixed"
fixed_everywhere() { [ "$(nsysctl "$w1" $sysctl)" = "$fixed" ] && [ "$(nsysctl "$w2" $sysctl)" = "$fixed" ] && rollout_complete; }
wait_until "a fixed spec rolls out to both nodes" "$E2E_TIMEOUT" fixed_everywhere
