#!/bin/bash
# Boots Debian's generic kernel (hack/vm/kernel.sh) under qemu and runs one command inside it, as root,
# on the host's own userland (the host's / over 9p, read-only, under a tmpfs overlay: see hack/vm/init).
#
#   hack/vm/boot.sh OUT_DIR CMD [ARG...]
#
# The guest: VM_CPUS (2) CPUs in two NUMA nodes (one CPU and half of VM_MEM_MB each), a virtio NIC with
# VM_QUEUES (4) queue pairs and one MSI-X interrupt per queue (on a multi-queue tap device, which needs
# root) on a PCI bus of NUMA node 1 (a pxb bridge: the NIC's numa_node is 1), a second NIC, qemu's
# e1000e (82574L: it emulates interrupt throttling; its driver is not loaded at boot), the modules
# of the kernel package in /lib/modules (modprobe works; only the virtio, 9p and overlay modules are
# loaded at boot). VM_LINK=1: the two NICs on one Ethernet link (a bridge between their taps). qemu runs
# in a network namespace of its own with its taps: nothing of the VM stays on the host after it. CMD runs with the current directory kept; its output is on the
# console (this script's stdout) and in OUT_DIR/console.log; OUT_DIR is writable from the guest as
# /vm-out. The exit code is CMD's; 1 when the guest did not finish (crash, VM_TIMEOUT seconds, 2400: the whole tier takes 13-15 minutes on 2 cores).
#
# No KVM: qemu emulates the CPU (TCG). Boot takes ~10 s; everything is 5-20x slower than on the host:
# count things (bytes, interrupts, pages, settings read back), never time them.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
[ $# -ge 2 ] || die "usage: $0 OUT_DIR CMD [ARG...]"
out=$(mkdir -p "$1" && cd "$1" && pwd); shift
cpus=${VM_CPUS:-2} mem=${VM_MEM_MB:-3072} queues=${VM_QUEUES:-4} timeout=${VM_TIMEOUT:-2400}
qemu=${QEMU:-qemu-system-x86_64}
# CPU model without AVX: with -cpu max a JVM crashed once in JIT-compiled code (SIGSEGV in C1 code);
# suspected: qemu 7.2's TCG, whose AVX/AVX2 emulation is new in that release. SSE4.2, AES-NI, RDRAND suffice
cpu=${VM_CPU:-Westmere,+rdrand}
# one host thread for all vCPUs: with multi-threaded TCG a guest JVM died with SIGSEGV in C1-compiled
# code twice in ~7 runs (once with -cpu max, once with Westmere); suspected, not proven: a race of
# multi-threaded TCG with the JIT's code patching. VM_TCG_THREAD=multi trades that for speed
tcg_thread=${VM_TCG_THREAD:-single}

# a missing tool fails with the command that installs it, never a skip
for t in "$qemu:qemu-system-x86" busybox:busybox-static cpio:cpio ip:iproute2 depmod:kmod unshare:util-linux; do
  command -v "${t%%:*}" >/dev/null 2>&1 || [ -x "/bin/${t%%:*}" ] ||
    die "'${t%%:*}' not found: run 'DEPS_SET=vm make deps' (or: apt-get install -y ${t#*:})"
done
[ "$(id -u)" -eq 0 ] || die "the VM's multi-queue tap device needs root (ip tuntap): run as root"
[ -c /dev/net/tun ] || die "/dev/net/tun missing: 'modprobe tun' (the VM's NIC is a tap device)"

kdir=$("$(dirname "$0")/kernel.sh")
kver=$(ls "$kdir/lib/modules")

# ---- initramfs: static busybox, the modules that reach the root (dependency order from modprobe), /init
work=$(mktemp -d)
# shellcheck disable=SC2317 # called by the trap
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/root/"{bin,proc,sys,dev,modules}
cp "$(command -v busybox || echo /bin/busybox)" "$work/root/bin/busybox"
for a in sh mount mkdir insmod cat cut echo chroot poweroff sync uname; do ln -s busybox "$work/root/bin/$a"; done
# the kernel's module autoloader (request_module: a congestion control, a ULP) runs /sbin/modprobe in
# this root, not in the guest's chroot: hand it over to the real modprobe and modules there
mkdir -p "$work/root/sbin"
printf '#!/bin/sh\nexec chroot /newroot /sbin/modprobe "$@"\n' >"$work/root/sbin/modprobe"
chmod 755 "$work/root/sbin/modprobe"
modprobe -d "$kdir" -S "$kver" -a --show-depends 9p 9pnet_virtio virtio_pci virtio_net overlay |
  awk '$1 == "insmod" && !seen[$2]++ {print $2}' | while read -r ko; do
    name=$(basename "$ko"); name=${name%%.ko*}.ko
    case $ko in
      *.xz) xz -dc "$ko" >"$work/root/modules/$name" ;;
      *.zst) zstd -qdc "$ko" >"$work/root/modules/$name" ;;
      *) cp "$ko" "$work/root/modules/$name" ;;
    esac
    echo "$name" >>"$work/root/modules.order"
  done
