#!/bin/bash
# Delete the kind cluster made by hack/kind-up.sh (and its kubeconfig). Nothing to do when it does not exist.
#   KIND_CLUSTER=videoedge, KIND_KUBECONFIG as for kind-up.sh
#   USE_EXISTING_CLUSTER=1   keep the cluster (it was not ours to delete)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KIND_CLUSTER=${KIND_CLUSTER:-videoedge}
KIND_KUBECONFIG=${KIND_KUBECONFIG:-$VIDEOEDGE_CACHE/kind/$KIND_CLUSTER/kubeconfig}
if [ "${USE_EXISTING_CLUSTER:-0}" = 1 ]; then
  log "USE_EXISTING_CLUSTER=1: keeping kind cluster '$KIND_CLUSTER'"
  exit 0
fi
TOOLS=kind "$ROOT/hack/tools.sh"
if "$BIN_DIR/kind" get clusters 2>/dev/null | grep -qx "$KIND_CLUSTER"; then
  step "kind-delete-$KIND_CLUSTER" "$BIN_DIR/kind" delete cluster --name "$KIND_CLUSTER" --kubeconfig "$KIND_KUBECONFIG"
else
  log "no kind cluster '$KIND_CLUSTER'"
fi
rm -f "$KIND_KUBECONFIG"
