#!/bin/bash
# Delete the kind cluster made by hack/kind-up.sh (and its kubeconfig). Nothing to do when it does not exist.
# VideoEdges in it are deleted first, so the node agents restore the kernel's originals (vm.* sysctls are
# this machine's kernel's, not the node container's) before the nodes go.
#   KIND_CLUSTER=videoedge, KIND_KUBECONFIG as for kind-up.sh
#   USE_EXISTING_CLUSTER=1   keep the cluster (it was not ours to delete)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if [ "${USE_EXISTING_CLUSTER:-0}" = 1 ]; then
  log "USE_EXISTING_CLUSTER=1: keeping kind cluster '$KIND_CLUSTER'"
  exit 0
fi
TOOLS=kind "$ROOT/hack/tools.sh"
# The node agent changes vm.* sysctls, which are global to the kernel kind runs on (this machine's):
# delete every VideoEdge first so the agents restore the originals, then the cluster.
restore_nodes() {
  [ -n "$(k get videoedges -A -o name)" ] || return 0
  k delete videoedges --all -A --wait=false
  k wait --for=delete nodetunings --all --timeout="${KIND_DOWN_RESTORE_WAIT:-120}s"
}
export KUBECONFIG="$KIND_KUBECONFIG"
if "$BIN_DIR/kind" get clusters 2>/dev/null | grep -qx "$KIND_CLUSTER"; then
  if [ -s "$KIND_KUBECONFIG" ] && k get crd videoedges.videoedge.io nodetunings.videoedge.io >/dev/null 2>&1; then
    step "kind-restore-$KIND_CLUSTER" restore_nodes \
      || log "warning: the nodes were not all restored (vm.* sysctls of this machine may keep VideoEdge's values)"
  fi
  step "kind-delete-$KIND_CLUSTER" "$BIN_DIR/kind" delete cluster --name "$KIND_CLUSTER" --kubeconfig "$KIND_KUBECONFIG"
else
  log "no kind cluster '$KIND_CLUSTER'"
fi
rm -f "$KIND_KUBECONFIG"
