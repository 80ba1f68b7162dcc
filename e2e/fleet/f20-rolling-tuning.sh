#!/usr/bin/env bash
# A tuning change with maxUnavailable 1: a sampler reads every second which edge nodes serve; never
# more than one is out of service, and the nodes change one after another (the second's drain, its gate
# closing, begins only after the first is tuned, Ready and soaked). Each node's server is drained (gate
# Draining, the pod not Ready) before its NodeTuning changes (gate NodeNotTuned until its agent applied
# it), every time, in that order in a watch of the pods. No server restarts for a tuning change.
# Prints the rollout's timeline per node.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
read -r w1 w2 <<<"$(fleet_nodes)"
scenario "f20 a tuning change rolls node by node (maxUnavailable 1), never more than one node out of service"

sysctl=net.ipv4.tcp_notsent_lowat
old=$(nt_sysctl "$w1" $sysctl)
new=131072; [ "$old" != "$new" ] || new=196608
soak=$(ve_jsonpath '{.spec.rollout.soakSeconds}')
rev0=$(nt_field "$w1" '{.metadata.annotations.videoedge\.io/tuning-revision}')
uids0="$(pod_on "$w1" .metadata.uid) $(pod_on "$w2" .metadata.uid)"
info "$sysctl $old -> $new, maxUnavailable $(ve_jsonpath '{.spec.rollout.maxUnavailable}'), soak ${soak}s"

sampler_start
gate_watch_start
sleep 2
t0=$(date +%s) since=$(date -u +%FT%TZ)
set_sysctl $sysctl "$new"
both_new() {
  [ "$(nt_sysctl "$w1" $sysctl)" = "$new" ] && [ "$(nt_sysctl "$w2" $sysctl)" = "$new" ] && rollout_complete
}
wait_until "both NodeTunings carry $sysctl=$new and the rollout is complete" "$E2E_TIMEOUT" both_new
t1=$(date +%s)
sleep 2
sampler_stop
gate_watch_stop
say "       converged $((t1 - t0))s after the change"
echo "$((t1 - t0))" >"$STATE_DIR/f20-converged-seconds"

assert_match "most edge nodes out of service in one sample (maxUnavailable 1)" '^[01]$' "$(sampler_max_unready)"
# the same from every gate change the watch saw, in order (the sampler's 1-2 s may miss a short overlap): a node
# is out from its gate closing (any reason but AsExpected) or its pod not Ready until both are back; exactly one
# at a time, and at least one (the rollout re-tuned them)
most_out() {
  awk '{ out[$1] = ($2 != "AsExpected" || $3 != "True") ? 1 : 0; n = 0; for (k in out) n += out[k]; if (n > m) m = n }
    END { print m + 0 }' "$STATE_DIR/gates"
}
assert_eq "most edge nodes out of service at once, every gate change watched (maxUnavailable 1)" 1 "$(most_out)"
# per node: when its NodeTuning took the new revision, its gate closed, it was tuned and Ready again
rev1=$(nt_field "$w1" '{.metadata.annotations.videoedge\.io/tuning-revision}')
timeline() { # timeline NODE: changed closed tuned ready (seconds after the change; - when not seen)
  awk -v n="$1" -v r="$rev1" -v t0="$t0" '
    $2 == n && $1 >= t0 {
      if (changed == "" && $6 == r) changed = $1 - t0
      if (closed == "" && $4 == "False") closed = $1 - t0
      if (changed != "" && tuned == "" && $6 == r && $7 == "applied") tuned = $1 - t0
      if (tuned != "" && ready == "" && $3 == "True") ready = $1 - t0
    }
    END { printf "%s %s %s %s\n", (changed == "" ? "-" : changed), (closed == "" ? "-" : closed), (tuned == "" ? "-" : tuned), (ready == "" ? "-" : ready) }
  ' "$STATE_DIR/samples"
}
read -r c1 g1 tu1 r1 <<<"$(timeline "$w1")"
read -r c2 g2 tu2 r2 <<<"$(timeline "$w2")"
{
  printf '%-28s %10s %12s %8s %8s   (seconds after the change, sampled every second)\n' node "nt-changed" "gate-closed" tuned ready
  printf '%-28s %10s %12s %8s %8s\n' "$w1" "$c1" "$g1" "$tu1" "$r1" "$w2" "$c2" "$g2" "$tu2" "$r2"
} | tee "$STATE_DIR/f20-timeline.txt" >&2
[ "$c1" != - ] && [ "$c2" != - ] && [ "$r1" != - ] || fail "timeline incomplete: $w1 changed=$c1 ready=$r1, $w2 changed=$c2"
[ "$g1" != - ] && [ "$g2" != - ] || fail "timeline incomplete: gate closed $w1 $g1, $w2 $g2"
first=$w1 second=$w2 gs=$g2 rf=$r1
if (( c2 < c1 )); then first=$w2 second=$w1 gs=$g1 rf=$r2; fi
# the second node's turn begins with its drain (its gate closing), before its NodeTuning changes: that is what
# must wait for the first to be Ready again and soaked
if (( gs >= rf + soak - 1 )); then
  pass "one after another: $second's gate closed at +${gs}s, after $first was Ready again (+${rf}s) and soaked (${soak}s)"
