#!/usr/bin/env bash
# make e2e: the whole system on kind. Creates the cluster (or reuses it: USE_EXISTING_CLUSTER=1), builds
# and loads the images, installs the Prometheus Operator and the chart, applies a VideoEdge with sample
# content, and runs the scenarios in e2e/scenarios/ in order. On failure a trap saves logs, describe
# output, the VideoEdge and NodeTuning YAML and `kind export logs` into _artifacts/e2e-<timestamp>.
#   E2E_SCENARIOS="10 20"   run only the scenarios whose names start with these numbers (setup runs when
#                           one matches; when none does, e.g. "f20" for the fleet suite, no cluster is set
#                           up, only the images built when E2E_BUILD=1, and the run says it checked nothing)
#   E2E_KEEP_CLUSTER=1      keep a cluster this run created (default: deleted at the end, pass or fail)
#   E2E_KEEP=1              keep everything as it is at the end (no cleanup; vm.* sysctls may stay changed)
#   E2E_LOCK_WAIT=0         seconds to wait for another e2e/demo on this machine (one at a time)
# and the settings listed in e2e/lib.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

take_machine_lock "$@"

select_scenarios single "$E2E_DIR"/scenarios/[0-9][0-9]-*.sh

T0=$SECONDS
ARTIFACTS=${ARTIFACTS:-$ROOT/_artifacts/e2e-$(date +%Y%m%d-%H%M%S)}
export ARTIFACTS
mkdir -p "$ARTIFACTS"
: >"$STATE_DIR/stages"
: >"$STATE_DIR/failures"
: >"$STATE_DIR/skips"
rm -f "$STATE_DIR/ready-seconds" "$STATE_DIR/stage"
CREATED_CLUSTER=0

collect_artifacts() {
  local d=$ARTIFACTS ns p c
  say "collecting artifacts into $d ..."
  mkdir -p "$d/logs" "$d/describe" "$d/yaml" "$d/node"
  {
    k get nodes -o wide; k get pods -A -o wide; k get ve -A; k get nodetunings -o wide
    k get events -A --sort-by=.lastTimestamp
  } >"$d/overview.txt" 2>&1 || true
  for ns in "$CHART_NS" "$VE_NS" "$PROM_NS" default; do
    for p in $(k -n "$ns" get pods -o name 2>/dev/null); do
      for c in $(k -n "$ns" get "$p" -o jsonpath='{.spec.initContainers[*].name} {.spec.containers[*].name}' 2>/dev/null); do
        k -n "$ns" logs "$p" -c "$c" >"$d/logs/$ns.${p#pod/}.$c.log" 2>&1 || true
        k -n "$ns" logs "$p" -c "$c" --previous >"$d/logs/$ns.${p#pod/}.$c.previous.log" 2>/dev/null \
          || rm -f "$d/logs/$ns.${p#pod/}.$c.previous.log"
      done
    done
    k -n "$ns" describe pods,daemonsets,deployments,statefulsets >"$d/describe/$ns.txt" 2>&1 || true
  done
  k -n "$VE_NS" describe ve >>"$d/describe/$VE_NS.txt" 2>&1 || true
  k describe nodetunings >"$d/describe/nodetunings.txt" 2>&1 || true
  k describe nodes >"$d/describe/nodes.txt" 2>&1 || true
  k get ve -A -o yaml >"$d/yaml/videoedges.yaml" 2>&1 || true
  k get nodetunings -o yaml >"$d/yaml/nodetunings.yaml" 2>&1 || true
  k -n "$VE_NS" get daemonsets,configmaps,podmonitors -o yaml >"$d/yaml/$VE_NS-objects.yaml" 2>&1 || true
  {
    for s in "${NET_SYSCTLS[@]}" "${VM_SYSCTLS[@]}"; do echo "$s = $(node_sysctl "$s" 2>&1)"; done
    node_exec cat /var/lib/kubelet/cpu_manager_state; echo
    node_exec ls -la "$CONTENT_PATH" /var/cache/videoedge /var/lib/videoedge/agent
    node_exec cat /var/lib/videoedge/agent/journal.json; echo
    # containers left frozen by the node's runc (cgroup v1, systemd driver; seen once: a config-reloader)
    echo "frozen cgroups:"; node_exec sh -c 'grep -rl FROZEN /sys/fs/cgroup/freezer --include=freezer.state || true'
  } >"$d/node/state.txt" 2>&1 || true
  cp "$STATE_DIR/originals" "$d/node/originals-before-install.txt" 2>/dev/null || true
  # (the offline node image has no crictl: kind export logs then ends with an error after exporting the rest)
  kind export logs "$d/kind" --name "$KIND_CLUSTER" >"$d/kind-export.log" 2>&1 || [ -d "$d/kind" ] || say "(kind export logs failed: $d/kind-export.log)"
}

