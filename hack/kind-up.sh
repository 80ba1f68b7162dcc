#!/bin/bash
# A kind cluster for the e2e tests and the demo, Ready to use. Idempotent: an existing cluster of that
# name is reused (and waited for); `make kind-down` removes it.
#   KIND_CLUSTER=videoedge           cluster name
#   KIND_CONFIG=e2e/kind/cluster.yaml
#   KIND_KUBECONFIG                  the cluster's own kubeconfig (default $VIDEOEDGE_CACHE/kind/<name>/kubeconfig);
#                                    ~/.kube/config is never touched: export KUBECONFIG=<that file>
#   USE_EXISTING_CLUSTER=1           never create: the cluster must exist (and kind-down keeps it)
#   KIND_NODE_IMAGE, IMAGE_SOURCE    see hack/kind-node-image.sh (pulled when a registry answers, else built)
#   KIND_WAIT=300                    seconds to wait for each readiness condition
#   KIND_SOCKET_BUF_MAX=4194304      the least net.core.wmem_max/rmem_max the host gets before the nodes are made
# Steps: Docker check, kind and kubectl, node image, create, then wait for the node and every
# kube-system workload to be Ready (conditions, no fixed sleeps).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KUBE_VERSION=${KUBE_VERSION:-1.34.4}
KIND_CONFIG=${KIND_CONFIG:-$ROOT/e2e/kind/cluster.yaml}
KIND_NODE_IMAGE=${KIND_NODE_IMAGE:-kindest/node:v$KUBE_VERSION}
USE_EXISTING_CLUSTER=${USE_EXISTING_CLUSTER:-0}
KIND_WAIT=${KIND_WAIT:-300}
export KUBE_VERSION KIND_NODE_IMAGE
mkdir -p "$(dirname "$KIND_KUBECONFIG")"

"$ROOT/hack/docker-check.sh"
TOOLS=kind "$ROOT/hack/tools.sh"
kind="$BIN_DIR/kind"

# The agent raises net.core.wmem_max/rmem_max to the edge server's socket buffers (a NodeTuning's
# sysctlMinimums). On a real node it runs in the host's network namespace, where they are writable. A
# kind node is a container: its network namespace gets a read-only copy of the host's values when it is
# made, so the host needs them first (the e2e's sendBuf is 4m). Raised only, never lowered.
raise_socket_buffer_caps() {
  local want=${KIND_SOCKET_BUF_MAX:-4194304} key have
  for key in net.core.wmem_max net.core.rmem_max; do
    have=$(sysctl -n "$key")
    if (( have >= want )); then continue; fi
    if sysctl -qw "$key=$want" 2>/dev/null; then
      log "$key $have -> $want on this host (kind nodes copy it read-only; see hack/kind-up.sh)"
    else
      log "warning: $key is $have and cannot be raised here (not root?): the NodeTunings will report it Unsupported"
    fi
  done
}

if "$kind" get clusters 2>/dev/null | grep -qx "$KIND_CLUSTER"; then
  log "kind cluster '$KIND_CLUSTER' exists: using it"
  node_img=$(docker inspect "$KIND_CLUSTER-control-plane" --format '{{.Image}}' 2>/dev/null || true)
  if [ "$USE_EXISTING_CLUSTER" != 1 ] && [ -n "$node_img" ] \
     && [ "$node_img" != "$(image_id "$KIND_NODE_IMAGE")" ]; then
    log "note: it does not run the current $KIND_NODE_IMAGE; 'make kind-down kind-up' recreates it"
  fi
elif [ "$USE_EXISTING_CLUSTER" = 1 ]; then
  die "USE_EXISTING_CLUSTER=1, but there is no kind cluster '$KIND_CLUSTER' (kind get clusters: $("$kind" get clusters 2>/dev/null | tr '\n' ' '))"
else
  "$ROOT/hack/kind-node-image.sh"
  raise_socket_buffer_caps
  log "creating kind cluster '$KIND_CLUSTER' from $KIND_NODE_IMAGE with $KIND_CONFIG"
  step "kind-create-$KIND_CLUSTER" "$kind" create cluster --name "$KIND_CLUSTER" --image "$KIND_NODE_IMAGE" \
    --config "$KIND_CONFIG" --kubeconfig "$KIND_KUBECONFIG"
  created=1
fi
KUBE_CMDS=kubectl "$ROOT/hack/k8s-binaries.sh"
"$kind" export kubeconfig --name "$KIND_CLUSTER" --kubeconfig "$KIND_KUBECONFIG" 2>/dev/null
export KUBECONFIG="$KIND_KUBECONFIG"

# CPU budget of a 2-core node: 1900m allocatable, the control plane requests 850m of it, 200m of that for
# two coredns replicas. One replica is as good on one node and leaves 100m more for the workloads.
if [ "${created:-0}" = 1 ] && [ "$(k get nodes --no-headers | wc -l)" = 1 ]; then
  k -n kube-system scale deployment/coredns --replicas=1 >/dev/null
fi

# ---- wait for Ready: nodes, then every kube-system DaemonSet and Deployment, then every kube-system pod

# The kube-system pods that are not Ready, leaving out those being deleted (space-separated names).
# Not `kubectl wait pod --all`: a pod deleted while it waits (the coredns replica scaled away above) is
# waited on until the timeout, and the timeout is shared, so every pod after it is reported "timed out"
# as well (a CI run met this: 300 s lost, then the cluster stage failed on Ready pods).
not_ready_pods() {
  k -n kube-system get pods -o go-template='{{range .items}}{{if not .metadata.deletionTimestamp}}
    {{- $ready := "False"}}{{range .status.conditions}}{{if eq .type "Ready"}}{{$ready = .status}}{{end}}{{end}}
    {{- if ne $ready "True"}}{{.metadata.name}} {{end}}{{end}}{{end}}'
}
wait_pods_ready() {
  local deadline=$(( $(date +%s) + KIND_WAIT )) left
  while left=$(not_ready_pods) && [ -n "$left" ]; do
    if (( $(date +%s) >= deadline )); then
      echo "kube-system pods not Ready after ${KIND_WAIT}s: $left"
      k -n kube-system get pods -o wide
      k -n kube-system get events --sort-by=.lastTimestamp | tail -n 20
      return 1
    fi
    sleep 2
  done
}
wait_ready() {
  k wait --for=condition=Ready node --all --timeout="${KIND_WAIT}s"
  local w
  for w in $(k -n kube-system get daemonsets,deployments -o name); do
    k -n kube-system rollout status "$w" --timeout="${KIND_WAIT}s"
  done
  wait_pods_ready
  k get nodes -o wide
  k -n kube-system get pods -o wide
}
step "kind-ready-$KIND_CLUSTER" wait_ready
node=$(k get nodes -o jsonpath='{.items[0].metadata.name}')
log "cluster '$KIND_CLUSTER' Ready: $(k get nodes --no-headers | wc -l) node(s), node $node at $(k get node "$node" -o jsonpath='{.status.addresses[?(@.type=="InternalIP")].address}'), allocatable cpu $(k get node "$node" -o jsonpath='{.status.allocatable.cpu}')"
log "use it with: export KUBECONFIG=$KIND_KUBECONFIG"
finish