else
  fail "$second's gate closed at +${gs}s, before $first was Ready again and soaked (+${rf}s + ${soak}s)"
fi
# the same in the watch's order, which misses nothing: the second's first Draining after the first re-tuned and back
second_after_first() {
  awk -v f="$first" -v s="$second" '
    $1 == f && $2 == "NodeNotTuned" { retuned = 1 }
    $1 == f && retuned && $2 == "AsExpected" && $3 == "True" { back = 1 }
    $1 == s && $2 == "Draining" { seen = 1; ok = back; exit }
    END { exit !(seen && ok) }' "$STATE_DIR/gates"
}
if second_after_first; then
  pass "watched: $second began draining only after $first was re-tuned and serving again"
else
  fail "watched: $second drained before $first was re-tuned and serving again ($(awk '{ printf "%s:%s/%s ", $1, $2, $3 }' "$STATE_DIR/gates"))"
fi
# the watch sees every gate change (the sampler may miss a 2 s drain): Draining, the kubelet taking the pod
# out (Ready False), then NodeNotTuned once the NodeTuning asks for the new tuning, then AsExpected once its
# agent applied it. Every NodeNotTuned watched must follow a Draining with the pod out of service, with no
# AsExpected (serving again) between them.
drained_each_time() { # drained_each_time NODE: exit 0 when it was re-tuned at least once and always drained first
  awk -v n="$1" '
    $1 != n { next }
    $2 == "AsExpected" { out = 0 }
    $2 == "Draining" && $3 == "False" { out = 1 }
    $2 == "NodeNotTuned" { seen++; if (!out) bad++ }
    END { exit !(seen > 0 && bad == 0) }' "$STATE_DIR/gates"
}
for n in $w1 $w2; do
  if drained_each_time "$n"; then
    pass "$n: out of service, its gate Draining and its pod not Ready, before its NodeTuning changed (watched)"
  else
    fail "$n: not drained before its re-tune (gate reason and Ready in the order watched: $(awk -v n="$n" '$1 == n { printf "%s/%s ", $2, $3 }' "$STATE_DIR/gates"))"
  fi
done
assert_eq "no edge server restarted for a tuning change" "$uids0" "$(pod_on "$w1" .metadata.uid) $(pod_on "$w2" .metadata.uid)"
for n in $w1 $w2; do
  assert_eq "$n: $sysctl in the node" "$new" "$(nsysctl "$n" $sysctl)"
done
[ "$rev1" != "$rev0" ] || fail "the tuning revision did not change ($rev0)"
events=$(events_since "$since" "involvedObject.kind=VideoEdge,involvedObject.name=$VE_NAME")
assert_contains "Event RolloutStarted since the change" "Normal RolloutStarted" "$events"
assert_contains "Event RolloutComplete since the change" "Normal RolloutComplete" "$events"
