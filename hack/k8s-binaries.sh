#!/bin/bash
# Kubernetes binaries built from source through the Go module proxy, for machines that cannot
# download release binaries (air-gapped edge sites, this build machine).
#
#   $VIDEOEDGE_CACHE/k8s/v$KUBE_VERSION/{kube-apiserver,kubectl,etcd,...}     the build
#   $BIN_DIR/kubectl                                                          link
#   $BIN_DIR/kubeapitest/k8s/$KUBE_VERSION-linux-<arch>/{kube-apiserver,etcd,kubectl}
#                                       the layout io.fabric8:kube-api-test reads (the *IT tier)
#
# KUBE_CMDS picks the Kubernetes commands (default: what the API-server tests need; the kind node
# image adds kubelet, kubeadm, ...). Binaries that already report the right version are kept, so a
# second run takes a second. Cold: ~5 min on 2 cores; with warm Go caches: ~1 min.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KUBE_VERSION=${KUBE_VERSION:-1.34.4}   # k8s.io/kubernetes v1.34.4, staging modules v0.34.4
ETCD_VERSION=${ETCD_VERSION:-3.6.5}    # the etcd kubeadm 1.34 deploys
KUBE_CMDS=${KUBE_CMDS:-"kube-apiserver kubectl"}   # "etcd" in the list only asks for etcd
need_cmd go jq
# etcd is built for the API-server tests (with kube-apiserver) and when asked for (the kind node image)
WANT_ETCD=0
case " $KUBE_CMDS " in *" kube-apiserver "*|*" etcd "*) WANT_ETCD=1 ;; esac
KUBE_CMDS=$(tr ' ' '\n' <<<"$KUBE_CMDS" | grep -vx -e etcd -e '' | tr '\n' ' ' || true)

OUT="$VIDEOEDGE_CACHE/k8s/v$KUBE_VERSION"
mkdir -p "$OUT"
export CGO_ENABLED=0

version_of() { # command -> the gitVersion it reports (empty when missing)
  local b="$OUT/$1"
  [ -x "$b" ] || return 0
  case $1 in
    kubectl) "$b" version --client -o json 2>/dev/null | jq -r .clientVersion.gitVersion ;;
    kubeadm) "$b" version -o short 2>/dev/null ;;
    *) "$b" --version 2>/dev/null | awk '{print $2}' ;;
  esac
}

build_kubernetes() { # commands...
  local d="$VIDEOEDGE_CACHE/build/k8s" kdir c p pkgs=() gets=() ld="-s -w"
  local staging="v0.${KUBE_VERSION#1.}" minor
  minor=$(cut -d. -f2 <<<"$KUBE_VERSION")
  rm -rf "$d"; mkdir -p "$d"; cd "$d"
  kdir=$(mod_dir "k8s.io/kubernetes@v$KUBE_VERSION")
  [ -n "$kdir" ] || { echo "cannot fetch k8s.io/kubernetes@v$KUBE_VERSION from the Go module proxy"; return 1; }
  # k8s.io/kubernetes requires its staging modules at v0.0.0 with replaces into ./staging, which
  # a module download does not have: point each one at its published v0.<minor>.<patch>.
  {
    echo "module local/k8sbuild"; echo
    grep -E '^(go|godebug) ' "$kdir/go.mod"; echo
    echo "replace ("
    sed -n '/^replace (/,/^)/p' "$kdir/go.mod" | awk -v sv="$staging" '/=>/ {print "\t" $1 " => " $1 " " sv}'
    echo ")"
  } >go.mod
  for c in "$@"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); gets+=("k8s.io/kubernetes/cmd/$c@v$KUBE_VERSION"); done
  go get "${gets[@]}"
  # what `make release` stamps, so the binaries report their version (kubeadm and kind check it)
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $p.gitVersion=v$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
    ld+=" -X $p.gitCommit=0000000000000000000000000000000000000000 -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  go build -trimpath -ldflags "$ld" -o "$d/out/" "${pkgs[@]}"
  for c in "$@"; do mv -f "$d/out/$c" "$OUT/$c"; done
  cd /; rm -rf "$d"
}

build_etcd() { # go.etcd.io/etcd/server/v3 has replace directives, so `go install` refuses it: scratch module
  local d="$VIDEOEDGE_CACHE/build/etcd"
  rm -rf "$d"; mkdir -p "$d"; cd "$d"
  printf 'module local/etcdbuild\n\ngo 1.24\n' >go.mod
  go get "go.etcd.io/etcd/server/v3@v$ETCD_VERSION"
  go build -trimpath -ldflags "-s -w" -o "$OUT/etcd" go.etcd.io/etcd/server/v3
  cd /; rm -rf "$d"
}

stale=()
for c in $KUBE_CMDS; do
  [ "$(version_of "$c")" = "v$KUBE_VERSION" ] || stale+=("$c")
done
if [ ${#stale[@]} -gt 0 ]; then
  log "building Kubernetes v$KUBE_VERSION: ${stale[*]} (cold: about 5 min on 2 cores; warm Go cache: about 1 min)"
  step k8s-build build_kubernetes "${stale[@]}"
fi
if [ "$WANT_ETCD" = 1 ] && [ "$("$OUT/etcd" --version 2>/dev/null | awk '/^etcd Version/ {print $3}')" != "$ETCD_VERSION" ]; then
  log "building etcd v$ETCD_VERSION"
  step etcd-build build_etcd
fi
for c in $KUBE_CMDS; do
  [ "$(version_of "$c")" = "v$KUBE_VERSION" ] || die "$c does not report v$KUBE_VERSION after the build"
done

[ -x "$OUT/kubectl" ] && ln -sfn "$OUT/kubectl" "$BIN_DIR/kubectl"
if [ -x "$OUT/kube-apiserver" ] && [ -x "$OUT/etcd" ] && [ -x "$OUT/kubectl" ]; then
  KAT="$BIN_DIR/kubeapitest/k8s/$KUBE_VERSION-linux-$(go_arch)"
  mkdir -p "$KAT"
  for c in kube-apiserver etcd kubectl; do ln -sfn "$OUT/$c" "$KAT/$c"; done
  [ ${#stale[@]} -gt 0 ] && log "binaries in $OUT; API-server test layout in $KAT"
fi
exit 0
