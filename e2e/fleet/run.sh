#!/usr/bin/env bash
# The multi-node suite of `make e2e`: a kind cluster of one control plane and two edge workers
# (e2e/kind/fleet.yaml), the chart, the VideoEdge e2e/manifests/fleet.yaml on both workers, then the
# scenarios in e2e/fleet/NN-*.sh: rolling tuning within maxUnavailable, a failing node pausing the
# rollout and reverted, a live reconfigure under a download, a cache purge acknowledged by both nodes
# during traffic, conflicts, a node unlabelled and a node deleted, everything restored on delete. On failure a trap saves logs, describe output and node state
# into _artifacts/.
#   E2E_SCENARIOS="f20 f30"  only these scenarios (setup runs when one matches; when none does, no cluster
#                           is set up, only the images built when E2E_BUILD=1, and the run says it checked nothing)
#   E2E_KEEP_CLUSTER=1      keep a cluster this run created (default: deleted at the end)
#   E2E_KEEP=1              keep everything as it is at the end
#   FLEET_CLUSTER           the cluster's name (videoedge-fleet)
# and the settings listed in e2e/lib.sh (E2E_BUILD, E2E_TIMEOUT, IMAGE_PREFIX, IMAGE_TAG, ARTIFACTS).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

take_machine_lock "$@"

select_scenarios fleet "$E2E_DIR"/fleet/f[0-9][0-9]-*.sh

T0=$SECONDS
# beside the single-node suite's when a directory is given (make e2e runs both)
ARTIFACTS=${ARTIFACTS:+$ARTIFACTS-fleet}
ARTIFACTS=${ARTIFACTS:-$ROOT/_artifacts/e2e-fleet-$(date +%Y%m%d-%H%M%S)}
export ARTIFACTS
mkdir -p "$ARTIFACTS"
: >"$STATE_DIR/stages"
: >"$STATE_DIR/failures"
: >"$STATE_DIR/skips"
rm -f "$STATE_DIR/stage"
CREATED_CLUSTER=0

collect_artifacts() {
  local d=$ARTIFACTS ns p c n
  say "collecting artifacts into $d ..."
  mkdir -p "$d/logs" "$d/describe" "$d/yaml" "$d/node"
  {
    k get nodes -o wide --show-labels; k get pods -A -o wide; k get ve -A; k get nodetunings -o wide
    k get events -A --sort-by=.lastTimestamp
  } >"$d/overview.txt" 2>&1 || true
  for ns in "$CHART_NS" "$VE_NS" fleet-b; do
    for p in $(k -n "$ns" get pods -o name 2>/dev/null); do
      for c in $(k -n "$ns" get "$p" -o jsonpath='{.spec.initContainers[*].name} {.spec.containers[*].name}' 2>/dev/null); do
        k -n "$ns" logs "$p" -c "$c" >"$d/logs/$ns.${p#pod/}.$c.log" 2>&1 || true
      done
    done
    k -n "$ns" describe pods,daemonsets,deployments >"$d/describe/$ns.txt" 2>&1 || true
  done
  k describe ve -A >"$d/describe/videoedges.txt" 2>&1 || true
  k describe nodetunings >"$d/describe/nodetunings.txt" 2>&1 || true
  k describe nodes >"$d/describe/nodes.txt" 2>&1 || true
  k get ve -A -o yaml >"$d/yaml/videoedges.yaml" 2>&1 || true
  k get nodetunings -o yaml >"$d/yaml/nodetunings.yaml" 2>&1 || true
  for n in $(fleet_nodes); do
    {
      for s in "${FLEET_SYSCTLS[@]}"; do echo "$s = $(nsysctl "$n" "$s" 2>&1)"; done
      nexec "$n" cat /var/lib/videoedge/agent/journal.json; echo
    } >"$d/node/$n.txt" 2>&1 || true
  done
  cp "$STATE_DIR/samples" "$d/samples.txt" 2>/dev/null || true
  kind export logs "$d/kind" --name "$KIND_CLUSTER" >"$d/kind-export.log" 2>&1 || true
}

