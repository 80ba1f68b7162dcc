#!/bin/bash
# Make sure a Docker daemon answers and can run kind's privileged node containers (for CI and fresh
# machines; on a workstation with a running Docker this only checks it). When no daemon answers, it
# starts dockerd in the background; on machines whose capability bounding set lacks capabilities
# Docker grants privileged containers (typically CAP_SYS_RESOURCE) it makes hack/runc-capfix the
# daemon's default runtime. The daemon config lives in $VIDEOEDGE_CACHE/docker; nothing under /etc
# is changed. Packages: docker.io and jq (DEPS_SET=all make deps installs them).
#   DOCKERD_WAIT=60   seconds to wait for the daemon to answer
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DOCKERD_WAIT=${DOCKERD_WAIT:-60}
D="$VIDEOEDGE_CACHE/docker"
mkdir -p "$D"
need_cmd docker jq

if docker info >/dev/null 2>&1; then
  log "a Docker daemon answers (default runtime: $(docker info --format '{{.DefaultRuntime}}'))"
else
  need_cmd dockerd runc
  cfg='{}'
  [ -r /etc/docker/daemon.json ] && cfg=$(jq -c . /etc/docker/daemon.json)
  missing=$(missing_caps)
  if [ -n "$missing" ]; then
    log "the capability bounding set $(cap_bounding_set) lacks capabilities privileged containers get ($missing): runtime runc-capfix"
    install -m 755 "$ROOT/hack/runc-capfix" "$D/runc-capfix"
    cfg=$(jq -c --arg p "$D/runc-capfix" '.runtimes["runc-capfix"] = {path: $p} | .["default-runtime"] = "runc-capfix"' <<<"$cfg")
  fi
  printf '%s\n' "$cfg" >"$D/daemon.json"
  log "starting dockerd (log: $VIDEOEDGE_CACHE/logs/dockerd.log)"
  $SUDO setsid nohup dockerd --config-file "$D/daemon.json" -p "$D/dockerd.pid" \
    </dev/null >>"$VIDEOEDGE_CACHE/logs/dockerd.log" 2>&1 &
  for ((i = 0; i < DOCKERD_WAIT * 2; i++)); do
    docker info >/dev/null 2>&1 && break
    sleep 0.5 # polling for the daemon's socket; there is no event to wait on
  done
  docker info >/dev/null 2>&1 || { tail -n 20 "$VIDEOEDGE_CACHE/logs/dockerd.log" >&2; die "dockerd did not answer within ${DOCKERD_WAIT}s"; }
  log "dockerd up (PID $(cat "$D/dockerd.pid"), default runtime $(docker info --format '{{.DefaultRuntime}}')); stop it: kill \$(cat $D/dockerd.pid)"
fi
"$ROOT/hack/docker-check.sh"
finish
