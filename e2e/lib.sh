# shellcheck shell=bash disable=SC2034
# Shared by the e2e run (e2e/run.sh), its scenarios (e2e/scenarios/NN-*.sh) and the demo (e2e/demo.sh):
# settings, output, waits on conditions (polling with deadlines, no fixed sleeps), assertions, node
# access, and the install steps (cluster, images, Prometheus Operator, chart, TLS secret, content,
# VideoEdge). Strict mode is the caller's (set -euo pipefail).
#
# Settings (environment, all optional):
#   KIND_CLUSTER=videoedge, KIND_KUBECONFIG   the cluster and its own kubeconfig (hack/kind-up.sh);
#                                             ~/.kube/config is never read or written
#   USE_EXISTING_CLUSTER=1                    use that cluster, never create or delete it
#   E2E_BUILD=1                               0: do not run `make images` (the images must exist)
#   E2E_MONITORING=1                          0: no Prometheus Operator, no monitoring scenario
#   E2E_TIMEOUT=240                           seconds for each wait on a condition
#   IMAGE_PREFIX=videoedge/, IMAGE_TAG        images (default tag: the chart's appVersion)
#   ARTIFACTS                                 where failure artifacts go (default _artifacts/e2e-<timestamp>)
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/hack/lib.sh"
E2E_DIR="$ROOT/e2e"

export KIND_CLUSTER KIND_KUBECONFIG
export KUBECONFIG="$KIND_KUBECONFIG"
USE_EXISTING_CLUSTER=${USE_EXISTING_CLUSTER:-0}
E2E_BUILD=${E2E_BUILD:-1}
E2E_MONITORING=${E2E_MONITORING:-1}
E2E_TIMEOUT=${E2E_TIMEOUT:-240}
export IMAGE_PREFIX IMAGE_TAG
IMAGES=(operator node-tuning edge-server)

# What is installed where (the demo and the e2e install the same things, so they share these names).
RELEASE=videoedge                 # helm release: videoedge-operator, videoedge-node-agent
CHART_NS=videoedge-system
VE_NS=video
VE_NAME=edge
VE_MANIFEST="$E2E_DIR/manifests/videoedge.yaml"
TLS_SECRET=edge-tls
URL_KEYS_SECRET=edge-url-keys                 # the VideoEdge's server.signedUrls.secretName
PROM_NS=monitoring                # the e2e's Prometheus (the Prometheus Operator itself runs in default)
HTTP_PORT=8080 HTTPS_PORT=8443 ADMIN_PORT=9400 AGENT_PORT=9401
CONTENT_PATH=/var/lib/videoedge/content   # the VideoEdge's server.contentPath on the node
# net.* sysctls the VideoEdge sets (per network namespace: the kind node's own), vm.* (global to the
# kernel this machine runs: the agent must give them back)
NET_SYSCTLS=(net.ipv4.tcp_congestion_control net.ipv4.tcp_notsent_lowat net.core.somaxconn)
VM_SYSCTLS=(vm.swappiness vm.min_free_kbytes)

helm() { "$BIN_DIR/helm" "$@"; }
kind() { "$BIN_DIR/kind" "$@"; }
image() { echo "$IMAGE_PREFIX$1:$IMAGE_TAG"; }
# containerd_ref REF: REF as the nodes' containerd names it (docker.io/library/, docker.io/)
containerd_ref() {
  local first=${1%%/*}
  if [[ $1 != */* ]]; then echo "docker.io/library/$1"
  elif [[ $first != *.* && $first != *:* && $first != localhost ]]; then echo "docker.io/$1"
  else echo "$1"; fi
}
# node_image_digest REF: the digest of REF in the kind node's containerd
node_image_digest() {
  node_exec ctr -n k8s.io images ls "name==$(containerd_ref "$1")" 2>/dev/null | awk 'NR > 1 {print $3}'
}

