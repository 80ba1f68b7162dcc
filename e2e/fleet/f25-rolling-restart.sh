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
timeline() { # timeline NODE: drained (gate Draining) unready ready-again (seconds after the change)
  awk -v n="$1" -v t0="$t0" '
    $2 == n && $1 >= t0 {
      if (drain == "" && $5 == "Draining") drain = $1 - t0
      if (down == "" && $3 != "True") down = $1 - t0
      if (down != "" && up == "" && $3 == "True") up = $1 - t0
    }
    END { printf "%s %s %s\n", (drain == "" ? "-" : drain), (down == "" ? "-" : down), (up == "" ? "-" : up) }
  ' "$STATE_DIR/samples"
}
read -r d1 o1 u1 <<<"$(timeline "$w1")"
read -r d2 o2 u2 <<<"$(timeline "$w2")"
{
  printf '%-28s %14s %14s %12s   (seconds after the change, sampled every second)\n' node "gate-draining" "out-of-service" "serving-again"
  printf '%-28s %14s %14s %12s\n' "$w1" "$d1" "$o1" "$u1" "$w2" "$d2" "$o2" "$u2"
} | tee "$STATE_DIR/f25-timeline.txt" >&2
[ "$o1" != - ] && [ "$u1" != - ] && [ "$o2" != - ] && [ "$u2" != - ] || fail "timeline incomplete"
for n in $w1 $w2; do # the sampler polls each second and drainSeconds is 2: the watch sees every gate change
  drained_on "$n" && pass "$n: its server's gate was Draining before the restart (watched)" \
    || fail "$n: its server's gate was never Draining (every change watched: $(sort -u "$STATE_DIR/gates" | tr '\n' ';'))"
done
first_up=$u1 second_down=$o2
if (( o2 < o1 )); then first_up=$u2 second_down=$o1; fi
if (( second_down >= first_up )); then
  pass "one after another: the second node left service (+${second_down}s) after the first served again (+${first_up}s)"
else
  fail "the second node left service (+${second_down}s) before the first served again (+${first_up}s)"
fi
for n in $w1 $w2; do
  assert_contains "$n: the new server runs selectors: $next" "selectors: $next" \
    "$(k -n "$VE_NS" exec "$(pod_on "$n")" -- cat /etc/videoedge/config/edge-server.yaml)"
done
