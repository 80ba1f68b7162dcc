#!/usr/bin/env bash
# A server change that needs a restart (selectors): each node's pod is drained (gate Draining),
# evicted and replaced in its turn; the sampler sees exactly one node out of service at a time and
# the nodes one after another. Prints the timeline per node.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
read -r w1 w2 <<<"$(fleet_nodes)"
scenario "f25 a restart change replaces the servers node by node, each drained first"

uid1=$(pod_on "$w1" .metadata.uid) uid2=$(pod_on "$w2" .metadata.uid)
sel=$(ve_jsonpath '{.spec.server.selectors}')
next=1; [ "$sel" != 1 ] || next=2
sampler_start
gate_watch_start
sleep 2
t0=$(date +%s)
k -n "$VE_NS" patch ve "$VE_NAME" --type merge -p "{\"spec\":{\"server\":{\"selectors\":$next}}}" >&2
replaced() {
  [ -n "$(pod_on "$w1" .metadata.uid)" ] && [ "$(pod_on "$w1" .metadata.uid)" != "$uid1" ] \
    && [ -n "$(pod_on "$w2" .metadata.uid)" ] && [ "$(pod_on "$w2" .metadata.uid)" != "$uid2" ] && rollout_complete
}
wait_until "both servers replaced and the rollout complete" "$E2E_TIMEOUT" replaced
t1=$(date +%s)
sleep 2
sampler_stop
gate_watch_stop
say "       converged $((t1 - t0))s after the change"
echo "$((t1 - t0))" >"$STATE_DIR/f25-converged-seconds"
max=$(sampler_max_unready)
assert_eq "most edge nodes out of service in one sample (maxUnavailable 1; each restart is seen)" 1 "$max"
replaced_in_turn f25 "$t0" "$w1" "$w2"
for n in $w1 $w2; do
  assert_contains "$n: the new server runs selectors: $next" "selectors: $next" \
    "$(k -n "$VE_NS" exec "$(pod_on "$n")" -- cat /etc/videoedge/config/edge-server.yaml)"
done
