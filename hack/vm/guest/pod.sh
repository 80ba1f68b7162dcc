# shellcheck shell=bash
# The agent's settings that depend on the edge server's pod (sourced by tests.sh, inside the VM), on
# the guest's real cgroups: the pod's cpuset as the kubelet (cgroupfs driver) leaves it,
# kubepods/pod<uid>/<container> with the container pinned to CPU 1, first on cgroup v1 (the cpuset
# hierarchy), then on cgroup v2. The agent reads the pod's CPUs from the cgroup and
#   - IRQ affinity server-cores: every queue interrupt of eth0 on the pod's CPU (1); housekeeping: on
#     the others (0); RPS of every RX queue to the same CPUs
#   - cpuset.sched_relax_domain_level and (numaInterleave) cpuset.memory_spread_page of the pod's cgroup
#     on v1; on v2 (no such files) Unsupported
# Everything is read back from /proc/irq, /sys/class/net and the cgroup files, and reverted exactly.
# Then, on v2, edge-server's PodMemoryIT: the smallest pod in a memory cgroup of its size.
POD_UID=7e57-vm
POD_SPEC=/tmp/vm/nodetuning-pod.yaml
CG=/sys/fs/cgroup

# the NodeTuning of these checks for an IRQ policy (the operator fills server.podUid from the pod)
pod_spec() { # POLICY
  cat >"$POD_SPEC" <<EOF
apiVersion: videoedge.io/v1alpha1
kind: NodeTuning
metadata: {name: vm-pod}
spec:
  source: {name: vm}
  server: {podUid: $POD_UID}
  nic: {interfaces: [eth0], irqAffinity: $1, rps: true}
  tuning: {cpusetRelaxDomainLevel: 1, numaInterleave: true}
EOF
}

pod_queue_irqs() { awk '$NF ~ /^virtio[0-9]+-(input|output)\.[0-9]+$/ {sub(":", "", $1); print $1}' /proc/interrupts; }
pod_dir() { if [ "$1" = v1 ]; then echo "$CG/cpuset/kubepods/pod$POD_UID"; else echo "$CG/kubepods/pod$POD_UID"; fi; }
# what the pod checks touch, one per line (compared before apply and after revert)
pod_snapshot() { # v1|v2
  local irq q
  for irq in $(pod_queue_irqs); do echo "irq $irq $(cat "/proc/irq/$irq/smp_affinity_list")"; done
  for q in /sys/class/net/eth0/queues/rx-*; do echo "${q##*/} rps_cpus $(cat "$q/rps_cpus")"; done
  if [ "$1" = v1 ]; then
    echo "sched_relax_domain_level $(cat "$(pod_dir v1)/cpuset.sched_relax_domain_level")"
    echo "memory_spread_page $(cat "$(pod_dir v1)/cpuset.memory_spread_page")"
  fi
}

