#!/bin/bash
# The Debian base image every VideoEdge Dockerfile (and the offline kind node image) starts FROM.
# Present locally: kept. Missing: a normal `docker pull` when a registry answers; otherwise built here
# from Debian's package archive with `debootstrap --variant=minbase` + `docker import`, under the
# same name, so the Dockerfiles are identical either way.
#   BASE_IMAGE=debian:trixie-slim   image to provide; the suite is taken from its tag (<suite>-slim)
#   IMAGE_SOURCE=auto|pull|build    auto: pull, else build; pull: pull only; build: never pull
#   FORCE=1                         rebuild with debootstrap even when the image exists
#   DEBIAN_MIRROR                   debootstrap's mirror (default: debootstrap's own, deb.debian.org)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

BASE_IMAGE=${BASE_IMAGE:-debian:trixie-slim}
IMAGE_SOURCE=${IMAGE_SOURCE:-auto}
FORCE=${FORCE:-0}
suite=${BASE_IMAGE##*:}; suite=${suite%-slim}
need_docker

if [ "$FORCE" != 1 ] && docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  log "$BASE_IMAGE present ($(img_size "$BASE_IMAGE"))"
  exit 0
fi
if [ "$FORCE" != 1 ] && pull_image "$BASE_IMAGE"; then
  finish; exit 0
fi
[ "$IMAGE_SOURCE" != pull ] || die "cannot pull $BASE_IMAGE (IMAGE_SOURCE=pull)"
need_cmd debootstrap tar

build() {
  local root="$VIDEOEDGE_CACHE/build/rootfs-$suite"
  $SUDO rm -rf "$root"
  # minbase: essential packages + apt, about what the official -slim images hold
  $SUDO debootstrap --variant=minbase "$suite" "$root" ${DEBIAN_MIRROR:-}
  # as in the official images: no apt lists or caches (every Dockerfile runs apt-get update first)
  $SUDO chroot "$root" apt-get clean
  $SUDO rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/log/apt/* "$root"/var/log/*.log
  $SUDO mkdir -p "$root/var/lib/apt/lists/partial"
  $SUDO tar -C "$root" --numeric-owner -c . | docker import \
    -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    -c 'CMD ["bash"]' \
    -c "LABEL io.videoedge.base.source=debootstrap-minbase io.videoedge.base.suite=$suite" \
    -m "debootstrap --variant=minbase $suite (hack/base-image.sh)" - "$BASE_IMAGE"
  $SUDO rm -rf "$root"
  docker run --rm "$BASE_IMAGE" sh -c '. /etc/os-release && echo "$PRETTY_NAME, Debian $(cat /etc/debian_version)"'
}
log "building $BASE_IMAGE with debootstrap from Debian's archive (about 30-60 s)"
old_id=$(image_id "$BASE_IMAGE")
step "base-image-$suite" build
drop_if_dangling "$old_id"
log "$BASE_IMAGE built: $(tail -n 1 "$VIDEOEDGE_CACHE/logs/base-image-$suite.log"), $(img_size "$BASE_IMAGE")"
finish
