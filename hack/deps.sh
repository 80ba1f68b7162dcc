#!/bin/bash
# Debian packages the build, tests and benchmarks use. Installs what is missing when run as root
# (or with sudo); otherwise prints the command. Quick when everything is present.
#   DEPS_SET=test   what `make test` needs (default)
#   DEPS_SET=vm     adds qemu, a static busybox and cpio (make vm-test: Debian's kernel under qemu)
#   DEPS_SET=all    adds the benchmark, image and cluster tools and the vm set
set -euo pipefail
. "$(dirname "$0")/lib.sh"

test_pkgs="curl openssl libssl3 libssl-dev gcc libc6-dev iproute2 kmod ethtool jq procps nginx-light"
vm_pkgs="$test_pkgs qemu-system-x86 busybox-static cpio"
all_pkgs="$vm_pkgs wrk tcpdump docker.io debootstrap zstd numactl"
case "${DEPS_SET:-test}" in
  test) pkgs=$test_pkgs ;;
  vm) pkgs=$vm_pkgs ;;
  all) pkgs=$all_pkgs ;;
  *) die "DEPS_SET must be test, vm or all" ;;
esac

missing=()
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ -n "$SUDO" ] && ! sudo -n true 2>/dev/null; then
  die "missing Debian packages: ${missing[*]}; install them with: sudo apt-get install -y ${missing[*]}"
fi
log "installing Debian packages: ${missing[*]}"
step apt-update $SUDO apt-get update
step apt-install $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
# nginx is a test dependency only: never leave a system nginx running on port 80
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet nginx 2>/dev/null; then $SUDO systemctl stop nginx || true; fi
pkill -x nginx 2>/dev/null || true
finish