# every queue IRQ's smp_affinity_list is CPUS and every RX queue's rps_cpus is MASK (hex)
pod_expect() { # CPUS MASK
  local irq q n=0
  for irq in $(pod_queue_irqs); do
    [ "$(cat "/proc/irq/$irq/smp_affinity_list")" = "$1" ] || fail "IRQ $irq: smp_affinity_list $(cat "/proc/irq/$irq/smp_affinity_list"), expected $1"
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] || fail "no queue IRQs of eth0 in /proc/interrupts"
  for q in /sys/class/net/eth0/queues/rx-*; do
    [ $((16#$(cat "$q/rps_cpus"))) -eq $((16#$2)) ] || fail "${q##*/} rps_cpus $(cat "$q/rps_cpus"), expected $2"
  done
  echo "$n queue IRQs on CPU $1, rps_cpus $2 on $(find /sys/class/net/eth0/queues -maxdepth 1 -name 'rx-*' | wc -l) RX queues"
}

pod_v1_setup() {
  local d
  mountpoint -q "$CG" || mount -t tmpfs cgroup "$CG"
  mkdir -p "$CG/cpuset"
  mount -t cgroup -o cpuset cpuset "$CG/cpuset" || fail "mount -t cgroup -o cpuset failed"
  for d in kubepods "kubepods/pod$POD_UID" "kubepods/pod$POD_UID/edge"; do
    mkdir "$CG/cpuset/$d"
    cat "$CG/cpuset/cpuset.mems" >"$CG/cpuset/$d/cpuset.mems"
    if [[ $d == */edge ]]; then echo 1 >"$CG/cpuset/$d/cpuset.cpus"; else echo 0-1 >"$CG/cpuset/$d/cpuset.cpus"; fi
  done
  pod_snapshot v1 >/tmp/vm/pod-v1-before
  echo "cgroup v1 cpuset: kubepods/pod$POD_UID/edge has CPU $(cat "$(pod_dir v1)/edge/cpuset.cpus"), sched_relax_domain_level $(cat "$(pod_dir v1)/cpuset.sched_relax_domain_level")"
}

pod_apply() { # POLICY LOG
  pod_spec "$1"
  agent apply --spec "$POD_SPEC" | tee "$2" || fail "agent apply ($1) failed: $(tail -n 1 "$2")"
}

pod_v1_server_cores() {
  local lvl spread
  pod_apply server-cores /tmp/vm/pod-v1-server.txt
  pod_expect 1 2 | tee /tmp/vm/pod-expect
  lvl=$(cat "$(pod_dir v1)/cpuset.sched_relax_domain_level")
  [ "$lvl" = 1 ] || fail "cpuset.sched_relax_domain_level $lvl, expected 1"
  # numaInterleave: the pod's page cache spread over its memory nodes (both NUMA nodes of the guest)
  spread=$(cat "$(pod_dir v1)/cpuset.memory_spread_page")
  [ "$spread" = 1 ] || fail "cpuset.memory_spread_page $spread, expected 1 (numaInterleave)"
  echo "server-cores: $(cat /tmp/vm/pod-expect); pod cgroup cpuset.sched_relax_domain_level 1, memory_spread_page 1 (mems $(cat "$(pod_dir v1)/cpuset.mems"))"
}

pod_v1_housekeeping() {
  pod_apply housekeeping /tmp/vm/pod-v1-house.txt
  pod_expect 0 1 | tee /tmp/vm/pod-expect
  echo "housekeeping: $(cat /tmp/vm/pod-expect)"
}

pod_revert() { # v1|v2
  agent revert | tee "/tmp/vm/pod-$1-revert.txt" || fail "agent revert failed: $(tail -n 1 "/tmp/vm/pod-$1-revert.txt")"
  pod_snapshot "$1" | diff "/tmp/vm/pod-$1-before" - || fail "not restored exactly (diff above: < before, > after revert)"
  echo "every value as before ($(wc -l <"/tmp/vm/pod-$1-before") lines); $(tail -n 1 "/tmp/vm/pod-$1-revert.txt")"
}

# from v1 to v2: the cpuset controller can move to the unified hierarchy once its v1 one is gone
pod_v2_setup() {
  local d
  for d in "kubepods/pod$POD_UID/edge" "kubepods/pod$POD_UID" kubepods; do rmdir "$CG/cpuset/$d"; done
  umount "$CG/cpuset" || fail "could not unmount the v1 cpuset hierarchy"
  umount "$CG"
  mount -t cgroup2 cgroup2 "$CG" || fail "mount -t cgroup2 failed"
  echo +cpuset >"$CG/cgroup.subtree_control"
  for d in kubepods "kubepods/pod$POD_UID" "kubepods/pod$POD_UID/edge"; do
    mkdir "$CG/$d"
    [[ $d == */edge ]] || echo +cpuset >"$CG/$d/cgroup.subtree_control"
  done
  echo 1 >"$CG/kubepods/pod$POD_UID/edge/cpuset.cpus"
  [ "$(cat "$CG/kubepods/pod$POD_UID/edge/cpuset.cpus.effective")" = 1 ] || fail "edge cpuset.cpus.effective: $(cat "$CG/kubepods/pod$POD_UID/edge/cpuset.cpus.effective")"
  [ ! -e "$(pod_dir v2)/cpuset.sched_relax_domain_level" ] || fail "cgroup v2 has cpuset.sched_relax_domain_level"
  pod_snapshot v2 >/tmp/vm/pod-v2-before
  echo "cgroup v2: kubepods/pod$POD_UID/edge cpuset.cpus.effective 1, no cpuset.sched_relax_domain_level"
}

pod_v2_server_cores() {
  local line spread
  pod_apply server-cores /tmp/vm/pod-v2-server.txt
  pod_expect 1 2 | tee /tmp/vm/pod-expect
  line=$(grep 'cpuset/sched_relax_domain_level' /tmp/vm/pod-v2-server.txt | tr -s ' \t' ' ') || fail "the agent says nothing about sched_relax_domain_level"
  [[ $line == unsupported* ]] || fail "sched_relax_domain_level on v2: $line"
  spread=$(grep 'cpuset/memory_spread_page' /tmp/vm/pod-v2-server.txt | tr -s ' \t' ' ') || fail "the agent says nothing about memory_spread_page"
  [[ $spread == unsupported* ]] || fail "memory_spread_page on v2: $spread"
  echo "server-cores: $(cat /tmp/vm/pod-expect); $line; $spread"
}

# shellcheck disable=SC2034 # read by agent() in lib.sh
JOURNAL=/tmp/vm/pod-journal.json
check "pod/v1 cgroup: the pod's container on CPU 1" pod_v1_setup
check "pod/v1 IRQ affinity server-cores, RPS, sched_relax_domain_level" pod_v1_server_cores
check "pod/v1 IRQ affinity housekeeping, RPS" pod_v1_housekeeping
check "pod/v1 revert exact" pod_revert v1
check "pod/v2 cgroup: the pod's container on CPU 1" pod_v2_setup
check "pod/v2 IRQ affinity server-cores, sched_relax_domain_level Unsupported" pod_v2_server_cores
check "pod/v2 revert exact" pod_revert v2

# The rendered pods' memory on cgroup v2, the hierarchy of most Kubernetes nodes now, which charges the
# pod for its sockets and other kernel memory as well (the build machines' v1 does not, without kmem
# accounting): edge-server's PodMemoryIT, the smallest pod the CRD admits with all its TLS connections
# open, and a plain pod with as many connections as half its heap holds (16,300: the open files limit
# raised for them, as a container runtime's is)
pod_v2_memory() {
  local summary
  grep -qw memory "$CG/cgroup.controllers" || fail "cgroup v2 without the memory controller: $(cat "$CG/cgroup.controllers")"
  ulimit -n 65536
  summary=$(junit_class PodMemoryIT) || fail "$summary"
  echo "$summary; $(grep '^pod of' /vm-out/logs/PodMemoryIT.out | paste -sd';' -)"
}
check "pod/v2 memory: the rendered pods hold their connections (PodMemoryIT)" pod_v2_memory
