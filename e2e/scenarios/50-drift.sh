#!/usr/bin/env bash
# Drift: values rewritten by hand inside the node are detected by the agent's periodic check (the e2e
# installs the chart with nodeAgent.driftInterval=5s), reported (NodeTuning status.lastDrift, a
# DriftCorrected Event, videoedge_agent_drift_detections_total) and re-applied.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
node=$(node_name)
scenario "50 drift: sysctls changed by hand in the node are reported and re-applied"

want_lowat=$(ve_jsonpath '{.spec.tuning.sysctls.net\.ipv4\.tcp_notsent_lowat}')
want_swappiness=$(ve_jsonpath '{.spec.tuning.sysctls.vm\.swappiness}')
count0=$(k get nodetuning "$node" -o jsonpath='{.status.lastDrift.count}')
count0=${count0:-0}
metric() { curl -fsS --max-time 5 "http://$(node_ip):$AGENT_PORT/metrics" | awk '/^videoedge_agent_drift_detections_total/ {s += $2} END {print s + 0}'; }
m0=$(metric)

since=$(date -u +%FT%TZ)
node_exec sysctl -qw net.ipv4.tcp_notsent_lowat=131072 vm.swappiness=33
info "wrote net.ipv4.tcp_notsent_lowat=131072 and vm.swappiness=33 in the node at $(date -u +%H:%M:%S)"

drift_reported() {
  local c s
  c=$(k get nodetuning "$node" -o jsonpath='{.status.lastDrift.count}')
  s=$(k get nodetuning "$node" -o jsonpath='{.status.lastDrift.settings}')
  # shellcheck disable=SC2015
  (( ${c:-0} > count0 )) && [[ $s == *tcp_notsent_lowat* ]] && [[ $s == *vm.swappiness* ]] || { echo "lastDrift: count ${c:-0}, settings $s"; return 1; }
}
wait_until "NodeTuning status.lastDrift names both settings" "$E2E_TIMEOUT" drift_reported
info "lastDrift: $(k get nodetuning "$node" -o jsonpath='{.status.lastDrift}')"
restored() { [ "$(node_sysctl net.ipv4.tcp_notsent_lowat)" = "$want_lowat" ] && [ "$(node_sysctl vm.swappiness)" = "$want_swappiness" ]; }
wait_until "the agent re-applied tcp_notsent_lowat=$want_lowat and vm.swappiness=$want_swappiness" "$E2E_TIMEOUT" restored
event() {
  events_since "$since" "involvedObject.kind=NodeTuning,involvedObject.name=$node,reason=DriftCorrected" \
    | grep '^Warning DriftCorrected .*tcp_notsent_lowat'
}
wait_until "Warning Event DriftCorrected on NodeTuning $node" 60 event
info "event: $(event | tail -n1)"
assert_eq "NodeTuning still Applied" True "$(k get nodetuning "$node" -o jsonpath='{.status.conditions[?(@.type=="Applied")].status}')"
# the originals are still the values from before install, not the hand-written ones
assert_eq "sysctl/vm.swappiness original unchanged by the drift" "$(original vm.swappiness)" "$(nt_setting sysctl/vm.swappiness original)"
m1=$(metric)
(( m1 > m0 )) || fail "videoedge_agent_drift_detections_total did not grow ($m0 -> $m1)"
pass "videoedge_agent_drift_detections_total (agent :$AGENT_PORT/metrics): $m0 -> $m1"
assert_eq "VideoEdge still Ready" True "$(ve_condition Ready)"
