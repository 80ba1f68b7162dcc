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

need_cmd() { local c; for c in "$@"; do command -v "$c" >/dev/null 2>&1 || die "'$c' not found; run 'make deps' (Debian packages) first"; done; }

go_arch() { go env GOARCH 2>/dev/null || { case $(uname -m) in x86_64) echo amd64;; aarch64) echo arm64;; *) uname -m;; esac; }; }

# Directory of a module version in the Go module cache (fetched through the Go module proxy if needed).
mod_dir() { go mod download -json "$1" | jq -r '.Dir // empty'; }

finish() { log "done in $(( $(date +%s) - T_START ))s"; }
