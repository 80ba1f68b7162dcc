#!/usr/bin/env bash
# Both edge workers tuned and serving; the operator labelled each for its agent; the agents run there
# and nowhere else; each node's own sysctls are the VideoEdge's.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
scenario "f10 a fleet VideoEdge Ready on two edge workers"

assert_eq "nodes selected/tuned/serving/updated" "2/2/2/2" \
  "$(ve_jsonpath '{.status.nodes.selected}/{.status.nodes.tuned}/{.status.nodes.serving}/{.status.nodes.updated}')"
assert_eq "Progressing" "True RolloutComplete" "$(ve_rollout)"
row=$(k -n "$VE_NS" get ve "$VE_NAME" --no-headers)
info "kubectl get ve: $row"
assert_match "kubectl get ve: READY TUNED SERVING UPDATED" "^$VE_NAME +True +2/2 +2/2 +2/2 " "$row"
agents=$(k -n "$CHART_NS" get pods -l app.kubernetes.io/component=node-agent -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort | xargs)
assert_eq "node agents run on the edge workers only" "$(fleet_nodes | tr ' ' '\n' | sort | xargs)" "$agents"
for n in $(fleet_nodes); do
  assert_eq "$n: label videoedge.io/node-agent set by the operator" true \
    "$(k get node "$n" -o jsonpath='{.metadata.labels.videoedge\.io/node-agent}')"
  assert_eq "$n: NodeTuning Applied" True "$(nt_field "$n" '{.status.conditions[?(@.type=="Applied")].status}')"
  for s in net.ipv4.tcp_notsent_lowat net.core.somaxconn; do
    assert_eq "$n: $s in the node" "$(k -n "$VE_NS" get ve "$VE_NAME" -o jsonpath="{.spec.tuning.sysctls.${s//./\\.}}")" "$(nsysctl "$n" "$s")"
  done
  assert_eq "$n: congestion control" bbr "$(nsysctl "$n" net.ipv4.tcp_congestion_control)"
  assert_eq "$n: serves HTTP on its own IP" 200 \
    "$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "http://$(nip "$n"):$HTTP_PORT/index.m3u8")"
done
assert_eq "the control plane carries no agent label" "" \
  "$(k get node "$FLEET_CLUSTER-control-plane" -o jsonpath='{.metadata.labels.videoedge\.io/node-agent}')"