# ---- output
say() { printf '%s\n' "$*" >&2; }
pass() { printf '  \033[32mok\033[0m   %s\n' "$*" >&2; }
info() { printf '       %s\n' "$*" >&2; }
# (each failure is also kept in $STATE_DIR/failures: run.sh repeats it below the stage table, where a
# CI log that shows only its last lines still says what failed)
fail() {
  printf '  \033[31mFAIL\033[0m %s\n' "$*" >&2
  [ -z "${STATE_DIR:-}" ] || printf '%s: %s\n' "$(cat "$STATE_DIR/stage" 2>/dev/null)" "$*" | cut -c1-600 >>"$STATE_DIR/failures" 2>/dev/null || true
  exit 1
}
scenario() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }
# skip REASON: end a scenario that cannot run in this setup; timed records its stage SKIPPED (not a pass)
skip() {
  printf '  \033[33mSKIP\033[0m %s\n' "$*" >&2
  [ -z "${STATE_DIR:-}" ] || printf '%s\n' "$*" >"$STATE_DIR/skip"
  exit 0
}

# ---- assertions
assert_eq() { # DESCRIPTION EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then pass "$1: $3"; else fail "$1: expected '$2', got '$3'"; fi
}
assert_match() { # DESCRIPTION REGEX ACTUAL
  if [[ $3 =~ $2 ]]; then pass "$1: $3"; else fail "$1: expected to match /$2/, got '$3'"; fi
}
assert_contains() { # DESCRIPTION NEEDLE HAYSTACK
  if [[ $3 == *"$2"* ]]; then pass "$1"; else fail "$1: '$2' not found in: $3"; fi
}

# wait_until DESCRIPTION TIMEOUT CMD...: run CMD every second until it succeeds; on timeout fail with
# CMD's last output. The condition is what is waited for; the interval only paces the polling.
wait_until() {
  local desc=$1 timeout=$2 out rc start=$SECONDS
  shift 2
  while true; do
    rc=0; out=$("$@" 2>&1) || rc=$?
    if [ "$rc" -eq 0 ]; then
      pass "$desc (after $((SECONDS - start))s)"
      return 0
    fi
    if (( SECONDS - start >= timeout )); then
      fail "$desc: not true after ${timeout}s; last check said: ${out:-<nothing>}"
    fi
    sleep 1
  done
}

# ---- the node (kind runs it as a Docker container of the same name)
# (install_cluster exports E2E_NODE once: every node_exec and node_sysctl would ask the API server again)
node_name() { echo "${E2E_NODE:-$(k get nodes -l videoedge.io/role=edge -o jsonpath='{.items[0].metadata.name}')}"; }
node_ip() { k get node "$(node_name)" -o jsonpath='{.status.addresses[?(@.type=="InternalIP")].address}'; }
node_exec() { docker exec "$(node_name)" "$@"; }
node_exec_i() { docker exec -i "$(node_name)" "$@"; }
# node_sysctl NAME: the value in the node's network namespace (net.*) or the kernel's (vm.*), with runs
# of blanks made single spaces (the kernel prints triplets with tabs)
node_sysctl() { node_exec sysctl -n "$1" | tr -s ' \t' '  '; }

# ---- objects
ve_jsonpath() { k -n "$VE_NS" get ve "$VE_NAME" -o jsonpath="$1"; }
ve_condition() { ve_jsonpath "{.status.conditions[?(@.type==\"$1\")].status}"; }
nt_json() { k get nodetuning "$(node_name)" -o json; }
edge_pods_selector() { echo "videoedge.io/videoedge=$VE_NAME,app.kubernetes.io/component=edge-server"; }
edge_pods() { k -n "$VE_NS" get pods -l "$(edge_pods_selector)" "$@"; }
ca_file() { # the TLS certificate (self-signed: its own CA) as a file, read back from the Secret
  local f="$STATE_DIR/tls.crt"
  k -n "$VE_NS" get secret "$TLS_SECRET" -o jsonpath='{.data.tls\.crt}' | base64 -d >"$f"
  echo "$f"
}
# events_since SINCE FIELD_SELECTOR: "<type> <reason> <message>" of each Event the field selector matches
# that was last seen at or after SINCE (`date -u +%FT%TZ`, taken before the action): so neither an Event of an
# earlier scenario nor one a reused cluster kept from an earlier run satisfies a check
events_since() {
  k get events -A --field-selector "$2" -o json \
    | jq -r --arg t "$1" '.items[] | select((.lastTimestamp // .metadata.creationTimestamp) >= $t) | "\(.type) \(.reason) \(.message)"'
}
# metrics of the edge server (admin port on the node's IP: host network)
edge_metrics() { curl -fsS --max-time 5 "http://$(node_ip):$ADMIN_PORT/metrics"; }
# prom_api PATH: Prometheus' HTTP API through the API server's service proxy (no port-forward)
prom_api() { k get --raw "/api/v1/namespaces/$PROM_NS/services/http:prometheus-operated:9090/proxy/api/v1/$1"; }

