#!/bin/bash
# The Helm chart rendered into one file for kubectl users:
#   kubectl apply -f crds/ -f deploy/videoedge.yaml
# Namespace MANIFESTS_NAMESPACE (default videoedge-system); CRDs are left to crds/ (applied first, and
# never deleted with the workloads); the admission policy is included (Kubernetes >= 1.30 serves it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
NS=${MANIFESTS_NAMESPACE:-videoedge-system}
OUT=${MANIFESTS_OUT:-$ROOT/deploy/videoedge.yaml}
HELM=${HELM:-$BIN_DIR/helm}
[ -x "$HELM" ] || die "helm not found at $HELM: run 'make tools'"
mkdir -p "$(dirname "$OUT")"
{
  echo "# VideoEdge for kubectl: the Helm chart charts/videoedge rendered by \`make manifests\`. Do not edit."
  echo "#   kubectl apply -f crds/ -f deploy/videoedge.yaml"
  echo "---"
  printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n' "$NS"
  "$HELM" template videoedge "$ROOT/charts/videoedge" --namespace "$NS" --skip-tests \
    --set crds.install=false --set admissionPolicy.enabled=true
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
log "wrote ${OUT#"$ROOT"/} ($(grep -c '^kind:' "$OUT") objects, namespace $NS)"