# the taint f32 and f60 put on a worker to keep its edge server off it
remove_no_edge_taints() {
  local n
  for n in $(fleet_nodes); do k taint node "$n" videoedge.test/no-edge-server- >/dev/null 2>&1 || true; done
}
on_exit() {
  local rc=$? p
  set +e
  [ -z "${SAMPLER:-}" ] || sampler_stop
  # a fault a scenario injected (f30: a read-only sysctl file in an agent's container) must not outlive it
  for p in $(k -n "$CHART_NS" get pods -l app.kubernetes.io/component=node-agent -o name 2>/dev/null); do
    k -n "$CHART_NS" exec "$p" -- umount /host/proc/sys/net/ipv4/tcp_notsent_lowat 2>/dev/null
  done
  if [ "$rc" -ne 0 ]; then
    say ""
    say "E2E (fleet) FAILED in stage '$(cat "$STATE_DIR/stage" 2>/dev/null || echo setup)' (rc=$rc) after $((SECONDS - T0))s"
    if [ -s "$KIND_KUBECONFIG" ] && k get --raw /readyz >/dev/null 2>&1; then collect_artifacts; fi
  fi
  # nor (after the artifacts recorded it) the taint f32 and f60 put on a worker to keep its edge server off it
  remove_no_edge_taints
  if [ "${E2E_KEEP:-0}" != 1 ] && [ -s "$KIND_KUBECONFIG" ]; then
    k -n fleet-b delete ve fleet-b --ignore-not-found --wait=false >/dev/null 2>&1
    E2E_TIMEOUT=90 delete_fleet_videoedge >/dev/null 2>&1
  fi
  if [ "$CREATED_CLUSTER" = 1 ] && [ "${E2E_KEEP_CLUSTER:-0}" != 1 ] && [ "${E2E_KEEP:-0}" != 1 ]; then
    timed cluster-delete "$ROOT/hack/kind-down.sh"
  fi
  say ""
  say "stage times (s):"
  awk '{printf "  %-28s %5s %s\n", $1, $2, $3}' "$STATE_DIR/stages" >&2
  printf '  %-28s %5s\n' total $((SECONDS - T0)) >&2
  cp "$STATE_DIR/stages" "$ARTIFACTS/stages.txt" 2>/dev/null
  if [ -s "$STATE_DIR/skips" ]; then
    say "skipped (nothing checked):"
    sed 's/^/  /' "$STATE_DIR/skips" >&2
  fi
  if [ -s "$STATE_DIR/failures" ]; then
    say "failed:"
    sed 's/^/  /' "$STATE_DIR/failures" >&2
  fi
  if [ "$rc" -ne 0 ] && [ -d "$ARTIFACTS/logs" ]; then
    say "artifacts: $ARTIFACTS"
  elif [ "$rc" -eq 0 ]; then
    ran=$(grep -c '^f[0-9][0-9]-' "$STATE_DIR/stages" || true) skipped=$(grep -c . "$STATE_DIR/skips" || true)
    say "E2E (fleet) PASSED in $((SECONDS - T0))s: $((ran - skipped)) scenarios passed$([ "$skipped" -eq 0 ] || echo ", $skipped SKIPPED")"
    [ -n "$(ls -A "$ARTIFACTS/logs" 2>/dev/null)" ] || rm -rf "$ARTIFACTS"
  fi
  exit "$rc"
}
trap on_exit EXIT

# ---- setup
if [ "$USE_EXISTING_CLUSTER" != 1 ] && ! kind get clusters 2>/dev/null | grep -qx "$KIND_CLUSTER"; then
  CREATED_CLUSTER=1
fi
fleet_cluster() {
  "$ROOT/hack/kind-up.sh"
  TOOLS=helm "$ROOT/hack/tools.sh"
  need_cmd curl jq
  local n
  for n in $(fleet_nodes); do
    k get node "$n" -o jsonpath='{.metadata.labels.videoedge\.io/fleet}' | grep -qx edge \
      || die "node $n is not labelled $FLEET_LABEL (e2e/kind/fleet.yaml labels both workers)"
  done
  k get nodes -o wide >&2
}
timed cluster fleet_cluster
timed images build_images
timed images-load load_images