install -m 755 "$(dirname "$0")/init" "$work/root/init"
(cd "$work/root" && find . -print0 | cpio --null -o -H newc --quiet) >"$work/initrd.cpio"

# ---- the command, run by /init as /vm-out/run
rm -f "$out/exit-code"
{
  echo "set -e"
  echo "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
  # the kernel package's modules where modprobe looks (the host's / has none for this kernel)
  echo "mkdir -p /lib/modules/$kver && mount --bind $(printf %q "$kdir/lib/modules/$kver") /lib/modules/$kver"
  echo "ip link set lo up"
  echo "cd $(printf %q "$PWD")"
  printf 'exec'; printf ' %q' "$@"; echo
} >"$out/run"

# ---- the NICs' tap devices, made in a network namespace of qemu's own (unshare --net, below): they go
# with it when qemu exits, however this script ends (an error, a signal, kill -9: no tap is left behind
# on the host), and the host's firewall never sees their frames. vmtap0: the virtio NIC's (multi_queue:
# one file descriptor per queue pair); vmtap1: the e1000e's. VM_LINK=1 joins them with a bridge: the
# guest's eth0 and eth1 are then on one Ethernet link (make tuning-effect: clients in a network namespace
# behind eth1 reach a server on eth0 through the NICs' real queues and interrupts)
net="ip tuntap add dev vmtap0 mode tap multi_queue && ip link set vmtap0 up"
net+=" && ip tuntap add dev vmtap1 mode tap && ip link set vmtap1 up"
if [ "${VM_LINK:-0}" = 1 ]; then
  net+=" && ip link add vmbr type bridge && ip link set vmtap0 master vmbr && ip link set vmtap1 master vmbr"
  net+=" && ip link set vmbr up"
fi

half=$((mem / 2))
numa=()
for ((n = 0; n < 2; n++)); do
  numa+=(-object "memory-backend-ram,id=m$n,size=${half}M" -numa "node,nodeid=$n,memdev=m$n")
done
# CPUs: the first half on node 0, the rest on node 1
numa+=(-numa "cpu,node-id=0,socket-id=0" -numa "cpu,node-id=1,socket-id=1")
log "booting $kver: $cpus CPUs, 2 NUMA nodes, ${mem} MB, virtio NIC with $queues queues (tap), TCG$([ "${VM_LINK:-0}" = 1 ] && echo ", eth0 and eth1 linked")"
rc=0
# shellcheck disable=SC2016 # $0 and $@ are the inner shell's: qemu and its arguments
timeout --foreground "$timeout" unshare --net sh -c "$net"' && exec "$0" "$@"' "$qemu" -accel "tcg,thread=$tcg_thread" -cpu "$cpu" \
  -smp "$cpus,sockets=2,cores=$((cpus / 2)),threads=1" -m "$mem" "${numa[@]}" \
  -nodefaults -no-user-config -display none -serial stdio -no-reboot \
  -kernel "$kdir/boot/vmlinuz-$kver" -initrd "$work/initrd.cpio" \
  -append "console=ttyS0 quiet loglevel=3 panic=-1 mitigations=off" \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -virtfs "local,path=$out,mount_tag=out,security_model=none" \
  -netdev "tap,id=n0,ifname=vmtap0,script=no,downscript=no,queues=$queues,vhost=off" \
  -device pxb,id=numa1bus,bus=pci.0,bus_nr=32,numa_node=1 \
  -device "virtio-net-pci,netdev=n0,bus=numa1bus,mq=on,vectors=$((2 * queues + 2)),romfile=" \
  -netdev "tap,id=n1,ifname=vmtap1,script=no,downscript=no,vhost=off" \
  -device "e1000e,netdev=n1,bus=pci.0,romfile=" \
  2>&1 | tee "$out/console.log" || rc=$?
[ -f "$out/exit-code" ] || die "the guest did not finish (qemu rc=$rc; timeout ${timeout}s): see $out/console.log"
exit "$(cat "$out/exit-code")"
