#!/usr/bin/env bash
# A node unlabelled: its NodeTuning goes, its agent (still there: the operator's label keeps it)
# restores the originals and releases the finalizer, then the agent label and the agent go. Selected
# again while its server cannot be placed, it is Stalled (not a paused rollout) until it can. A node
# deleted from the cluster: its NodeTuning is released by the operator (no agent will come), nothing
# hangs. Both come back when the node is selected (re-registered) again.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
read -r w1 w2 <<<"$(fleet_nodes)"
scenario "f60 $w2 unselected: restored by its agent before the agent goes; selected again with no room for its server: Stalled; then $w2 deleted from the cluster"

nt=$(k get nodetuning "$w2" -o json)
original() { jq -r --arg n "sysctl/$1" '.status.settings[] | select(.name == $n) | .original' <<<"$nt"; }
for s in "${FLEET_SYSCTLS[@]}"; do
  assert_eq "$w2: the NodeTuning's original of $s = the value before install" \
    "$(sed -n "s/^$w2 $s=//p" "$STATE_DIR/originals")" "$(original "$s")"
done
since=$(date -u +%FT%TZ)
k label node "$w2" videoedge.io/fleet- >&2
gone() { ! k get nodetuning "$w2" >/dev/null 2>&1; }
wait_until "$w2's NodeTuning deleted and released by its agent" "$E2E_TIMEOUT" gone
for s in "${FLEET_SYSCTLS[@]}"; do
  assert_eq "$w2: $s restored" "$(original "$s")" "$(nsysctl "$w2" "$s")"
done
restored=$(events_since "$since" "involvedObject.kind=NodeTuning,involvedObject.name=$w2,reason=Restored")
assert_contains "the agent reported the restore (Event Restored)" "Normal Restored originals restored" "$restored"
unlabelled() { [ -z "$(k get node "$w2" -o jsonpath='{.metadata.labels.videoedge\.io/node-agent}')" ]; }
wait_until "then the operator removed $w2's agent label" 60 unlabelled
no_agent() { [ -z "$(k -n "$CHART_NS" get pods -l app.kubernetes.io/component=node-agent --field-selector "spec.nodeName=$w2" -o name)" ]; }
wait_until "and the agent left $w2" 120 no_agent
one() { [ "$(ve_jsonpath '{.status.nodes.selected}')" = 1 ] && rollout_complete; }
wait_until "the VideoEdge serves on $w1 alone, Ready" "$E2E_TIMEOUT" one

# selected again while the DaemonSet cannot place a server there (a taint): a node new to this VideoEdge
# (its NodeTuning is new, no last good tuning to protect) whose server never comes up is Stalled past
# progressDeadlineSeconds: the rollout does not pause for it, and the status, the gauge and the Progressing
# message say so
taint=videoedge.test/no-edge-server=true:NoSchedule
deadline=$(ve_jsonpath '{.spec.rollout.progressDeadlineSeconds}')
k -n "$VE_NS" patch ve "$VE_NAME" --type merge -p '{"spec":{"rollout":{"progressDeadlineSeconds":15}}}' >&2
k taint node "$w2" "$taint" >&2
k label node "$w2" videoedge.io/fleet=edge >&2
progressing() { ve_jsonpath '{.status.conditions[?(@.type=="Progressing")].message}'; }
stalled() {
  [ "$(ve_jsonpath '{.status.nodes.stalled}')" = 1 ] && [[ $(progressing) == *"stalled"*"$w2"* ]] \
    || { echo "stalled: $(ve_jsonpath '{.status.nodes.stalled}'), Progressing $(ve_rollout): $(progressing)"; return 1; }
}
wait_until "$w2 selected again, its server never placed: Stalled" "$E2E_TIMEOUT" stalled
info "Progressing: $(progressing)"
assert_eq "the rollout is not paused for it" "True RollingOut" "$(ve_rollout)"
assert_eq "nodesNeedingAttention: $w2 Stalled" "$w2=Stalled" \
  "$(ve_jsonpath '{range .status.nodesNeedingAttention[*]}{.node}={.rollout} {end}' | xargs)"
operator=$(k -n "$CHART_NS" get pods -l app.kubernetes.io/component=operator -o jsonpath='{.items[0].metadata.name}')
gauge=$(k get --raw "/api/v1/namespaces/$CHART_NS/pods/$operator:8080/proxy/metrics" \
  | awk -v ns="$VE_NS" -v ve="$VE_NAME" '$1 ~ /^videoedge_nodes\{/ && index($1, "namespace=\"" ns "\"") && index($1, "videoedge=\"" ve "\"") && index($1, "state=\"stalled\"") {print $2}')
assert_eq "the operator's videoedge_nodes{state=\"stalled\"} (VideoEdgeRolloutStalled reads it)" 1 "${gauge%.0}"
k taint node "$w2" "${taint%%=*}-" >&2
k -n "$VE_NS" patch ve "$VE_NAME" --type merge -p "{\"spec\":{\"rollout\":{\"progressDeadlineSeconds\":$deadline}}}" >&2
two() { [ "$(ve_jsonpath '{.status.nodes.selected}/{.status.nodes.updated}')" = 2/2 ] && rollout_complete; }
wait_until "the taint gone: $w2 tuned and serving, 2/2" "$E2E_TIMEOUT" two

# a node removed from the cluster (its kubelet stopped, its Node deleted): no agent will release its NodeTuning.
# A stopped kubelet leaves its containers running: the agent's is stopped too, so that the operator is the only
# one that can release it
nexec "$w2" systemctl stop kubelet
agent_tasks() { # the agent containers' tasks still running on the node (containerd's own client: no crictl here)
  for c in $(nexec "$w2" ctr -n k8s.io containers ls -q 'labels."io.kubernetes.container.name"==agent'); do
    nexec "$w2" ctr -n k8s.io tasks ls | awk -v c="$c" '$1 == c && $3 == "RUNNING" { print c }'
  done
}
running=$(agent_tasks)
assert_match "the node agent still runs on $w2 with its kubelet stopped" '.' "$running"
for c in $running; do nexec "$w2" ctr -n k8s.io tasks kill -s SIGKILL "$c" >&2; done
no_agent() { [ -z "$(agent_tasks)" ]; }
wait_until "no node agent running on $w2" 30 no_agent
removed=$(date -u +%FT%TZ)
k delete node "$w2" >&2
wait_until "$w2's NodeTuning released by the operator and gone" "$E2E_TIMEOUT" gone
assert_eq "released by the operator, not restored by an agent (no Event Restored since the deletion)" "" \
  "$(events_since "$removed" "involvedObject.kind=NodeTuning,involvedObject.name=$w2,reason=Restored")"
wait_until "the VideoEdge serves on $w1 alone, Ready" "$E2E_TIMEOUT" one

# the node back (its kubelet registers it again, with its labels): tuned and serving again
nexec "$w2" systemctl start kubelet
back() { [ "$(k get node "$w2" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]; }
wait_until "$w2 registered again and Ready" "$E2E_TIMEOUT" back
wait_until "$w2 tuned and serving again, 2/2" "$E2E_TIMEOUT" two