# State shared between the steps and scenarios of one run (originals recorded before install, ...).
STATE_DIR=${STATE_DIR:-$VIDEOEDGE_CACHE/e2e/$KIND_CLUSTER}
mkdir -p "$STATE_DIR"

# One e2e or demo at a time on a machine: two would share the cluster (helm, the VideoEdge), and even with
# two clusters the vm.* sysctls are one kernel's, so each would record the other's values as originals.
# E2E_LOCK_WAIT seconds to wait for the other one (default 0: fail at once, naming it).
take_machine_lock() {
  local lock="$VIDEOEDGE_CACHE/e2e/lock"
  exec 9>>"$lock"
  if ! flock -w "${E2E_LOCK_WAIT:-0}" 9; then
    die "another make e2e / make demo runs on this machine ($(cat "$lock.owner" 2>/dev/null || echo '?')): wait for it (E2E_LOCK_WAIT=600 waits), or stop it"
  fi
  echo "pid $$ ($(basename "$0") ${*:-}, $ROOT, since $(date -u +%H:%M:%SZ))" >"$lock.owner"
}

# ---- install steps (used by run.sh and demo.sh), each idempotent

# timed STAGE CMD...: run one stage, print and record its duration (run.sh prints the table at the end)
timed() {
  local name=$1 s=$SECONDS rc errexit=$-
  shift
  say ""
  say "---- $name"
  echo "$name" >"$STATE_DIR/stage"
  rm -f "$STATE_DIR/skip"
  # a subshell with errexit, outside any || or if: a failing command inside the stage ends it
  set +e
  ( set -e; "$@" )
  rc=$?
  [[ $errexit != *e* ]] || set -e
  # a stage that called skip (and exited 0) is SKIPPED in the table, its reason kept in $STATE_DIR/skips
  local result=""
  if [ "$rc" -ne 0 ]; then result=" FAILED"
  elif [ -f "$STATE_DIR/skip" ]; then result=" SKIPPED"; echo "$name: $(cat "$STATE_DIR/skip")" >>"$STATE_DIR/skips"; fi
  rm -f "$STATE_DIR/skip"
  echo "$name $((SECONDS - s))$result" >>"$STATE_DIR/stages"
  say "---- $name: $((SECONDS - s))s$([ "$rc" -eq 0 ] || echo " (FAILED, rc=$rc)")$([ "$result" != " SKIPPED" ] || echo " (SKIPPED)")"
  return "$rc"
}

install_cluster() {
  "$ROOT/hack/kind-up.sh"
  TOOLS=helm "$ROOT/hack/tools.sh"
  need_cmd curl openssl jq
  E2E_NODE=$(node_name)
  export E2E_NODE
  k get node "$E2E_NODE" >/dev/null || die "no node labelled videoedge.io/role=edge (e2e/kind/cluster.yaml labels it)"
  say "node $E2E_NODE at $(node_ip), allocatable cpu $(k get node "$E2E_NODE" -o jsonpath='{.status.allocatable.cpu}')"
}

