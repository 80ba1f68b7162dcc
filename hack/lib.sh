# shellcheck shell=bash disable=SC2034
# Shared helpers for hack/ scripts (sourced). Strict mode is the caller's.
# Everything built from source is cached under $VIDEOEDGE_CACHE; tools land in $BIN_DIR.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VIDEOEDGE_CACHE=${VIDEOEDGE_CACHE:-$HOME/.cache/videoedge}
BIN_DIR=${BIN_DIR:-$ROOT/bin}
SCRIPT_NAME=$(basename "$0" .sh)
T_START=$(date +%s)
mkdir -p "$VIDEOEDGE_CACHE/logs" "$BIN_DIR"
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi

log() { printf '[%s %4ss] %s\n' "$SCRIPT_NAME" "$(( $(date +%s) - T_START ))" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# step NAME CMD...: run CMD with its output in $VIDEOEDGE_CACHE/logs/NAME.log; on failure show the tail.
step() {
  local name=$1; shift
  local logf="$VIDEOEDGE_CACHE/logs/$name.log" s rc=0
  s=$(date +%s)
  log "$name ..."
  set +e
  ( set -e; "$@" ) >"$logf" 2>&1
  rc=$?
  set -e
  if [ "$rc" -ne 0 ]; then
    log "FAILED: $name (rc=$rc), last lines of $logf:"
    tail -n 30 "$logf" >&2
    return "$rc"
  fi
  log "$name done in $(( $(date +%s) - s ))s"
}

need_cmd() { local c; for c in "$@"; do command -v "$c" >/dev/null 2>&1 || die "'$c' not found; install it first (Debian packages: DEPS_SET=all make deps; Go: README.md, Prerequisites)"; done; }

go_arch() { go env GOARCH 2>/dev/null || { case $(uname -m) in x86_64) echo amd64;; aarch64) echo arm64;; *) uname -m;; esac; }; }

# Directory of a module version in the Go module cache (fetched through the Go module proxy if needed).
mod_dir() { go mod download -json "$1" | jq -r '.Dir // empty'; }

finish() { log "done in $(( $(date +%s) - T_START ))s"; }

# ---- images and Docker (used by the image and cluster scripts)

# VideoEdge's own images: $IMAGE_PREFIX<component>:$IMAGE_TAG (the chart's appVersion unless set)
IMAGE_PREFIX=${IMAGE_PREFIX:-videoedge/}
IMAGE_TAG=${IMAGE_TAG:-$(awk '/^appVersion:/ {gsub(/"/, "", $2); print $2}' "$ROOT/charts/videoedge/Chart.yaml")}

need_docker() {
  need_cmd docker
  docker info >/dev/null 2>&1 || die "no Docker daemon answers ('docker info' fails): start Docker first (see hack/README.md)"
}

# Docker grants privileged containers every capability up to cap_last_cap; where this machine's
# bounding set lacks some, only a runtime that drops them (hack/runc-capfix) can start kind nodes.
# cap_bounding_set: this process's bounding set (0x...). missing_caps: the capability numbers up to
# cap_last_cap that it lacks, comma-separated (empty: none).
cap_bounding_set() { printf '0x%x\n' "$((16#$(awk '/^CapBnd/ {print $2}' /proc/self/status)))"; }
missing_caps() {
  local bnd last c out=""
  bnd=$(cap_bounding_set); last=$(cat /proc/sys/kernel/cap_last_cap)
  for ((c = 0; c <= last; c++)); do (( bnd >> c & 1 )) || out+="${out:+,}$c"; done
  echo "$out"
}

# image_label IMAGE KEY: the label's value on a local image (empty when the image or label is missing).
image_label() { docker image inspect "$1" --format "{{index .Config.Labels \"$2\"}}" 2>/dev/null || true; }

# pull_image IMAGE: `docker pull` when a registry answers. Air-gapped machines must not wait for a network
# timeout, so the pull is abandoned when it shows no sign of a registry ("Pulling from ...") within
# PULL_PROBE_SECONDS (default 20); once a registry answers, the download may take as long as it needs.
# IMAGE_SOURCE=build never pulls. Returns 1 when the image could not be pulled.
pull_image() {
  local img=$1 logf pid waited=0 probe=${PULL_PROBE_SECONDS:-20}
  [ "${IMAGE_SOURCE:-auto}" != build ] || return 1
  logf="$VIDEOEDGE_CACHE/logs/pull-$(tr -c 'A-Za-z0-9.-' '_' <<<"$img").log"
  log "trying 'docker pull $img' (IMAGE_SOURCE=build skips this)"
  : >"$logf"
  docker pull "$img" >>"$logf" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null && ! grep -q -e 'Pulling from' -e '^Digest:' "$logf"; do
    if (( waited >= probe * 10 )); then
      kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
      log "no registry answered within ${probe}s: building $img here instead"
      return 1
    fi
    sleep 0.1; waited=$((waited + 1))
  done
  if wait "$pid"; then log "pulled $img"; return 0; fi
  log "pull failed ($(tail -n 1 "$logf")): building $img here instead"
  return 1
}

# img_size IMAGE: size in MB as `docker images` counts it.
img_size() { echo "$(( $(docker image inspect "$1" --format '{{.Size}}') / 1000000 )) MB"; }

# image_id IMAGE: the local image's ID (empty when missing). drop_if_dangling ID: remove an image that a
# rebuild left without a name (a replaced recipe), unless a container still uses it.
image_id() { docker image inspect "$1" --format '{{.Id}}' 2>/dev/null || true; }
drop_if_dangling() {
  [ -n "$1" ] || return 0
  [ -z "$(docker image inspect "$1" --format '{{join .RepoTags ","}}' 2>/dev/null)" ] || return 0
  docker rmi "$1" >/dev/null 2>&1 || true
}

# ---- the kind cluster (hack/kind-up.sh makes it; its kubeconfig is its own, ~/.kube/config is never touched)
KIND_CLUSTER=${KIND_CLUSTER:-videoedge}
KIND_KUBECONFIG=${KIND_KUBECONFIG:-$VIDEOEDGE_CACHE/kind/$KIND_CLUSTER/kubeconfig}
k() { "$BIN_DIR/kubectl" "$@"; }
