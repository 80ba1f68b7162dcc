#!/bin/bash
# Install the Prometheus Operator into the kind cluster, with no registry: the images of
# hack/prometheus-stack.sh go in with `kind load docker-image`, the CRDs and upstream's install bundle
# (namespace default) are applied server-side, and the operator's rollout is waited for. Idempotent.
#   PROM_CHECK=1   also run a Prometheus ("check", namespace default) that scrapes the operator through a
#                  ServiceMonitor, and wait until Prometheus' HTTP API reports that target up; then remove it.
#   PROM_OPERATOR_CPU=20m  the operator's CPU request (upstream: 100m). A 2-core kind node has 1900m
#                  allocatable, the control plane requests ~750m and a Guaranteed edge server 1000m.
#   KIND_CLUSTER, KIND_KUBECONFIG as for hack/kind-up.sh (the cluster must exist).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KIND_WAIT=${KIND_WAIT:-300}
PROM_CHECK=${PROM_CHECK:-0}
PROM_OPERATOR_CPU=${PROM_OPERATOR_CPU:-20m}
export KUBECONFIG="$KIND_KUBECONFIG"
[ -s "$KUBECONFIG" ] || die "no kubeconfig $KUBECONFIG: run 'make kind-up' first"

CRDS=$("$ROOT/hack/prometheus-stack.sh")
PO="$VIDEOEDGE_CACHE/prometheus-operator"
# shellcheck disable=SC1091
. "$PO/images.env"
# one `kind load` for the three (one archive, one import per node), as e2e/lib.sh loads VideoEdge's
step kind-load-prometheus-stack "$BIN_DIR/kind" load docker-image --name "$KIND_CLUSTER" \
  "$OPERATOR_IMAGE" "$RELOADER_IMAGE" "$PROMETHEUS_IMAGE"

install() {
  k apply --server-side --force-conflicts -f "$CRDS"
  # shellcheck disable=SC2046
  k wait --for=condition=Established --timeout="${KIND_WAIT}s" \
    $(ls "$CRDS" | sed -n 's|^monitoring.coreos.com_\(.*\)\.yaml$|crd/\1.monitoring.coreos.com|p')
  # the bundle names the default images; other names (a test build) are put in here
  sed -e "s|image: .*/prometheus-operator:v.*|image: $OPERATOR_IMAGE|" \
      -e "s|--prometheus-config-reloader=.*|--prometheus-config-reloader=$RELOADER_IMAGE|" \
      -e "/^ *requests:$/{n;s|^\( *\)cpu: .*|\1cpu: $PROM_OPERATOR_CPU|}" "$PO/bundle.yaml" \
    | k apply --server-side --force-conflicts -f -
  k -n default rollout status deployment/prometheus-operator --timeout="${KIND_WAIT}s"
}
step prometheus-operator-install install
log "Prometheus Operator running (namespace default); CRDs: $(k get crd -o name | grep -c monitoring.coreos.com)"

check() {
  local out t
  k apply -f "$PO/prometheus-rbac.yaml"
  k apply -f - <<YAML
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: prometheus-operator-check, namespace: default}
spec:
  selector: {matchLabels: {app.kubernetes.io/name: prometheus-operator}}
  endpoints: [{port: http, interval: 5s}]
---
apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {name: check, namespace: default}
spec:
  image: $PROMETHEUS_IMAGE
  version: $PROMETHEUS_VERSION
  replicas: 1
  serviceAccountName: prometheus
  serviceMonitorSelector: {}
  scrapeInterval: 5s
  resources: {requests: {cpu: 20m, memory: 100Mi}}
YAML
  k -n default wait --for=condition=Available prometheus/check --timeout="${KIND_WAIT}s"
  k -n default get pods -l app.kubernetes.io/name=prometheus -o wide
  local api="/api/v1/namespaces/default/services/http:prometheus-operated:9090/proxy/api/v1" pool=serviceMonitor/default/prometheus-operator-check/0
  for ((t = 0; t < KIND_WAIT; t += 2)); do
    out=$(k get --raw "$api/targets" 2>/dev/null || true)
    if jq -e --arg p "$pool" '.data.activeTargets[] | select(.scrapePool == $p and .health == "up")' <<<"$out" >/dev/null 2>&1; then
      jq -c --arg p "$pool" '.data.activeTargets[] | select(.scrapePool == $p) | {scrapePool, health, scrapeUrl}' <<<"$out"
      # and the scraped data is queryable
      out=$(k get --raw "$api/query?query=prometheus_operator_reconcile_operations_total%7Bcontroller%3D%22prometheus%22%7D")
      jq -e '.data.result | length > 0' <<<"$out" >/dev/null || { echo "no series in: $out"; return 1; }
      echo "query: $(jq -c '.data.result[0] | {metric: .metric.__name__, value: .value[1]}' <<<"$out")"
      k -n default delete prometheus/check servicemonitor/prometheus-operator-check --wait=false
      return 0
    fi
    sleep 2
  done
  echo "Prometheus did not report the operator's target up; last answer: $out"
  k -n default logs statefulset/prometheus-check -c prometheus --tail=20 || true
  return 1
}
if [ "$PROM_CHECK" = 1 ]; then
  step prometheus-check check
  log "check passed: a Prometheus made by the operator scraped the operator (details: $VIDEOEDGE_CACHE/logs/prometheus-check.log)"
fi
finish