# select_scenarios SUITE FILE...: sets SCENARIOS to the files E2E_SCENARIOS names by number (all when it is
# empty); a number that is no scenario of either suite stops the run. When it names none of this suite's (make e2e gives both suites one E2E_SCENARIOS, "30 f20"), the
# suite ends here: not PASSED, no cluster; the images are still built when asked (the Makefile builds them in
# the first suite only)
select_scenarios() {
  local suite=$1 f name token known=()
  shift
  # a number that names no scenario of either suite is a mistake ("30 99"), not a filter that matched nothing
  for f in "$E2E_DIR"/scenarios/[0-9][0-9]-*.sh "$E2E_DIR"/fleet/f[0-9][0-9]-*.sh; do
    name=$(basename "$f" .sh)
    known+=("${name%%-*}")
  done
  for token in ${E2E_SCENARIOS:-}; do
    printf '%s\n' "${known[@]}" | grep -qxF -- "$token" ||
      die "E2E_SCENARIOS names no scenario '$token'; the scenarios are: ${known[*]}"
  done
  SCENARIOS=()
  for f in "$@"; do
    name=$(basename "$f" .sh)
    if [ -z "${E2E_SCENARIOS:-}" ] || grep -qw "${name%%-*}" <<<"$E2E_SCENARIOS"; then SCENARIOS+=("$f"); fi
  done
  if [ "${#SCENARIOS[@]}" -eq 0 ]; then
    [ "$E2E_BUILD" != 1 ] || build_images
    say "E2E ($suite): 0 scenarios matched E2E_SCENARIOS='${E2E_SCENARIOS:-}', nothing checked (no cluster set up)"
    exit 0
  fi
}

build_images() {
  if [ "$E2E_BUILD" = 1 ]; then
    make -C "$ROOT" --no-print-directory images
  fi
  local i
  for i in "${IMAGES[@]}"; do
    docker image inspect "$(image "$i")" >/dev/null 2>&1 || die "image $(image "$i") missing: run 'make images' (or E2E_BUILD=1)"
  done
}

load_images() {
  local i refs=()
  for i in "${IMAGES[@]}"; do refs+=("$(image "$i")"); done
  # one archive for the three: their Java layers are shared and go in once (the node has no crictl, so
  # kind always loads; containerd skips the layers it has)
  step kind-load-videoedge kind load docker-image --name "$KIND_CLUSTER" "${refs[@]}"
}

install_prometheus_operator() {
  [ "$E2E_MONITORING" = 1 ] || { say "E2E_MONITORING=0: no Prometheus Operator"; return 0; }
  "$ROOT/hack/prometheus-up.sh"
}

# install_prometheus: the e2e's Prometheus (e2e/manifests/prometheus.yaml) with the image names of
# hack/prometheus-stack.sh, and wait until it is Available
install_prometheus() {
  local env="$VIDEOEDGE_CACHE/prometheus-operator/images.env"
  [ -s "$env" ] || die "$env missing: run 'make prometheus-up' first"
  # shellcheck disable=SC1090
  . "$env"
  sed -e "s|PROMETHEUS_IMAGE|$PROMETHEUS_IMAGE|" -e "s|PROMETHEUS_VERSION|$PROMETHEUS_VERSION|" \
    "$E2E_DIR/manifests/prometheus.yaml" | k apply -f -
  wait_until "Prometheus $PROM_NS/e2e Available" "$E2E_TIMEOUT" \
    k -n "$PROM_NS" wait --for=condition=Available prometheus/e2e --timeout=5s
}

monitoring_present() { k get crd podmonitors.monitoring.coreos.com >/dev/null 2>&1; }

