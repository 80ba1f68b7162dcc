#!/usr/bin/env bash
# Two VideoEdges selecting one node: the older keeps it, the newer reports Conflict naming the node
# and the older VideoEdge, runs no server there and writes no NodeTuning for it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
read -r w1 w2 <<<"$(fleet_nodes)"
scenario "f50 overlapping VideoEdges: the older keeps $w2, the newer reports Conflict"

k label node "$w2" videoedge.io/fleet-b=edge --overwrite >&2
k create namespace fleet-b --dry-run=client -o yaml | k apply -f - >&2
sed -e 's/^  name: fleet$/  name: fleet-b/' -e 's/^  namespace: fleet$/  namespace: fleet-b/' \
  -e 's|videoedge.io/fleet: edge|videoedge.io/fleet-b: edge|' -e 's/port: 8080/port: 8081/' \
  -e 's/mode: openssl/mode: none/' "$VE_MANIFEST" | k apply -f - >&2
conflict() {
  [ "$(k -n fleet-b get ve fleet-b -o jsonpath='{.status.conditions[?(@.type=="Degraded")].reason}')" = Conflict ] \
    || { echo "fleet-b Degraded: $(k -n fleet-b get ve fleet-b -o jsonpath='{.status.conditions[?(@.type=="Degraded")].reason}')"; return 1; }
}
wait_until "the newer VideoEdge reports Conflict" "$E2E_TIMEOUT" conflict
assert_eq "its message names the node and the older VideoEdge" \
  "node $w2 is also selected by the older VideoEdge $VE_NS/$VE_NAME, which keeps it" \
  "$(k -n fleet-b get ve fleet-b -o jsonpath='{.status.conditions[?(@.type=="Degraded")].message}')"
assert_eq "fleet-b: nodes selected (the contested one not counted)" 0 "$(k -n fleet-b get ve fleet-b -o jsonpath='{.status.nodes.selected}')"
assert_eq "fleet-b: $w2 listed as Conflict" "$w2 Conflict" \
  "$(k -n fleet-b get ve fleet-b -o jsonpath='{.status.nodesNeedingAttention[0].node} {.status.nodesNeedingAttention[0].tuning}')"
assert_eq "$w2's NodeTuning is still the older one's" "$VE_NS/$VE_NAME" \
  "$(nt_field "$w2" '{.metadata.labels.videoedge\.io/videoedge-namespace}')/$(nt_field "$w2" '{.metadata.labels.videoedge\.io/videoedge}')"
sleep 3
assert_eq "no fleet-b server on $w2" "" "$(k -n fleet-b get pods --field-selector "spec.nodeName=$w2" -o name)"
assert_eq "the older VideoEdge still serves on both" "True 2/2" "$(ve_condition Ready) $(ve_jsonpath '{.status.serving}')"
k -n fleet-b delete ve fleet-b --wait=true >&2
k label node "$w2" videoedge.io/fleet-b- >&2
