#!/bin/bash
# kind's node image, kindest/node:v$KUBE_VERSION, for clusters on machines without a container registry.
# In order: the local image (kept), a zstd copy saved by an earlier build (loaded in seconds), a normal
# `docker pull` when a registry answers, and otherwise an offline build that needs only Debian's archive
# and the Go module proxy:
#   - node base: Debian packages (systemd, containerd, runc, CNI plugins, iptables; hack/kind-node/Dockerfile)
#     + the node files of kind's own image (entrypoint, units, containerd config) from kind's Go module,
#     with containerd's config patched: our pause image, restrict_oom_score_adj = true (see below),
#     no fuse-overlayfs proxy plugin (rootless only);
#   - kubelet, kubeadm, kubectl from hack/k8s-binaries.sh, /kind/version;
#   - pre-loaded in the node's containerd (k8s.io namespace, pinned), so a cluster starts with no pull:
#     every image `kubeadm config images list` names (kube-apiserver, -controller-manager, -scheduler,
#     etcd, coredns, pause: FROM scratch + one static binary; kube-proxy: Debian + iptables) and the
#     kindnet-lite CNI (hack/kind-node/kindnet-lite.sh, replacing kindnetd).
# restrict_oom_score_adj: where the capability bounding set lacks CAP_SYS_RESOURCE, nothing may lower its
# oom_score_adj, and containerd's request of -998 for every pod sandbox fails ("can't get final child's
# PID from pipe: EOF"). The setting clamps it to containerd's own score (-999 on ordinary machines, so
# nothing changes there). kind sets it the same way for rootless nodes.
# The image is labelled with a hash of this script, hack/kind-node/ and the versions: a changed recipe
# rebuilds it.
#   KIND_NODE_IMAGE       image name (default kindest/node:v$KUBE_VERSION)
#   IMAGE_SOURCE          auto (default) | pull (no build) | build (never pull)
#   FORCE=1               build even when the image or a saved copy exists
#   NODE_BASE_IMAGE       Debian image the node and kube-proxy start from (default debian:trixie-slim)
#   NODE_IMAGE_SAVE=0     do not keep the zstd copy ($VIDEOEDGE_CACHE/images, about 300 MB)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KUBE_VERSION=${KUBE_VERSION:-1.34.4}
ETCD_VERSION=${ETCD_VERSION:-3.6.5}          # as in hack/k8s-binaries.sh
KIND_VERSION=${KIND_VERSION:-v0.33.0}        # the node files come from this kind's Go module
NODE_IMAGE=${KIND_NODE_IMAGE:-kindest/node:v$KUBE_VERSION}
NODE_BASE_IMAGE=${NODE_BASE_IMAGE:-debian:trixie-slim}
IMAGE_SOURCE=${IMAGE_SOURCE:-auto}
FORCE=${FORCE:-0}
NODE_IMAGE_SAVE=${NODE_IMAGE_SAVE:-1}
export IMAGE_SOURCE KUBE_VERSION ETCD_VERSION
KN="$ROOT/hack/kind-node"
LABEL=io.videoedge.kind-node.recipe
KINDNET_LITE_IMAGE=videoedge.local/kindnet-lite:1    # as in hack/kind-node/default-cni.yaml
need_docker

