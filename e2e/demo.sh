#!/usr/bin/env bash
# make demo / make demo-down: VideoEdge on kind, with the e2e's install steps (e2e/lib.sh).
#   e2e/demo.sh up     cluster, images, Prometheus Operator + a Prometheus, the chart, sample content, an
#                      origin, the VideoEdge of e2e/manifests/videoedge.yaml; waits for Ready and prints
#                      what to look at
#   e2e/demo.sh down   deletes the VideoEdge (the agent restores the node, vm.* sysctls of this machine
#                      included), then the cluster (USE_EXISTING_CLUSTER=1: uninstalls instead, keeps it)
# Settings as in e2e/lib.sh (E2E_BUILD=0 skips `make images`, E2E_MONITORING=0 skips Prometheus).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

up() {
  timed cluster install_cluster
  timed images build_images
  timed images-load load_images
  timed prometheus-operator install_prometheus_operator
  timed chart install_chart >"$STATE_DIR/helm.log"
  timed prerequisites install_prerequisites
  timed videoedge apply_videoedge
  timed videoedge-ready wait_videoedge_ready
  # after the VideoEdge, so that its first config has the edge server's PodMonitor (see run.sh)
  if [ "$E2E_MONITORING" = 1 ]; then timed prometheus install_prometheus; fi
  show
}

show() {
  local ip node ca
  ip=$(node_ip); node=$(node_name); ca=$(ca_file)
  cat <<TXT

VideoEdge demo: VideoEdge $VE_NS/$VE_NAME serves on node $node ($ip), host network.

  export KUBECONFIG=$KIND_KUBECONFIG PATH=$BIN_DIR:\$PATH   # the cluster's own kubeconfig; kubectl, kind, helm
  kubectl get ve -A                            # Ready, tuned 1/1, serving 1/1
  kubectl -n $VE_NS get ve $VE_NAME -o yaml    # conditions, counts, nodesNeedingAttention
  kubectl get nodetunings                      # the node agent's report
  kubectl get nodetuning $node -o jsonpath='{range .status.settings[*]}{.name}{"\\t"}{.actual}{"\\t(was "}{.original}{", "}{.state}{")\\n"}{end}'
  docker exec $node sysctl net.ipv4.tcp_congestion_control net.ipv4.tcp_notsent_lowat vm.swappiness

  curl -v http://$ip:$HTTP_PORT/index.m3u8
  curl -s http://$ip:$HTTP_PORT/hls/playlist.m3u8
  curl -s -r 0-99 -D - -o /dev/null http://$ip:$HTTP_PORT/mp4/clip.mp4            # 206, Content-Range
  curl -s --cacert $ca -o /dev/null -w '%{http_code} %{size_download} bytes %{speed_download} B/s\\n' https://$ip:$HTTPS_PORT/bench/seg-16m.m4s
  curl -s -D - -o /dev/null http://$ip:$HTTP_PORT/vod/hls/seg-00001.m4s            # from the origin: X-Cache miss, then hit-*
  curl -s http://$ip:$ADMIN_PORT/metrics | grep ^videoedge_                        # edge server metrics
  curl -s http://$ip:$AGENT_PORT/metrics | grep ^videoedge_agent                   # node agent metrics
TXT
  if [ "$E2E_MONITORING" = 1 ] && monitoring_present; then
    cat <<TXT
  kubectl get --raw '/api/v1/namespaces/$PROM_NS/services/http:prometheus-operated:9090/proxy/api/v1/query?query=sum(rate(videoedge_http_response_body_bytes_total%5B1m%5D))'
  kubectl -n $PROM_NS port-forward svc/prometheus-operated 9090     # then http://localhost:9090/api/v1/targets
TXT
  fi
  cat <<TXT

  make demo-down                               # restores the node, deletes the cluster
TXT
}

# the VideoEdge goes first so the agent restores the node (vm.* sysctls are this machine's); the
# origin goes with its namespace, or with the cluster, whose kind-down.sh restores the nodes itself
down() {
  if [ "$USE_EXISTING_CLUSTER" = 1 ]; then
    if [ -s "$KIND_KUBECONFIG" ] && k get crd videoedges.videoedge.io >/dev/null 2>&1; then
      timed videoedge-delete delete_videoedge
    fi
    helm uninstall "$RELEASE" --namespace "$CHART_NS" --wait 2>/dev/null || true
    k delete namespace "$VE_NS" "$PROM_NS" --ignore-not-found >&2 || true
    say "USE_EXISTING_CLUSTER=1: cluster '$KIND_CLUSTER' kept"
  else
    timed cluster-delete "$ROOT/hack/kind-down.sh"
  fi
}

[ "${1:-up}" = show ] || take_machine_lock "${1:-up}"
: >"$STATE_DIR/stages"
case "${1:-up}" in
  up) up ;;
  show) show ;;
  down) down ;;
  *) die "usage: $0 up|show|down" ;;
esac
