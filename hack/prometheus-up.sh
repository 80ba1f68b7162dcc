#!/bin/bash
# Install the Prometheus Operator into the kind cluster, with no registry: the images of
# hack/prometheus-stack.sh go in with `kind load docker-image`, the CRDs and upstream's install bundle
# (namespace default) are applied server-side, and the operator's rollout is waited for. Idempotent.
#   PROM_CHECK=1   also run a Prometheus ("check", namespace default) that scrapes the operator through a
#                  ServiceMonitor, and wait until Prometheus' HTTP API reports that target up; then remove it.
#   KIND_CLUSTER, KIND_KUBECONFIG as for hack/kind-up.sh (the cluster must exist).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KIND_CLUSTER=${KIND_CLUSTER:-videoedge}
KIND_KUBECONFIG=${KIND_KUBECONFIG:-$VIDEOEDGE_CACHE/kind/$KIND_CLUSTER/kubeconfig}
KIND_WAIT=${KIND_WAIT:-300}
PROM_CHECK=${PROM_CHECK:-0}
export KUBECONFIG="$KIND_KUBECONFIG"
[ -s "$KUBECONFIG" ] || die "no kubeconfig $KUBECONFIG: run 'make kind-up' first"
k() { "$BIN_DIR/kubectl" "$@"; }

CRDS=$("$ROOT/hack/prometheus-stack.sh")
PO="$VIDEOEDGE_CACHE/prometheus-operator"
# shellcheck disable=SC1091
. "$PO/images.env"
for i in "$OPERATOR_IMAGE" "$RELOADER_IMAGE" "$PROMETHEUS_IMAGE"; do
  step "kind-load-$(basename "${i%:*}")" "$BIN_DIR/kind" load docker-image --name "$KIND_CLUSTER" "$i"
done

install() {
  k apply --server-side --force-conflicts -f "$CRDS"
  # shellcheck disable=SC2046
  k wait --for=condition=Established --timeout="${KIND_WAIT}s" \
    $(ls "$CRDS" | sed -n 's|^monitoring.coreos.com_\(.*\)\.yaml$|crd/\1.monitoring.coreos.com|p')
  # the bundle names the default images; other names (a test build) are put in here
  sed -e "s|image: .*/prometheus-operator:v.*|image: $OPERATOR_IMAGE|" \
      -e "s|--prometheus-config-reloader=.*|--prometheus-config-reloader=$RELOADER_IMAGE|" "$PO/bundle.yaml" \
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
  resources: {requests: {cpu: 50m, memory: 100Mi}}
YAML
  k -n default wait --for=condition=Available prometheus/check --timeout="${KIND_WAIT}s"
  k -n default get pods -l app.kubernetes.io/name=prometheus -o wide
  for ((t = 0; t < KIND_WAIT; t += 2)); do
    out=$(k get --raw "/api/v1/namespaces/default/services/http:prometheus-operated:9090/proxy/api/v1/query?query=up%7Bjob%3D%22default%2Fprometheus-operator-check%22%7D" 2>/dev/null || true)
    if jq -e '.data.result[0].value[1] == "1"' <<<"$out" >/dev/null 2>&1; then
      echo "up: $(jq -c '.data.result' <<<"$out")"
      k get --raw "/api/v1/namespaces/default/services/http:prometheus-operated:9090/proxy/api/v1/targets" \
        | jq -c '.data.activeTargets[] | {scrapePool, health, scrapeUrl}'
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
