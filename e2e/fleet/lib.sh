# shellcheck shell=bash disable=SC2034
# The multi-node suite's settings and helpers, on top of e2e/lib.sh: a cluster of its own
# (FLEET_CLUSTER, default videoedge-fleet: one control plane, two edge workers, e2e/kind/fleet.yaml),
# the VideoEdge e2e/manifests/fleet.yaml, and helpers that address each edge node.
FLEET_CLUSTER=${FLEET_CLUSTER:-videoedge-fleet}
export KIND_CLUSTER=$FLEET_CLUSTER
export KIND_KUBECONFIG="${VIDEOEDGE_CACHE:-$HOME/.cache/videoedge}/kind/$FLEET_CLUSTER/kubeconfig"
export KIND_CONFIG="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/kind/fleet.yaml"
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/lib.sh"

VE_NS=fleet
VE_NAME=fleet
VE_MANIFEST="$E2E_DIR/manifests/fleet.yaml"
FLEET_LABEL=videoedge.io/fleet=edge
FLEET_SYSCTLS=(net.ipv4.tcp_congestion_control net.ipv4.tcp_notsent_lowat net.core.somaxconn)
STATE_DIR="$VIDEOEDGE_CACHE/e2e/$FLEET_CLUSTER"
# e2e/lib.sh's single-node helpers (node_exec, node_image_digest) address the first edge worker
export E2E_NODE="$FLEET_CLUSTER-worker"
mkdir -p "$STATE_DIR"

# the edge workers (kind names them <cluster>-worker, <cluster>-worker2), by name
fleet_nodes() { echo "$FLEET_CLUSTER-worker" "$FLEET_CLUSTER-worker2"; }
nexec() { local n=$1; shift; docker exec "$n" "$@"; }
nsysctl() { nexec "$1" sysctl -n "$2" | tr -s ' \t' '  '; }
nip() { k get node "$1" -o jsonpath='{.status.addresses[?(@.type=="InternalIP")].address}'; }
pod_on() { # pod_on NODE [JSONPATH]: our edge-server pod on NODE (not being deleted)
  k -n "$VE_NS" get pods -l "videoedge.io/videoedge=$VE_NAME,app.kubernetes.io/component=edge-server" \
    --field-selector "spec.nodeName=$1" -o json \
    | jq -r --arg p "${2:-.metadata.name}" '[.items[] | select(.metadata.deletionTimestamp == null)][0] // empty | '"${2:-.metadata.name}"
}
nt_field() { k get nodetuning "$1" -o jsonpath="$2" 2>/dev/null; }
nt_sysctl() { k get nodetuning "$1" -o json | jq -r --arg s "$2" '.spec.tuning.sysctls[$s] // empty'; }
ve_rollout() { ve_jsonpath '{.status.conditions[?(@.type=="Progressing")].status} {.status.conditions[?(@.type=="Progressing")].reason}'; }
# the rollout of the current spec is complete and the status describes the current generation
rollout_complete() {
  [ "$(ve_jsonpath '{.status.observedGeneration}')" = "$(ve_jsonpath '{.metadata.generation}')" ] \
    && [ "$(ve_rollout)" = "True RolloutComplete" ] && [ "$(ve_condition Ready)" = True ] \
    || { echo "generation $(ve_jsonpath '{.metadata.generation}'), observed $(ve_jsonpath '{.status.observedGeneration}'), Progressing $(ve_rollout): $(ve_jsonpath '{.status.rollout.message}')"; return 1; }
}
set_sysctl() { # set_sysctl NAME VALUE: patch the fleet VideoEdge's sysctl
  k -n "$VE_NS" patch ve "$VE_NAME" --type merge -p "{\"spec\":{\"tuning\":{\"sysctls\":{\"$1\":\"$2\"}}}}" >&2
}
delete_fleet_videoedge() {
  k -n "$VE_NS" get ve "$VE_NAME" >/dev/null 2>&1 || return 0
  k -n "$VE_NS" delete ve "$VE_NAME" --wait=false
  k -n "$VE_NS" wait --for=delete "ve/$VE_NAME" --timeout="${E2E_TIMEOUT}s"
}

