#!/usr/bin/env bash
# An upgrade of the product on a running fleet: `helm upgrade` to a new tag of the three images
# (operator, node agent, edge server), the VideoEdge untouched. The new operator renders a new
# edge-server pod template (the image); its rollout replaces the servers node by node, each drained
# first, while the node agents' DaemonSet rolls too. The sampler must never see more than
# maxUnavailable (1) edge nodes out of service. The new tag names the images already loaded (tagged in
# every node's containerd), so the bytes are the same and only the references change, as in an upgrade.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
read -r w1 w2 <<<"$(fleet_nodes)"
scenario "f27 an upgrade of the images replaces the servers node by node, each drained first"

running_tag() { k -n "$CHART_NS" get deployment "$RELEASE-operator" -o jsonpath='{.spec.template.spec.containers[0].image}' | sed 's/.*://'; }
from=$(running_tag)
to="$IMAGE_TAG-next"
[ "$from" != "$to" ] || to=$IMAGE_TAG # a kept cluster this scenario upgraded before: back again
for n in $(kind get nodes --name "$KIND_CLUSTER"); do
  for i in "${IMAGES[@]}"; do
    docker exec "$n" ctr -n k8s.io images tag --force "$(containerd_ref "$IMAGE_PREFIX$i:$from")" \
      "$(containerd_ref "$IMAGE_PREFIX$i:$to")" >/dev/null
  done
done
info "images tagged $to in every node (from $from)"

generation=$(ve_jsonpath '{.metadata.generation}')
uid1=$(pod_on "$w1" .metadata.uid) uid2=$(pod_on "$w2" .metadata.uid)
sampler_start
gate_watch_start
sleep 2
t0=$(date +%s)
helm upgrade "$RELEASE" "$ROOT/charts/videoedge" --namespace "$CHART_NS" --reuse-values --set image.tag="$to" \
  --wait --timeout "${E2E_TIMEOUT}s" >"$STATE_DIR/f27-helm.log"
info "helm upgrade done $(($(date +%s) - t0))s after it started (operator and agents rolled)"
upgraded() {
  local n
  for n in $w1 $w2; do
    [[ $(pod_on "$n" '.spec.containers[0].image') == *":$to" ]] && [ "$(pod_on "$n" '.status.containerStatuses[0].ready')" = true ] \
      || { echo "$n: $(pod_on "$n" '.spec.containers[0].image') ready $(pod_on "$n" '.status.containerStatuses[0].ready')"; return 1; }
  done
  rollout_complete
}
wait_until "both servers run the $to image and the rollout is complete" "$E2E_TIMEOUT" upgraded
t1=$(date +%s)
sleep 2
sampler_stop
gate_watch_stop
say "       converged $((t1 - t0))s after the upgrade started"
echo "$((t1 - t0))" >"$STATE_DIR/f27-converged-seconds"

assert_eq "the VideoEdge's generation (the spec did not change)" "$generation" "$(ve_jsonpath '{.metadata.generation}')"
max=$(sampler_max_unready)
assert_eq "most edge nodes out of service in one sample (maxUnavailable 1; each restart is seen)" 1 "$max"
replaced_in_turn f27 "$t0" "$w1" "$w2"
[ "$(pod_on "$w1" .metadata.uid)" != "$uid1" ] && [ "$(pod_on "$w2" .metadata.uid)" != "$uid2" ] \
  && pass "both servers are new pods" || fail "a server pod was not replaced"
for w in operator:operator node-agent:node-tuning; do
  IFS=: read -r c i <<<"$w"
  images=$(k -n "$CHART_NS" get pods -l "app.kubernetes.io/instance=$RELEASE,app.kubernetes.io/component=$c" \
    -o jsonpath='{range .items[*]}{.spec.containers[0].image}{"\n"}{end}' | sort -u | paste -sd' ' -)
  assert_eq "the images of the $c pods" "$IMAGE_PREFIX$i:$to" "$images"
done
for n in $w1 $w2; do
  assert_eq "$n: the agent applied its NodeTuning" "True" \
    "$(nt_field "$n" '{.status.conditions[?(@.type=="Applied")].status}')"
done