# install_chart [EXTRA HELM ARGS]: the chart with small CPU requests (a 2-core node: 1900m allocatable,
# the control plane 760m, the Guaranteed edge server 1000m), monitoring on when the Prometheus
# Operator's CRDs exist, and images from make images.
install_chart() {
  local mon=false
  monitoring_present && mon=true
  helm upgrade --install "$RELEASE" "$ROOT/charts/videoedge" --namespace "$CHART_NS" --create-namespace \
    --wait --timeout "${E2E_TIMEOUT}s" \
    --set image.tag="$IMAGE_TAG" \
    --set operator.image.repository="${IMAGE_PREFIX}operator" \
    --set nodeAgent.image.repository="${IMAGE_PREFIX}node-tuning" \
    --set operator.edgeServerImage.repository="${IMAGE_PREFIX}edge-server" \
    --set operator.resources.requests.cpu=20m \
    --set nodeAgent.resources.requests.cpu=10m \
    --set monitoring.enabled="$mon" --set monitoring.interval=10s --set monitoring.labels.prometheus=e2e \
    "$@"
  # a rebuilt image under the same tag leaves the pod specs as they were, so helm rolls nothing: restart
  # what runs another image than the one just loaded (digests as the node's containerd knows them)
  local w i obj c want have
  for w in operator:deployment/$RELEASE-operator:operator node-tuning:daemonset/$RELEASE-node-agent:node-agent; do
    IFS=: read -r i obj c <<<"$w"
    want=$(node_image_digest "$(image "$i")")
    have=$(k -n "$CHART_NS" get pods -l "app.kubernetes.io/instance=$RELEASE,app.kubernetes.io/component=$c" \
      -o jsonpath='{range .items[*]}{.status.containerStatuses[*].imageID}{"\n"}{end}' | sed 's/.*@//' | sort -u)
    if [ -n "$want" ] && [ -n "$have" ] && [ "$have" != "$want" ]; then
      say "$obj runs ${have:0:19}..., not the loaded $(image "$i") (${want:0:19}...): restarting it"
      k -n "$CHART_NS" rollout restart "$obj"
      k -n "$CHART_NS" rollout status "$obj" --timeout="${E2E_TIMEOUT}s"
    fi
  done
  k -n "$CHART_NS" get pods -o wide
}

# The namespace of the VideoEdge, its TLS Secret (self-signed, for the node's IP), its URL signing key
# Secret (a random key under current), sample content in
# the node's server.contentPath (generated by the edge server image's SampleContent: HLS, DASH, TS, MP4,
# and 2 MiB / 16 MiB segments) and an origin for the cache (e2e/manifests/origin.yaml: the same set
# under /vod, served by the edge server image from a pod).
install_prerequisites() {
  k create namespace "$VE_NS" --dry-run=client -o yaml | k apply -f -
  if ! k -n "$VE_NS" get secret "$TLS_SECRET" >/dev/null 2>&1; then
    local d
    d=$(mktemp -d)
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj "/CN=edge.videoedge.test" \
      -addext "subjectAltName=DNS:edge.videoedge.test,IP:$(node_ip)" -keyout "$d/tls.key" -out "$d/tls.crt" 2>/dev/null
    k -n "$VE_NS" create secret tls "$TLS_SECRET" --cert "$d/tls.crt" --key "$d/tls.key"
    rm -rf "$d"
  fi
  if ! k -n "$VE_NS" get secret "$URL_KEYS_SECRET" >/dev/null 2>&1; then
    k -n "$VE_NS" create secret generic "$URL_KEYS_SECRET" --from-literal=current="$(openssl rand -hex 32)"
  fi
  if ! node_exec test -f "$CONTENT_PATH/bench/seg-16m.m4s"; then
    node_exec mkdir -p "$CONTENT_PATH"
    docker run --rm -e JDK_JAVA_OPTIONS= --entrypoint sh "$(image edge-server)" -c \
      'java -cp "/opt/videoedge/app.jar:/opt/videoedge/lib/*" io.videoedge.server.sample.SampleContent /tmp/content --bench >/dev/null && tar -C /tmp/content -cf - .' \
      | node_exec_i tar -C "$CONTENT_PATH" -xf -
  fi
  say "content in the node's $CONTENT_PATH: $(node_exec find "$CONTENT_PATH" -type f | wc -l) files, $(node_exec du -sh "$CONTENT_PATH" | cut -f1)"
  # the origin behind the cache (objects under /vod)
  sed "s|EDGE_SERVER_IMAGE|$(image edge-server)|" "$E2E_DIR/manifests/origin.yaml" | k apply -f -
  k -n "$VE_NS" rollout status deployment/origin --timeout="${E2E_TIMEOUT}s"
}

