#!/bin/bash
# Can this Docker daemon run kind nodes? kind runs every node as a --privileged container, and
# Docker grants privileged containers (and `docker exec` into them) every capability up to
# cap_last_cap. Where the capability bounding set lacks one (typically CAP_SYS_RESOURCE: some VMs,
# CI sandboxes, nested containers) runc cannot raise it and every kind node fails with
#   OCI runtime create failed: ... unable to apply caps: operation not permitted
# unless the daemon's runtime drops the missing capabilities first (a runc wrapper). This script
# detects that case by really starting a privileged container, and says what to do. Exit 0: fine.
#   DOCKER_RUNTIME=NAME  check that runtime instead of the daemon's default (docker run --runtime)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

need_docker

# 1. the capability bounding set
bits=$(missing_caps)
[ "$bits" != 24 ] || bits="24 (CAP_SYS_RESOURCE)"

# 2. a real privileged container: an empty image and a command that does not exist. A daemon that
#    cannot apply the capabilities fails before looking for the command ("unable to apply caps");
#    a working one gets as far as "no such file". No image download, no image content needed.
probe=videoedge.local/docker-check:empty
docker image inspect "$probe" >/dev/null 2>&1 || tar -cf - --files-from /dev/null | docker import - "$probe" >/dev/null
out=$(docker run --rm --privileged --network none ${DOCKER_RUNTIME:+--runtime "$DOCKER_RUNTIME"} "$probe" /videoedge-docker-check 2>&1 || true)

if grep -q 'apply caps' <<<"$out"; then
  rt=${DOCKER_RUNTIME:-$(docker info --format '{{.DefaultRuntime}}' 2>/dev/null || echo '?')}
  log "ERROR: this Docker daemon cannot start privileged containers, so kind cannot start its nodes:"
  log "  $(grep -m1 'apply caps' <<<"$out")"
  log "  this machine's capability bounding set ($(cap_bounding_set)) lacks capability $bits, which Docker"
  log "  grants privileged containers, and the runtime ($rt) does not drop it."
  log "Fix: give dockerd a runc wrapper that removes the capabilities missing from the bounding set from"
  log "  the container spec (create/run) and the process spec (exec), then execs the real runc, and make"
  log "  it the default runtime, e.g. in /etc/docker/daemon.json:"
  log '    {"runtimes": {"runc-capfix": {"path": "/usr/local/bin/runc-capfix"}}, "default-runtime": "runc-capfix"}'
  log "  after 'install -m 755 $ROOT/hack/runc-capfix /usr/local/bin/runc-capfix' (needs jq), and restart"
  log "  dockerd. Nothing else is needed: the offline kind node image already copes inside the node."
  exit 1
elif ! grep -q -e 'no such file' -e 'not found' <<<"$out"; then
  log "ERROR: a privileged test container failed in an unexpected way:"
  printf '%s\n' "$out" | head -n 5 >&2
  exit 1
fi

if [ -n "$bits" ]; then
  log "capability bounding set lacks capability $bits, but the daemon's runtime ($(docker info --format '{{.DefaultRuntime}}')) copes: privileged containers start"
fi

# 3. cheap hints for known kind trouble (warnings only)
w=$(cat /proc/sys/fs/inotify/max_user_watches 2>/dev/null || echo 0)
i=$(cat /proc/sys/fs/inotify/max_user_instances 2>/dev/null || echo 0)
if (( w < 524288 || i < 512 )); then
  log "warning: low inotify limits (max_user_watches=$w, max_user_instances=$i); kind may fail with 'too many open files'."
  log "  raise them: sysctl -w fs.inotify.max_user_watches=524288 fs.inotify.max_user_instances=512"
fi
log "Docker $(docker version --format '{{.Server.Version}}'): privileged containers work (cgroup v$(docker info --format '{{.CgroupVersion}}'))"