clean_start() {
  local n s
  remove_no_edge_taints # a reused cluster whose last run was killed mid-f32 or mid-f60
  if k get crd videoedges.videoedge.io >/dev/null 2>&1; then # a reused cluster: what an earlier run left
    delete_fleet_videoedge
    k -n fleet-b delete ve fleet-b --ignore-not-found --wait=true
  fi
  # start from reno (the nodes inherit bbr from this machine's kernel) to see the agents change it
  : >"$STATE_DIR/originals"
  for n in $(fleet_nodes); do
    [ "$(nsysctl "$n" net.ipv4.tcp_congestion_control)" != bbr ] || nexec "$n" sysctl -qw net.ipv4.tcp_congestion_control=reno
    for s in "${FLEET_SYSCTLS[@]}"; do printf '%s %s=%s\n' "$n" "$s" "$(nsysctl "$n" "$s")" >>"$STATE_DIR/originals"; done
  done
  say "node values before install:"; sed 's/^/  /' "$STATE_DIR/originals" >&2
}
timed clean-start clean_start
timed chart install_chart --set nodeAgent.driftInterval=5s >"$ARTIFACTS/helm.log"

fleet_prerequisites() {
  local n d san=""
  k create namespace "$VE_NS" --dry-run=client -o yaml | k apply -f -
  if ! k -n "$VE_NS" get secret fleet-tls >/dev/null 2>&1; then
    d=$(mktemp -d)
    for n in $(fleet_nodes); do san="$san,IP:$(nip "$n")"; done
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj "/CN=fleet.videoedge.test" \
      -addext "subjectAltName=DNS:fleet.videoedge.test$san" -keyout "$d/tls.key" -out "$d/tls.crt" 2>/dev/null
    k -n "$VE_NS" create secret tls fleet-tls --cert "$d/tls.crt" --key "$d/tls.key"
    rm -rf "$d"
  fi
  for n in $(fleet_nodes); do
    if ! nexec "$n" test -f "$CONTENT_PATH/bench/seg-16m.m4s"; then
      nexec "$n" mkdir -p "$CONTENT_PATH"
      docker run --rm -e JDK_JAVA_OPTIONS= --entrypoint sh "$(image edge-server)" -c \
        'java -cp "/opt/videoedge/app.jar:/opt/videoedge/lib/*" io.videoedge.server.sample.SampleContent /tmp/content --bench >/dev/null && tar -C /tmp/content -cf - .' \
        | docker exec -i "$n" tar -C "$CONTENT_PATH" -xf -
    fi
    say "content in $n:$CONTENT_PATH: $(nexec "$n" find "$CONTENT_PATH" -type f | wc -l) files"
  done
  # the origin behind both workers' caches (objects under /vod; f45 purges them)
  sed -e "s|EDGE_SERVER_IMAGE|$(image edge-server)|" -e "s|^  namespace: video$|  namespace: $VE_NS|" \
    "$E2E_DIR/manifests/origin.yaml" | k apply -f -
  k -n "$VE_NS" rollout status deployment/origin --timeout="${E2E_TIMEOUT}s"
}
timed prerequisites fleet_prerequisites

fleet_ready() {
  local s=$SECONDS
  k apply -f "$VE_MANIFEST"
  wait_until "VideoEdge $VE_NS/$VE_NAME Ready on both workers" "$E2E_TIMEOUT" rollout_complete
  k -n "$VE_NS" get ve "$VE_NAME" >&2
  say "VideoEdge Ready $((SECONDS - s))s after it was applied"
}
timed videoedge-ready fleet_ready

# ---- scenarios
for f in "${SCENARIOS[@]}"; do
  timed "$(basename "$f" .sh)" bash "$f"
done