apply_videoedge() {
  k apply -f "$VE_MANIFEST"
  # an edge server still running an image that a rebuild replaced under the same tag: replace its pod
  local want p
  want=$(node_image_digest "$(image edge-server)")
  for p in $(edge_pods -o jsonpath='{range .items[*]}{.metadata.name}={.status.containerStatuses[0].imageID}{"\n"}{end}'); do
    if [ -n "$want" ] && [ "${p##*@}" != "$want" ] && [[ $p == *@* ]]; then
      say "pod ${p%%=*} runs an older $(image edge-server): deleting it (its DaemonSet makes a new one)"
      k -n "$VE_NS" delete pod "${p%%=*}"
    fi
  done
}

wait_videoedge_ready() {
  wait_until "VideoEdge $VE_NS/$VE_NAME Ready" "$E2E_TIMEOUT" \
    k -n "$VE_NS" wait --for=condition=Ready "ve/$VE_NAME" --timeout=5s
  k -n "$VE_NS" get ve "$VE_NAME" >&2
}

# delete_videoedge: delete it and wait until the agent restored the node (NodeTuning gone) and the
# VideoEdge's finalizer is released
delete_videoedge() {
  k -n "$VE_NS" get ve "$VE_NAME" >/dev/null 2>&1 || return 0
  k -n "$VE_NS" delete ve "$VE_NAME" --wait=false
  k wait --for=delete "nodetuning/$(node_name)" --timeout="${E2E_TIMEOUT}s" 2>/dev/null || true
  k -n "$VE_NS" wait --for=delete "ve/$VE_NAME" --timeout="${E2E_TIMEOUT}s"
  k -n "$VE_NS" wait --for=delete pod -l "videoedge.io/videoedge=$VE_NAME,app.kubernetes.io/component=edge-server" \
    --timeout="${E2E_TIMEOUT}s" 2>/dev/null || true
}

# ---- originals: the node's values before anything of ours ran, to compare after deletion
record_originals() {
  local f="$STATE_DIR/originals" n
  : >"$f"
  for n in "${NET_SYSCTLS[@]}" "${VM_SYSCTLS[@]}"; do
    printf '%s=%s\n' "$n" "$(node_sysctl "$n")" >>"$f"
  done
  say "node values before install ($f):"
  sed 's/^/  /' "$f" >&2
}
original() { sed -n "s/^$1=//p" "$STATE_DIR/originals"; }

# Last resort after a failed run: vm.* sysctls are global to this machine's kernel, and a run that
# failed before the agent restored them must not leave them changed. Only when a value differs from
# the one recorded before install; says so loudly, because the agent should have done it.
restore_global_sysctls() {
  [ -s "$STATE_DIR/originals" ] || return 0
  local n want have
  for n in "${VM_SYSCTLS[@]}"; do
    want=$(original "$n"); have=$(node_sysctl "$n" 2>/dev/null || sysctl -n "$n")
    if [ -n "$want" ] && [ "$want" != "$have" ]; then
      say "WARNING: $n is $have, was $want before the e2e: writing it back by hand (the agent did not)"
      node_exec sysctl -qw "$n=$want" 2>/dev/null || sysctl -qw "$n=$want"
    fi
  done
}

# nt_setting NAME FIELD [JSON]: a field (desired, actual, original, state, message) of one setting in
# the node's NodeTuning status, e.g. nt_setting sysctl/vm.swappiness original; from JSON (nt_json's
# output) when given, so that many settings are read from one fetch
nt_setting() {
  jq -r --arg n "$1" --arg f "$2" '.status.settings[]? | select(.name == $n) | .[$f] // empty' <<<"${3:-$(nt_json)}"
}
# the sysctls the VideoEdge declares, one "name=value" a line
ve_sysctls() { k -n "$VE_NS" get ve "$VE_NAME" -o json | jq -r '.spec.tuning.sysctls // {} | to_entries[] | "\(.key)=\(.value)"'; }
# the edge server's java process in the node (its PID in the node's PID namespace)
# (the origin runs the same image: pick the process in the edge-server pod's cgroup)
edge_pid() {
  local uid
  uid=$(edge_pods -o jsonpath='{.items[0].metadata.uid}')
  node_exec sh -c "for p in \$(pgrep -f '^java .*io.videoedge.server.EdgeServerMain'); do
    grep -qE 'pod(${uid}|${uid//-/_})' /proc/\$p/cgroup && echo \$p; done" | head -n1
}

