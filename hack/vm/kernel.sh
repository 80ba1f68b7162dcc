#!/bin/bash
# Debian's current generic kernel for the VM tier, downloaded once and cached like the Kubernetes
# binaries. linux-image-amd64 is a meta package: the package it depends on (linux-image-<abi>-amd64)
# carries vmlinuz and the modules. Debian's archive keeps only the current one (older ABIs leave it
# with each security update), so the name is resolved from apt's lists, not pinned.
#
#   $VIDEOEDGE_CACHE/vm/kernel/<package>_<version>/boot/vmlinuz-<kver>
#   $VIDEOEDGE_CACHE/vm/kernel/<package>_<version>/lib/modules/<kver>/   (depmod run: modprobe works)
#
# Prints the kernel directory on stdout. VM_KERNEL_PKG=linux-image-... picks another package.
# First run: ~70 MB download, ~400 MB on disk, ~15 s. Cached: instant.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
need_cmd apt-cache apt-get dpkg-deb depmod

meta_dep() { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}'; }
pkg=${VM_KERNEL_PKG:-$(meta_dep)}
if [ -z "$pkg" ] && { [ -z "$SUDO" ] || sudo -n true 2>/dev/null; }; then
  step apt-update $SUDO apt-get update   # a machine whose package lists were cleaned
  pkg=$(meta_dep)
fi
[ -n "$pkg" ] || die "apt does not know linux-image-amd64: run 'apt-get update' (Debian's package lists) first"
version=$(apt-cache show "$pkg" 2>/dev/null | awk '/^Version:/ {print $2; exit}')
[ -n "$version" ] || die "apt does not know $pkg: run 'apt-get update' first"
dir="$VIDEOEDGE_CACHE/vm/kernel/${pkg}_$version"

if [ ! -f "$dir/.complete" ]; then
  fetch() {
    local tmp
    rm -rf "$dir"; mkdir -p "$dir"
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' RETURN
    # apt-get download writes into the current directory; as root it warns that _apt cannot write there
    (cd "$tmp" && apt-get download "$pkg=$version")
    dpkg-deb -x "$tmp"/*.deb "$dir"
    # the package has no modules.dep (its postinst runs depmod): make one so modprobe works in the guest
    depmod -b "$dir" "$(ls "$dir/lib/modules")"
    touch "$dir/.complete"
  }
  log "downloading $pkg $version from Debian (~70 MB, once)"
  step vm-kernel fetch
fi
echo "$dir"