on_exit() {
  local rc=$?
  set +e
  if [ "$rc" -ne 0 ]; then
    say ""
    say "E2E FAILED in stage '$(cat "$STATE_DIR/stage" 2>/dev/null || echo setup)' (rc=$rc) after $((SECONDS - T0))s"
    if [ -s "$KIND_KUBECONFIG" ] && k get --raw /readyz >/dev/null 2>&1; then collect_artifacts; fi
  fi
  # the VideoEdge is gone after scenario 90; after a failure or a partial run (E2E_SCENARIOS) delete it
  # here, so the agent gives the node (and this machine's vm.* sysctls) its values back
  if [ "${E2E_KEEP:-0}" != 1 ] && [ -s "$KIND_KUBECONFIG" ] && k -n "$VE_NS" get ve "$VE_NAME" >/dev/null 2>&1; then
    say "cleanup: deleting the VideoEdge so the agent restores the node (E2E_KEEP=1 keeps it)"
    E2E_TIMEOUT=90 delete_videoedge >/dev/null 2>&1
    restore_global_sysctls
  fi
  if [ "$CREATED_CLUSTER" = 1 ] && [ "${E2E_KEEP_CLUSTER:-0}" != 1 ] && [ "${E2E_KEEP:-0}" != 1 ]; then
    timed cluster-delete "$ROOT/hack/kind-down.sh"
  fi
  say ""
  say "stage times (s):"
  awk '{printf "  %-28s %5s %s\n", $1, $2, $3}' "$STATE_DIR/stages" >&2
  printf '  %-28s %5s\n' total $((SECONDS - T0)) >&2
  [ ! -s "$STATE_DIR/ready-seconds" ] || say "VideoEdge applied -> Ready: $(cat "$STATE_DIR/ready-seconds")s"
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
  elif [ "$rc" -ne 0 ]; then
    say "no cluster to collect artifacts from"
    rm -rf "$ARTIFACTS"
  else
    ran=$(grep -c '^[0-9][0-9]-' "$STATE_DIR/stages" || true) skipped=$(grep -c . "$STATE_DIR/skips" || true)
    say "E2E PASSED in $((SECONDS - T0))s: $((ran - skipped)) scenarios passed$([ "$skipped" -eq 0 ] || echo ", $skipped SKIPPED")"
    [ -n "$(ls -A "$ARTIFACTS/logs" 2>/dev/null)" ] || rm -rf "$ARTIFACTS"
  fi
  exit "$rc"
}
trap on_exit EXIT

# ---- setup
if [ "$USE_EXISTING_CLUSTER" != 1 ] && ! kind get clusters 2>/dev/null | grep -qx "$KIND_CLUSTER"; then
  CREATED_CLUSTER=1
fi
timed cluster install_cluster
timed images build_images
timed images-load load_images
timed prometheus-operator install_prometheus_operator

# A clean start on a reused cluster: a VideoEdge left by an earlier run or the demo is deleted first,
# so the values recorded next are the node's own (the agent restores it on deletion).
clean_start() {
  delete_videoedge
  # congestion control: the node's network namespace inherits bbr from this machine's kernel, so
  # start from reno (always allowed) to see the agent change it, and restore it later
  if [ "$(node_sysctl net.ipv4.tcp_congestion_control)" = bbr ]; then
    node_exec sysctl -qw net.ipv4.tcp_congestion_control=reno
    say "node's tcp_congestion_control was bbr already (inherited from this machine): set to reno so the change is visible"
  fi
  if monitoring_present; then k -n "$PROM_NS" delete prometheus e2e --ignore-not-found --wait; fi
  # an empty disk cache (scenario 35 expects a miss first), re-created by the kubelet as root:root 0755
  node_exec rm -rf /var/cache/videoedge
  record_originals
}
timed clean-start clean_start
# a short drift interval for the drift scenario, monitoring every 10s
timed chart install_chart --set nodeAgent.driftInterval=5s >"$ARTIFACTS/helm.log"
# the chart's own test pod (the operator answers /readyz and serves metrics)
timed helm-test helm test "$RELEASE" --namespace "$CHART_NS" --logs --timeout "${E2E_TIMEOUT}s" >>"$ARTIFACTS/helm.log"
timed prerequisites install_prerequisites

apply_and_wait() {
  local s=$SECONDS
  apply_videoedge
  wait_videoedge_ready
  echo "$((SECONDS - s))" >"$STATE_DIR/ready-seconds"
  say "VideoEdge Ready $((SECONDS - s))s after it was applied"
}
timed videoedge-ready apply_and_wait
# The e2e's own Prometheus, scraping what the chart and the operator declare (ServiceMonitor, PodMonitors),
# made after the VideoEdge (clean_start removed an earlier one): its first config then has every scrape
# pool. A PodMonitor added later reaches a running Prometheus only when the config reloader next polls
# the config Secret's volume (every 3 minutes: its inotify watch does not fire on kubelet's Secret updates).
if [ "$E2E_MONITORING" = 1 ]; then
  timed prometheus install_prometheus
fi

# ---- scenarios
for f in "${SCENARIOS[@]}"; do
  timed "$(basename "$f" .sh)" bash "$f"
done