# ---- the edge pods' readiness gate, every change of it (scenarios 60 and f25): a poll can miss a gate
# that a rollout closes for drainSeconds only, a watch sees each update. In $STATE_DIR/gates from
# gate_watch_start until gate_watch_stop, a line per change of an edge pod as the watch sees it:
# NODE GATE-REASON READY [DELETION] (the pod's Ready status; its deletionTimestamp once it is being deleted).
gate_watch_start() {
  : >"$STATE_DIR/gates"
  # exec: GATE_WATCH is kubectl's own PID, so gate_watch_stop ends the watch itself
  (exec "$BIN_DIR/kubectl" -n "$VE_NS" get pods -l "$(edge_pods_selector)" \
    -w -o jsonpath='{.spec.nodeName} {.status.conditions[?(@.type=="videoedge.io/node-tuned")].reason} {.status.conditions[?(@.type=="Ready")].status} {.metadata.deletionTimestamp}{"\n"}') \
    >>"$STATE_DIR/gates" 2>/dev/null &
  GATE_WATCH=$!
}
gate_watch_stop() { kill "$GATE_WATCH" 2>/dev/null || true; wait "$GATE_WATCH" 2>/dev/null || true; }
# drained_on NODE: its old pod was out of service (Ready False) with its gate Draining before the watch first
# saw it being deleted (its eviction); an eviction in the pass that closes the gate fails this
drained_on() {
  awk -v n="$1" '$1 != n { next }
    $2 == "Draining" && $3 == "False" && $4 == "" { out = 1 }
    $4 != "" { deleted = 1; exit }
    END { exit !(out && deleted) }' "$STATE_DIR/gates"
}

# ---- live reconfigure checks (scenario 60 and the fleet's f40)
# sockets IP: the edge server's GET /sockets (live sockets' options by getsockopt)
sockets() { curl -fsS --max-time 5 "http://$1:$ADMIN_PORT/sockets"; }
# start_download IP PORT PATH FILE: a slow download (400 KiB/s: a 16 MiB object takes 40 s) in the background; its PID in DOWNLOAD,
# once the server shows it as a session
start_download() {
  rm -f "$4"
  curl -sS --max-time 180 --limit-rate 400K -o "$4" "http://$1:$2$3" &
  DOWNLOAD=$!
  wait_until "a download from $1:$2 is in flight" 30 \
    sh -c "curl -fsS --max-time 5 'http://$1:$ADMIN_PORT/sockets' | jq -e '[.sessions.items[] | select(.localPort == $2)] | length > 0'"
}
# reloads_applied IP: how many config reloads the server at IP applied live
reloads_applied() {
  curl -fsS --max-time 5 "http://$1:$ADMIN_PORT/metrics" | awk '/^videoedge_config_reloads_total\{result="applied"\}/ {print int($2)}'
}
# new_connection_options IP PORT: open a connection, keep it busy, and print its socket's options (JSON)
new_connection_options() {
  local ip=$1 port=$2 before
  before=$(sockets "$ip" | jq -c "[.sessions.items[] | select(.localPort == $port) | .remote]")
  exec 7<>"/dev/tcp/$ip/$port"
  printf 'GET /bench/seg-16m.m4s HTTP/1.1\r\nHost: e2e\r\n\r\n' >&7
  sleep 0.5
  sockets "$ip" | jq -c --argjson before "$before" \
    "[.sessions.items[] | select(.localPort == $port and (.remote as \$r | \$before | index(\$r) | not))][0] // empty"
  exec 7>&-
}