RECIPE=$( { cd "$ROOT/hack" && cat kind-node-image.sh kind-node/*
            echo "$KUBE_VERSION $ETCD_VERSION $KIND_VERSION $NODE_BASE_IMAGE"; } | sha256sum | cut -c1-16)
SAVED="$VIDEOEDGE_CACHE/images/$(tr -c 'A-Za-z0-9.-' '_' <<<"$NODE_IMAGE")$RECIPE.tar.zst"

# a zstd copy of a built image, for a quick reload (a new clone, a pruned Docker, a CI cache)
save_copy() {
  [ "$NODE_IMAGE_SAVE" = 1 ] && [ ! -s "$SAVED" ] || return 0
  save() {
    # level 3 with a 128 MB window: 290 MB in ~15 s (-9 --long=31: 210 MB, but 4x slower; a window
    # above 128 MB would also need --long=31 when loading)
    docker save "$NODE_IMAGE" | zstd -q -T0 -"${ZSTD_LEVEL:-3}" --long=27 -o "$SAVED.tmp"
    mv "$SAVED.tmp" "$SAVED"
    # older recipes of the same image
    find "$VIDEOEDGE_CACHE/images" -name "$(tr -c 'A-Za-z0-9.-' '_' <<<"$NODE_IMAGE")*.tar.zst" ! -name "$(basename "$SAVED")" -delete
  }
  step kind-node-save save
  log "saved $SAVED ($(( $(stat -c %s "$SAVED") / 1000000 )) MB)"
}

# ---- 1. what is already here
if [ "$FORCE" != 1 ] && docker image inspect "$NODE_IMAGE" >/dev/null 2>&1; then
  have=$(image_label "$NODE_IMAGE" "$LABEL")
  if [ "$have" = "$RECIPE" ]; then
    log "$NODE_IMAGE present (recipe $RECIPE)"; save_copy; exit 0
  elif [ -z "$have" ]; then
    log "$NODE_IMAGE present, not built by this script (pulled, or built elsewhere): using it (FORCE=1 builds it here)"
    exit 0
  fi
  log "$NODE_IMAGE was built from another recipe ($have, now $RECIPE)"
fi
if [ "$FORCE" != 1 ] && [ -s "$SAVED" ]; then
  log "loading $NODE_IMAGE from $SAVED"
  zstd -q -d -c "$SAVED" | docker load >/dev/null
  if [ "$(image_label "$NODE_IMAGE" "$LABEL")" = "$RECIPE" ]; then finish; exit 0; fi
  log "the saved copy does not hold $NODE_IMAGE with recipe $RECIPE: building"
fi
if [ "$FORCE" != 1 ] && pull_image "$NODE_IMAGE"; then
  finish; exit 0
fi
[ "$IMAGE_SOURCE" != pull ] || die "cannot pull $NODE_IMAGE (IMAGE_SOURCE=pull)"

# ---- 2. offline build
need_cmd go jq gcc zstd sha256sum
log "building $NODE_IMAGE offline (recipe $RECIPE): Kubernetes v$KUBE_VERSION, kind $KIND_VERSION node files, $NODE_BASE_IMAGE"
K8S="$VIDEOEDGE_CACHE/k8s/v$KUBE_VERSION"
NB="$VIDEOEDGE_CACHE/kind-node/bin"
TMP_REPO=videoedge.local/kind-build             # build-time names, removed at the end
BASE_TAG="$TMP_REPO/node-base:$RECIPE"
mkdir -p "$NB" "$VIDEOEDGE_CACHE/images" "$VIDEOEDGE_CACHE/build"

# node base: Debian packages + kind's node files; needs neither Go nor the Kubernetes binaries, so it is
# built in the background (mostly download and disk work) while Go compiles in the foreground
build_base() {
  local ctx="$VIDEOEDGE_CACHE/build/kind-node-base" kind f
  rm -rf "$ctx"; mkdir -p "$ctx"
  kind=$(mod_dir "sigs.k8s.io/kind@$KIND_VERSION")
  [ -d "$kind/images/base/files" ] || { echo "sigs.k8s.io/kind@$KIND_VERSION has no images/base/files"; return 1; }
  cp -r "$kind/images/base/files" "$ctx/files"; chmod -R u+w "$ctx/files"
  f="$ctx/files/etc/containerd/config.toml"
  rm -f "$ctx/files/etc/systemd/system/containerd-fuse-overlayfs.service"
  sed -i -e '/^\[proxy_plugins\]/,/^$/d' -e 's/^\(\s*restrict_oom_score_adj\s*=\s*\).*/\1true/' "$f"
  grep -q '^\s*restrict_oom_score_adj = true$' "$f" || { echo "cannot set restrict_oom_score_adj in $f"; return 1; }
  if grep -q fuse-overlayfs "$f"; then echo "fuse-overlayfs still in $f"; return 1; fi
  mkdir -p "$ctx/files/kind/manifests"
  cp "$KN/default-cni.yaml" "$KN/default-storage.yaml" "$ctx/files/kind/manifests/"
  cp "$KN/Dockerfile" "$ctx/"
  docker build --build-arg BASE="$NODE_BASE_IMAGE" -t "$BASE_TAG" "$ctx"
  rm -rf "$ctx"
}
base_bg() { # the Debian base image, then the node base (both skipped when present)
  BASE_IMAGE="$NODE_BASE_IMAGE" "$ROOT/hack/base-image.sh"
  if docker image inspect "$BASE_TAG" >/dev/null 2>&1; then log "$BASE_TAG present"; else step kind-node-base build_base; fi
}
base_bg & base_pid=$!
trap 'kill $base_pid 2>/dev/null || true' EXIT

# Kubernetes binaries (one go build for all of them), coredns, pause
KUBE_CMDS="kubelet kubeadm kubectl kube-apiserver kube-controller-manager kube-scheduler kube-proxy etcd" \
  "$ROOT/hack/k8s-binaries.sh"
mapfile -t IMAGES < <("$K8S/kubeadm" config images list --kubernetes-version "v$KUBE_VERSION")
ref() { # component -> the image reference kubeadm expects, e.g. coredns -> registry.k8s.io/coredns/coredns:v1.12.1
  local i; for i in "${IMAGES[@]}"; do [ "$(basename "${i%:*}")" = "$1" ] && { echo "$i"; return; }; done
  die "kubeadm's image list has no $1: ${IMAGES[*]}"
}
PAUSE_IMAGE=$(ref pause); COREDNS_VERSION=$(ref coredns); COREDNS_VERSION=${COREDNS_VERSION##*:}
log "kubeadm v$KUBE_VERSION expects: ${IMAGES[*]}"
# coredns with the plugins of kubeadm's Corefile and a few common extras, instead of all ~70 (cloud DNS
# SDKs...): a third less CPU in a cold build (210 CPU-s instead of 300; the kubernetes plugin's client-go
# is most of the rest), a 50 MB binary instead of 75.
# (package names under plugin/: the "prometheus" directive is the metrics package)
COREDNS_PLUGINS="errors log health ready kubernetes metrics forward cache loop reload loadbalance hosts rewrite"
build_coredns() {
  local d="$VIDEOEDGE_CACHE/build/coredns" p
  rm -rf "$d"; mkdir -p "$d"; cd "$d"
  printf 'module local/coredns\n\ngo 1.24\n' >go.mod
  { printf '// CoreDNS %s with selected plugins (hack/kind-node-image.sh)\npackage main\n\nimport (\n' "$COREDNS_VERSION"
    for p in $COREDNS_PLUGINS; do printf '\t_ "github.com/coredns/coredns/plugin/%s"\n' "$p"; done
    printf '\n\t"github.com/coredns/coredns/coremain"\n)\n\nfunc main() { coremain.Run() }\n'; } >main.go
  go get "github.com/coredns/coredns@$COREDNS_VERSION"
  go mod tidy
  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$NB/coredns" .
  "$NB/coredns" -plugins
  cd /; rm -rf "$d"
}
if [ "$("$NB/coredns" -version 2>/dev/null | sed -n 's/^CoreDNS-//p')" != "${COREDNS_VERSION#v}" ] \
   || [ "$(cat "$NB/coredns.plugins" 2>/dev/null)" != "$COREDNS_PLUGINS" ]; then
  step coredns-build build_coredns
  echo "$COREDNS_PLUGINS" >"$NB/coredns.plugins"
fi
if [ ! "$NB/pause" -nt "$KN/pause.c" ]; then
  step pause-build gcc -Os -static -s -o "$NB/pause" "$KN/pause.c"
fi

# component images, under build-time names (renamed inside the node): FROM scratch + one static binary
# made with `docker import`, and kube-proxy/kindnet-lite on a Debian layer with the network tools
static_image() { # name binary [entrypoint-json [user]]
  local root="$VIDEOEDGE_CACHE/build/img-$1"
  rm -rf "$root"; mkdir -p "$root/etc" "$root/tmp" "$root/usr/local/bin"; chmod 1777 "$root/tmp"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnobody:x:65534:\n' >"$root/etc/group"
  cp "$2" "$root/usr/local/bin/"
  tar -C "$root" --numeric-owner --owner=0 --group=0 -c . | docker import \
    -c 'ENV PATH=/usr/local/bin:/usr/bin:/bin' ${3:+-c "ENTRYPOINT $3"} ${4:+-c "USER $4"} - "$TMP_REPO/$1:$RECIPE" >/dev/null
  rm -rf "$root"
}
build_components() {
  local c ctx="$VIDEOEDGE_CACHE/build/kind-node-net"
  # kubeadm's static pods and DaemonSets give the command (on PATH); coredns and pause use the entrypoint
  for c in kube-apiserver kube-controller-manager kube-scheduler etcd; do static_image "$c" "$K8S/$c"; done
  static_image coredns "$NB/coredns" '["/usr/local/bin/coredns"]'
  static_image pause "$NB/pause" '["/usr/local/bin/pause"]' 65535:65535
  rm -rf "$ctx"; mkdir -p "$ctx"
  cp "$K8S/kube-proxy" "$KN/kindnet-lite.sh" "$ctx/"
  docker build --build-arg BASE="$NODE_BASE_IMAGE" -t "$TMP_REPO/net-tools:$RECIPE" -f "$KN/net-tools.Dockerfile" "$ctx"
  printf 'FROM %s\nCOPY kube-proxy /usr/local/bin/kube-proxy\n' "$TMP_REPO/net-tools:$RECIPE" \
    | docker build -t "$TMP_REPO/kube-proxy:$RECIPE" -f - "$ctx"
  printf 'FROM %s\nCOPY kindnet-lite.sh /usr/local/bin/kindnet-lite\nENTRYPOINT ["/usr/local/bin/kindnet-lite"]\n' "$TMP_REPO/net-tools:$RECIPE" \
    | docker build -t "$TMP_REPO/kindnet-lite:$RECIPE" -f - "$ctx"
  rm -rf "$ctx"
}
# the kube-proxy image starts FROM $NODE_BASE_IMAGE: wait until base-image.sh (background) has it
until docker image inspect "$NODE_BASE_IMAGE" >/dev/null 2>&1; do
  kill -0 $base_pid 2>/dev/null || { wait $base_pid || true; die "no $NODE_BASE_IMAGE (see the base-image lines above)"; }
  sleep 1
done
step kind-node-components build_components

log "waiting for the node base image"
wait $base_pid || die "building the node base image failed (logs in $VIDEOEDGE_CACHE/logs)"
trap - EXIT

# assemble: base + kubelet/kubeadm/kubectl + sandbox image name + /kind/version, then the images
# imported into containerd's k8s.io namespace and renamed to what kubeadm expects
assemble() {
  local ctx="$VIDEOEDGE_CACHE/build/kind-node" cid stage="$TMP_REPO/node-stage:$RECIPE" c tmp=() final=()
  rm -rf "$ctx"; mkdir -p "$ctx"
  cp "$K8S/kubelet" "$K8S/kubeadm" "$K8S/kubectl" "$ctx/"
  cat >"$ctx/Dockerfile" <<DOCKERFILE
FROM $BASE_TAG
COPY kubelet kubeadm kubectl /usr/bin/
RUN sed -i 's|^\(\s*sandbox_image\s*=\s*\).*|\1"$PAUSE_IMAGE"|' /etc/containerd/config.toml \\
    && grep -qF 'sandbox_image = "$PAUSE_IMAGE"' /etc/containerd/config.toml \\
    && printf '%s' v$KUBE_VERSION >/kind/version
DOCKERFILE
  docker build -t "$stage" "$ctx"
  for c in kube-apiserver kube-controller-manager kube-scheduler kube-proxy etcd coredns pause; do
    tmp+=("$TMP_REPO/$c:$RECIPE"); final+=("$(ref "$c")")
  done
  tmp+=("$TMP_REPO/kindnet-lite:$RECIPE"); final+=("$KINDNET_LITE_IMAGE")
  cid=$(docker run -d --security-opt seccomp=unconfined --entrypoint sleep "$stage" infinity)
  # shellcheck disable=SC2064
  trap "docker rm -f $cid >/dev/null 2>&1 || true" EXIT    # (step runs this function in a subshell)
  docker exec -d "$cid" containerd
  for ((c = 0; c < 100; c++)); do docker exec "$cid" ctr version >/dev/null 2>&1 && break; sleep 0.2; done
  docker save "${tmp[@]}" | docker exec -i "$cid" ctr -n k8s.io images import --all-platforms --no-unpack -
  # final names; pinned: the kubelet's image garbage collection never removes them
  for c in "${!tmp[@]}"; do
    docker exec "$cid" ctr -n k8s.io images tag --force "${tmp[$c]}" "${final[$c]}"
    docker exec "$cid" ctr -n k8s.io images label "${final[$c]}" io.cri-containerd.pinned=pinned
    docker exec "$cid" ctr -n k8s.io images rm "${tmp[$c]}" >/dev/null
  done
  docker exec "$cid" ctr -n k8s.io images ls
  docker exec "$cid" sh -c 'kill $(pidof containerd); while pidof containerd >/dev/null; do sleep 0.2; done'
  docker commit \
    --change 'ENTRYPOINT [ "/usr/local/bin/entrypoint", "/sbin/init" ]' --change 'CMD []' \
    --change "LABEL $LABEL=$RECIPE io.videoedge.kind-node.kubernetes=v$KUBE_VERSION io.videoedge.kind-node.kind=$KIND_VERSION" \
    "$cid" "$NODE_IMAGE"
  docker rm -f "$cid" >/dev/null; trap - EXIT
  docker rmi "$stage" >/dev/null
  rm -rf "$ctx"
}
old_id=$(image_id "$NODE_IMAGE")
step kind-node-assemble assemble
drop_if_dangling "$old_id"
[ "$(image_label "$NODE_IMAGE" "$LABEL")" = "$RECIPE" ] || die "$NODE_IMAGE lacks the label $LABEL=$RECIPE after the build"
docker images --format '{{.Repository}}:{{.Tag}}' "$TMP_REPO/*" | xargs -r docker rmi >/dev/null 2>&1 || true
log "$NODE_IMAGE built: $(img_size "$NODE_IMAGE"), recipe $RECIPE"

save_copy
finish
