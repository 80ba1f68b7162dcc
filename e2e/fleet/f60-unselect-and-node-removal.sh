#!/usr/bin/env bash
# A node unlabelled: its NodeTuning goes, its agent (still there: the operator's label keeps it)
# restores the originals and releases the finalizer, then the agent label and the agent go. A node
# deleted from the cluster: its NodeTuning is released by the operator (no agent will come), nothing
# hangs. Both come back when the node is selected (re-registered) again.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
read -r w1 w2 <<<"$(fleet_nodes)"
scenario "f60 $w2 unselected: restored by its agent before the agent goes; then $w2 deleted from the cluster"

nt=$(k get nodetuning "$w2" -o json)
original() { jq -r --arg n "sysctl/$1" '.status.settings[] | select(.name == $n) | .original' <<<"$nt"; }
for s in "${FLEET_SYSCTLS[@]}"; do
  assert_eq "$w2: the NodeTuning's original of $s = the value before install" \
    "$(sed -n "s/^$w2 $s=//p" "$STATE_DIR/originals")" "$(original "$s")"
done
k label node "$w2" videoedge.io/fleet- >&2
gone() { ! k get nodetuning "$w2" >/dev/null 2>&1; }
wait_until "$w2's NodeTuning deleted and released by its agent" "$E2E_TIMEOUT" gone
for s in "${FLEET_SYSCTLS[@]}"; do
  assert_eq "$w2: $s restored" "$(original "$s")" "$(nsysctl "$w2" "$s")"
done
restored=$(k get events -A --field-selector "involvedObject.kind=NodeTuning,involvedObject.name=$w2,reason=Restored" \
  -o jsonpath='{.items[-1:].source.component}/{.items[-1:].message}')
assert_contains "the agent reported the restore (Event Restored)" "originals restored" "$restored"
unlabelled() { [ -z "$(k get node "$w2" -o jsonpath='{.metadata.labels.videoedge\.io/node-agent}')" ]; }
wait_until "then the operator removed $w2's agent label" 60 unlabelled
no_agent() { [ -z "$(k -n "$CHART_NS" get pods -l app.kubernetes.io/component=node-agent --field-selector "spec.nodeName=$w2" -o name)" ]; }
wait_until "and the agent left $w2" 120 no_agent
one() { [ "$(ve_jsonpath '{.status.nodes.selected}')" = 1 ] && rollout_complete; }
wait_until "the VideoEdge serves on $w1 alone, Ready" "$E2E_TIMEOUT" one

# selected again
k label node "$w2" videoedge.io/fleet=edge >&2
two() { [ "$(ve_jsonpath '{.status.nodes.selected}/{.status.nodes.updated}')" = 2/2 ] && rollout_complete; }
wait_until "$w2 selected again: tuned and serving, 2/2" "$E2E_TIMEOUT" two

# a node removed from the cluster (its kubelet stopped, its Node deleted): no agent will release its NodeTuning
nexec "$w2" systemctl stop kubelet
k delete node "$w2" >&2
wait_until "$w2's NodeTuning released by the operator and gone" "$E2E_TIMEOUT" gone
wait_until "the VideoEdge serves on $w1 alone, Ready" "$E2E_TIMEOUT" one

# the node back (its kubelet registers it again, with its labels): tuned and serving again
nexec "$w2" systemctl start kubelet
back() { [ "$(k get node "$w2" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]; }
wait_until "$w2 registered again and Ready" "$E2E_TIMEOUT" back
wait_until "$w2 tuned and serving again, 2/2" "$E2E_TIMEOUT" two
