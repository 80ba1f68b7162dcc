#!/usr/bin/env bash
# The VideoEdge deleted: every node restored to the values recorded before install, every agent label
# removed (the agents leave), every NodeTuning and server gone, the journals empty.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
scenario "f90 delete the fleet VideoEdge: every node restored"

k -n "$VE_NS" delete ve "$VE_NAME" --wait=false >&2
all_gone() { ! k -n "$VE_NS" get ve "$VE_NAME" >/dev/null 2>&1 && [ -z "$(k get nodetunings -o name)" ]; }
wait_until "the VideoEdge and its NodeTunings are gone" "$E2E_TIMEOUT" all_gone
for n in $(fleet_nodes); do
  for s in "${FLEET_SYSCTLS[@]}"; do
    assert_eq "$n: $s = the value before install" "$(sed -n "s/^$n $s=//p" "$STATE_DIR/originals")" "$(nsysctl "$n" "$s")"
  done
  nolabel() { [ -z "$(k get node "$1" -o jsonpath='{.metadata.labels.videoedge\.io/node-agent}')" ]; }
  wait_until "$n: agent label removed" 60 nolabel "$n"
  journal=$(nexec "$n" cat /var/lib/videoedge/agent/journal.json) || fail "$n: the agent's journal is gone"
  assert_eq "$n: the agent's journal holds no originals any more" 0 \
    "$(jq '[.. | objects | select(has("original"))] | length' <<<"$journal")"
done
no_pods() { [ -z "$(k -n "$VE_NS" get pods -l app.kubernetes.io/component=edge-server -o name)" ] && [ -z "$(k -n "$CHART_NS" get pods -l app.kubernetes.io/component=node-agent -o name)" ]; }
wait_until "no edge server and no node agent left" "$E2E_TIMEOUT" no_pods