# ---- the per-node sampler: every second, each edge node's server and tuning as the API shows them
# One line per node per second into $STATE_DIR/samples:
#   <epoch> <node> <pod-ready True|False|-> <gate True|False|-> <gate-reason> <nt-tuning-revision> <nt-applied: observed==generation && Applied>
sampler_start() {
  : >"$STATE_DIR/samples"
  (
    while :; do
      t=$(date +%s)
      pods=$(k -n "$VE_NS" get pods -l "app.kubernetes.io/component=edge-server" -o json 2>/dev/null || echo '{"items":[]}')
      nts=$(k get nodetunings -o json 2>/dev/null || echo '{"items":[]}')
      for n in $(fleet_nodes); do
        p=$(jq -r --arg n "$n" '[.items[] | select(.spec.nodeName == $n and .metadata.deletionTimestamp == null)][0] // {}
          | [(.status.conditions // [] | map(select(.type == "Ready"))[0].status // "-"),
             (.status.conditions // [] | map(select(.type == "videoedge.io/node-tuned"))[0].status // "-"),
             (.status.conditions // [] | map(select(.type == "videoedge.io/node-tuned"))[0].reason // "-")] | join(" ")' <<<"$pods")
        t2=$(jq -r --arg n "$n" '[.items[] | select(.metadata.name == $n)][0] // {}
          | [(.metadata.annotations["videoedge.io/tuning-revision"] // "-"),
             (if .status.observedGeneration == .metadata.generation
                and ((.status.conditions // []) | map(select(.type == "Applied"))[0].status) == "True" then "applied" else "pending" end)]
          | join(" ")' <<<"$nts")
        echo "$t $n $p $t2"
      done >>"$STATE_DIR/samples"
      sleep 1
    done
  ) &
  SAMPLER=$!
}
sampler_stop() { kill "$SAMPLER" 2>/dev/null || true; wait "$SAMPLER" 2>/dev/null || true; }
# most edge nodes whose server was not Ready in one sample (a sample = the lines of one second)
sampler_max_unready() { awk '$3 != "True" {c[$1]++} END {m = 0; for (t in c) if (c[t] > m) m = c[t]; print m}' "$STATE_DIR/samples"; }
# service_timeline NODE T0: from the samples, seconds after T0 when NODE's gate was first Draining, its
# server first out of service, and serving again after that ("-" for what did not happen)
service_timeline() {
  awk -v n="$1" -v t0="$2" '
    $2 == n && $1 >= t0 {
      if (drain == "" && $5 == "Draining") drain = $1 - t0
      if (down == "" && $3 != "True") down = $1 - t0
      if (down != "" && up == "" && $3 == "True") up = $1 - t0
    }
    END { printf "%s %s %s\n", (drain == "" ? "-" : drain), (down == "" ? "-" : down), (up == "" ? "-" : up) }
  ' "$STATE_DIR/samples"
}
# replaced_in_turn NAME T0 W1 W2: each server drained (gate watch), out of service and back, the second
# out of service only after the first served again; prints the timeline into $STATE_DIR/NAME-timeline.txt
replaced_in_turn() {
  local name=$1 t0=$2 w1=$3 w2=$4 d1 o1 u1 d2 o2 u2 n first_up second_down
  read -r d1 o1 u1 <<<"$(service_timeline "$w1" "$t0")"
  read -r d2 o2 u2 <<<"$(service_timeline "$w2" "$t0")"
  {
    printf '%-28s %14s %14s %12s   (seconds after the change, sampled every second)\n' node "gate-draining" "out-of-service" "serving-again"
    printf '%-28s %14s %14s %12s\n' "$w1" "$d1" "$o1" "$u1" "$w2" "$d2" "$o2" "$u2"
  } | tee "$STATE_DIR/$name-timeline.txt" >&2
  [ "$o1" != - ] && [ "$u1" != - ] && [ "$o2" != - ] && [ "$u2" != - ] || fail "timeline incomplete"
  for n in $w1 $w2; do # the sampler polls each second and drainSeconds is 2: the watch sees every gate change
    drained_on "$n" && pass "$n: its old server was out of service, its gate Draining, before its eviction (watched)" \
      || fail "$n: its old server was not out of service with its gate Draining before its eviction (every change watched: $(sort -u "$STATE_DIR/gates" | tr '\n' ';'))"
  done
  first_up=$u1 second_down=$o2
  if (( o2 < o1 )); then first_up=$u2 second_down=$o1; fi
  if (( second_down >= first_up )); then
    pass "one after another: the second node left service (+${second_down}s) after the first served again (+${first_up}s)"
  else
    fail "the second node left service (+${second_down}s) before the first served again (+${first_up}s)"
  fi
}
