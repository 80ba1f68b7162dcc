# shellcheck shell=bash
# The agent on a real NIC and a kernel the test owns (sourced by tests.sh, inside the VM): eth0 is
# qemu's virtio-net with 4 queue pairs (2 on at boot: one per vCPU), one MSI-X interrupt per queue,
# on the PCI bus of NUMA node 1 (boot.sh). The spec (nodetuning-nic.yaml) asks for 4 channels, IRQ
# affinity "spread", RPS/RFS, rx-usecs (virtio has no coalescing: must be reported Unsupported) and
# global sysctls. eth1 (e1000e, loaded last) has coalescing: nodetuning-e1000e.yaml sets it. Everything is read back from /proc and /sys by this script, not from the agent.
NIC_SPEC=$REPO/hack/vm/guest/nodetuning-nic.yaml
SYSCTLS="net.core.rps_sock_flow_entries net.ipv4.tcp_mem net.ipv4.tcp_notsent_lowat vm.swappiness vm.min_free_kbytes net.ipv4.tcp_congestion_control"

# the queue interrupts of eth0's virtio device, by IRQ number: "IRQ NAME" (virtioN-input.Q, virtioN-output.Q)
queue_irqs() { awk '$NF ~ /^virtio[0-9]+-(input|output)\.[0-9]+$/ {sub(":", "", $1); print $1, $NF}' /proc/interrupts; }
channels() { # current|max
  ethtool -l eth0 | awk -v want="$1" '/^Pre-set maximums/ {s = "max"} /^Current hardware/ {s = "current"}
    s == want && /^Combined:/ {print $2; exit}'
}
# every value the spec touches, one per line (compared before and after revert)
snapshot() {
  local irq name q s
  while read -r irq name; do echo "irq $irq ($name) $(cat "/proc/irq/$irq/smp_affinity_list")"; done < <(queue_irqs)
  echo "channels combined $(channels current)"
  for q in /sys/class/net/eth0/queues/rx-*; do echo "${q##*/} rps_cpus $(cat "$q/rps_cpus") rps_flow_cnt $(cat "$q/rps_flow_cnt")"; done
  for s in $SYSCTLS; do echo "$s $(sysctl -n "$s" | tr -s '\t ' '  ')"; done
  echo "module sch_netem $([ -d /sys/module/sch_netem ] && echo loaded || echo absent)"
}
# the NUMA node of eth0: numa_node of the PCI function (the virtio device under it has none)
nic_node() { cat "$(readlink -f /sys/class/net/eth0/device)/../numa_node"; }
# the CPUs of NUMA node N
node_cpus() { cat "/sys/devices/system/node/node$1/cpulist"; }

nic_facts() {
  local n
  n=$(queue_irqs | wc -l)
  [ "$(channels max)" = 4 ] || fail "eth0 has $(channels max) combined channels at most, expected 4"
  [ "$n" = 8 ] || fail "$n queue interrupts, expected 8 (4 input + 4 output)"
  [ "$(nic_node)" = 1 ] || fail "eth0 is on NUMA node $(nic_node), expected 1"
  snapshot >/tmp/vm/nic-before
  cat /tmp/vm/nic-before
  echo "eth0: virtio_net, combined $(channels current) of $(channels max), $n MSI-X queue interrupts, NUMA node 1 (CPUs $(node_cpus 1)); node 0 has CPUs $(node_cpus 0)"
}

nic_apply() {
  agent apply --spec "$NIC_SPEC" | tee /tmp/vm/nic-apply.txt || fail "agent apply failed: $(tail -n 1 /tmp/vm/nic-apply.txt)"
  snapshot >/tmp/vm/nic-applied
  echo "applied: $(grep -c '^applied' /tmp/vm/nic-apply.txt) settings, $(grep -c '^unsupported' /tmp/vm/nic-apply.txt) unsupported; $(tail -n 1 /tmp/vm/nic-apply.txt)"
}

nic_channels() {
  [ "$(channels current)" = 4 ] || fail "ethtool -l eth0: combined $(channels current), expected 4"
  [ -d /sys/class/net/eth0/queues/rx-3 ] || fail "no rx-3 queue"
  echo "ethtool -l eth0: combined 4 (was $(awk '/^channels/ {print $3}' /tmp/vm/nic-before)), queues rx-0..rx-3"
}

# spread: each queue pair's two interrupts on one CPU, the pairs round-robin over the online CPUs
# starting on the NIC's own NUMA node (node 1: CPU 1)
nic_irq_spread() {
  local irq name q cpu want home others got="" cpus
  home=$(node_cpus 1) others=$(node_cpus 0)
  while read -r irq name; do
    q=${name##*.}
    cpu=$(cat "/proc/irq/$irq/smp_affinity_list")
    if [ $((q % 2)) -eq 0 ]; then want=$home; else want=$others; fi
    [ "$cpu" = "$want" ] || fail "IRQ $irq ($name): smp_affinity_list $cpu, expected $want (queue $q: pairs alternate, NIC-local node first)"
    got+="$name->$cpu "
  done < <(queue_irqs)
  cpus=$(sort -u < <(queue_irqs | while read -r irq _; do cat "/proc/irq/$irq/smp_affinity_list"; done) | paste -sd, -)
  echo "smp_affinity_list read back: ${got}(CPUs used: $cpus)"
}

# virtio_net lists rx-usecs (as 0) but the device here has no notification coalescing: the agent must
# say Unsupported, write nothing, and not fail the pass; the kernel's refusal is checked directly
nic_coalescing_unsupported() {
  local line refusal
  line=$(grep 'ethtool/eth0/rx-usecs' /tmp/vm/nic-apply.txt) || fail "the agent says nothing about rx-usecs"
  [[ $line == unsupported* ]] || fail "rx-usecs: $line"
  refusal=$(ethtool -C eth0 rx-usecs 64 2>&1) && fail "ethtool -C eth0 rx-usecs 64 worked: the NIC has coalescing"
  [[ $refusal == *"Operation not supported"* ]] || fail "ethtool -C eth0 rx-usecs 64: $refusal"
  echo "$(tr -s ' \t' ' ' <<<"$line"); the kernel: ethtool -C eth0 rx-usecs 64: $refusal"
}

nic_rps_rfs() {
  local q mask flows
  for q in /sys/class/net/eth0/queues/rx-*; do
    mask=$(cat "$q/rps_cpus") flows=$(cat "$q/rps_flow_cnt")
    [ $((16#${mask//,/})) -eq 3 ] || fail "${q##*/} rps_cpus $mask, expected CPUs 0-1 (3)"
    [ "$flows" = 1024 ] || fail "${q##*/} rps_flow_cnt $flows, expected 4096 / 4 queues = 1024"
  done
  [ "$(sysctl -n net.core.rps_sock_flow_entries)" = 4096 ] || fail "rps_sock_flow_entries $(sysctl -n net.core.rps_sock_flow_entries)"
  echo "rx-0..rx-3: rps_cpus 3, rps_flow_cnt 1024; net.core.rps_sock_flow_entries 4096 (global: not visible in a netns)"
}

nic_global() {
  [ "$(sysctl -n net.ipv4.tcp_mem | tr -s '\t ' ' ')" = "150000 200000 300000" ] || fail "tcp_mem $(sysctl -n net.ipv4.tcp_mem)"
  [ "$(sysctl -n vm.swappiness)" = 0 ] || fail "vm.swappiness $(sysctl -n vm.swappiness)"
  [ "$(sysctl -n vm.min_free_kbytes)" = 32768 ] || fail "vm.min_free_kbytes $(sysctl -n vm.min_free_kbytes)"
  [ "$(sysctl -n net.ipv4.tcp_notsent_lowat)" = 262144 ] || fail "tcp_notsent_lowat $(sysctl -n net.ipv4.tcp_notsent_lowat)"
  [ "$(sysctl -n net.ipv4.tcp_congestion_control)" = bbr ] || fail "tcp_congestion_control $(sysctl -n net.ipv4.tcp_congestion_control)"
  [ -d /sys/module/sch_netem ] || fail "sch_netem not loaded"
  [ -d /sys/module/tcp_bbr ] || fail "tcp_bbr not loaded (the kernel loads it when bbr is written)"
  echo "tcp_mem 150000 200000 300000, vm.swappiness 0, vm.min_free_kbytes 32768, tcp_notsent_lowat 262144, bbr (tcp_bbr loaded), sch_netem loaded"
}

# someone rewrites an interrupt's affinity and tcp_mem; the next pass says so and puts them back
nic_drift() {
  local irq name was
  read -r irq name < <(queue_irqs)
  was=$(cat "/proc/irq/$irq/smp_affinity_list")
  node_cpus 0 >"/proc/irq/$irq/smp_affinity_list"
  sysctl -qw net.ipv4.tcp_mem="1000 2000 3000"
  agent apply --spec "$NIC_SPEC" | tee /tmp/vm/nic-drift.txt || fail "agent apply failed: $(tail -n 1 /tmp/vm/nic-drift.txt)"
  grep -q "^drift: irq/eth0/$irq was $(node_cpus 0), re-applied $was" /tmp/vm/nic-drift.txt || fail "no drift line for IRQ $irq"
  grep -q '^drift: sysctl/net.ipv4.tcp_mem' /tmp/vm/nic-drift.txt || fail "no drift line for tcp_mem"
  [ "$(cat "/proc/irq/$irq/smp_affinity_list")" = "$was" ] || fail "IRQ $irq: $(cat "/proc/irq/$irq/smp_affinity_list") after the pass, expected $was"
  [ "$(sysctl -n net.ipv4.tcp_mem | tr -s '\t ' ' ')" = "150000 200000 300000" ] || fail "tcp_mem $(sysctl -n net.ipv4.tcp_mem) after the pass"
  grep '^drift:' /tmp/vm/nic-drift.txt | tr '\t' ' ' | paste -sd';' -
}

nic_revert() {
  agent revert | tee /tmp/vm/nic-revert.txt || fail "agent revert failed: $(tail -n 1 /tmp/vm/nic-revert.txt)"
  snapshot >/tmp/vm/nic-after
  diff /tmp/vm/nic-before /tmp/vm/nic-after || fail "not restored exactly (diff above: < before, > after revert)"
  echo "every value as before apply ($(wc -l </tmp/vm/nic-before) lines: IRQ affinities, channels, RPS/RFS, sysctls, module); $(tail -n 1 /tmp/vm/nic-revert.txt)"
}

# the journal for real: kill -9 the agent's JVM in the middle of an apply pass, at a known point: right
# after its queue change (ethtool -L done, which also made virtio_net move every queue IRQ), while it
# waits on a slow ethtool (a wrapper first on its PATH); the journal then holds the IRQ affinities and
# the channel count, and no plan fingerprint. Nothing changes after it died; the originals it journaled
# must survive the next pass (which finds the queue count already changed) and come back on revert
nic_kill9() {
  local pid n changed slow=/tmp/vm/slow-ethtool
  mkdir -p "$slow"; rm -f /tmp/vm/channels-changed
  cat >"$slow/ethtool" <<EOF
#!/bin/sh
$(command -v ethtool) "\$@" || exit \$?
[ "\$1" != -L ] || { touch /tmp/vm/channels-changed; sleep 30; }
EOF
  chmod 755 "$slow/ethtool"
  (PATH=$slow:$PATH agent_exec apply --spec "$NIC_SPEC") >/tmp/vm/nic-kill.txt 2>&1 &
  pid=$!
  wait_for 10 grep -qx java "/proc/$pid/comm" || fail "pid $pid is $(cat "/proc/$pid/comm" 2>/dev/null), not the agent's JVM"
  until [ -f /tmp/vm/channels-changed ]; do
    kill -0 "$pid" 2>/dev/null || fail "the agent ended before its queue change: $(tail -n 1 /tmp/vm/nic-kill.txt)"
    sleep 0.1
  done
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
  ! kill -0 "$pid" 2>/dev/null || fail "the agent (pid $pid) still runs after kill -9"
  ! grep -q '^result:' /tmp/vm/nic-kill.txt || fail "the pass had finished when it was killed"
  ! grep -q '"fingerprint"' "$JOURNAL" || fail "the journal has the plan's fingerprint: the pass had finished when it was killed"
  n=$(grep -c '"original"' "$JOURNAL")
  snapshot >/tmp/vm/nic-killed
  changed=$(diff /tmp/vm/nic-before /tmp/vm/nic-killed | grep -c '^>' || true)
  sleep 2
  snapshot | diff /tmp/vm/nic-killed - || fail "values changed after the agent died (diff above)"
  agent apply --spec "$NIC_SPEC" >/tmp/vm/nic-again.txt || fail "apply after the kill: $(tail -n 1 /tmp/vm/nic-again.txt)"
  snapshot | diff /tmp/vm/nic-applied - || fail "the pass after the kill did not converge to the applied values (diff above)"
  agent revert >/tmp/vm/nic-revert2.txt || fail "revert after the kill: $(tail -n 1 /tmp/vm/nic-revert2.txt)"
  snapshot | diff /tmp/vm/nic-before - || fail "originals lost: revert after kill -9 and a new pass is not exact (diff above)"
  echo "JVM killed -9 mid-pass (after ethtool -L) with $n settings journaled, no fingerprint, $changed values already changed, none after; the next pass converged; revert restored every original ($(tail -n 1 /tmp/vm/nic-revert2.txt))"
}

# eth1, qemu's e1000e (82574L, one queue; its driver is loaded here, not at boot): the driver turns
# rx-usecs into the interrupt throttling rate the device emulates, so coalescing is real on this NIC:
# applied through the agent, read back with ethtool -c, and reverted to the driver's value
coal() { ethtool -c "$1" | awk -v k="$2:" '$1 == k {print $2; exit}'; }
nic_coalescing_e1000e() {
  local JOURNAL=/tmp/vm/e1000e-journal.json spec=$REPO/hack/vm/guest/nodetuning-e1000e.yaml before line
  modprobe e1000e || fail "modprobe e1000e failed"
  wait_for 30 test -d /sys/class/net/eth1 || fail "no eth1 30 s after modprobe e1000e"
  [ "$(basename "$(readlink -f /sys/class/net/eth1/device/driver)")" = e1000e ] || fail "eth1's driver is not e1000e"
  before=$(coal eth1 rx-usecs)
  if [ -z "$before" ] || [ "$before" = 64 ]; then fail "ethtool -c eth1: rx-usecs '$before' before apply"; fi
  agent apply --spec "$spec" | tee /tmp/vm/e1000e-apply.txt || fail "agent apply failed: $(tail -n 1 /tmp/vm/e1000e-apply.txt)"
  line=$(grep 'ethtool/eth1/rx-usecs' /tmp/vm/e1000e-apply.txt | tr -s ' \t' ' ') || fail "the agent says nothing about rx-usecs"
  [[ $line == applied* ]] || fail "rx-usecs: $line"
  [ "$(coal eth1 rx-usecs)" = 64 ] || fail "ethtool -c eth1: rx-usecs $(coal eth1 rx-usecs) after apply, expected 64"
  agent revert | tee /tmp/vm/e1000e-revert.txt || fail "agent revert failed: $(tail -n 1 /tmp/vm/e1000e-revert.txt)"
  [ "$(coal eth1 rx-usecs)" = "$before" ] || fail "ethtool -c eth1: rx-usecs $(coal eth1 rx-usecs) after revert, was $before"
  echo "eth1 (e1000e): ethtool -c rx-usecs $before -> 64 after apply -> $before after revert; agent: $line"
}

# each queue IRQ on a CPU virtio_net would not give it (pairs alternate the other way round), so that
# a move by the driver cannot go unseen
irqs_where_the_driver_would_not_put_them() {
  local irq name q
  while read -r irq name; do
    q=${name##*.}
    node_cpus $(((q + 1) % 2)) >"/proc/irq/$irq/smp_affinity_list"
  done < <(queue_irqs)
}

# the boot's queue IRQ affinities (read by nic_facts) back
irqs_back_to_boot() {
  local irq name
  while read -r irq name; do
    grep "^irq $irq " /tmp/vm/nic-before | awk '{print $NF}' >"/proc/irq/$irq/smp_affinity_list"
  done < <(queue_irqs)
}

# a pod-based IRQ policy (server-cores) whose pod's cgroup does not exist yet: the queue change is made
# while the IRQ settings wait, and virtio_net moves queue IRQs on it. The agent must put those back at
# once (its pass notes say which), so that the originals it journals once the pod is known are the
# node's own and not the driver's; revert then gives the boot's queue count with the same affinities.
# Each queue IRQ first gets a CPU the driver would not give it, so a move cannot go unseen.
nic_pending_policy_queue_change() {
  local JOURNAL=/tmp/vm/pending-journal.json spec=$REPO/hack/vm/guest/nodetuning-nic-pending.yaml put
  rm -f "$JOURNAL"
  [ "$(channels current)" = 2 ] || fail "eth0 has $(channels current) channels before the check, expected the boot's 2"
  irqs_where_the_driver_would_not_put_them
  snapshot >/tmp/vm/pending-before
  agent apply --spec "$spec" | tee /tmp/vm/pending-apply.txt || fail "agent apply failed: $(tail -n 1 /tmp/vm/pending-apply.txt)"
  [ "$(channels current)" = 4 ] || fail "ethtool -l eth0: combined $(channels current) after apply, expected 4"
  grep -q '^pending .*irq/eth0' /tmp/vm/pending-apply.txt || fail "the IRQ settings are not Pending: $(grep 'irq/eth0' /tmp/vm/pending-apply.txt | head -n 3)"
  put=$(grep -c '^note: irq/eth0/[0-9]*: moved to .* by the driver on the queue change, put back to' /tmp/vm/pending-apply.txt || true)
  [ "$put" -ge 1 ] || fail "no IRQ put back: the driver moved none on the queue change, so this check proves nothing"
  diff <(grep '^irq ' /tmp/vm/pending-before) <(snapshot | grep '^irq ') || fail "queue IRQs not as before the queue change (diff above: < before, > after apply)"
  ! grep -q '"irq/eth0' "$JOURNAL" || fail "the journal keeps IRQ originals the pass put back: $(grep -o '"irq/eth0/[0-9]*"' "$JOURNAL" | paste -sd' ' -)"
  agent revert >/tmp/vm/pending-revert.txt || fail "agent revert failed: $(tail -n 1 /tmp/vm/pending-revert.txt)"
  snapshot | diff /tmp/vm/pending-before - || fail "not restored exactly after revert (diff above)"
  irqs_back_to_boot # for the checks that follow
  echo "combined 2 -> 4 with irqAffinity server-cores waiting for its pod: $put queue IRQs moved by virtio_net and put back, none journaled; revert exact ($(tail -n 1 /tmp/vm/pending-revert.txt))"
}

# the same queue change, then eth0 leaves the spec: the next pass gives its queue count back (a release,
# as when a VideoEdge stops naming an interface) and virtio_net moves the queue IRQs again; the agent must
# put them back as a revert does, or they keep the driver's values with no original left to restore
nic_released_queue_count() {
  local JOURNAL=/tmp/vm/released-journal.json put
  rm -f "$JOURNAL"
  [ "$(channels current)" = 2 ] || fail "eth0 has $(channels current) channels before the check, expected the boot's 2"
  irqs_where_the_driver_would_not_put_them
  snapshot >/tmp/vm/released-before
  agent apply --spec "$REPO/hack/vm/guest/nodetuning-nic-pending.yaml" >/tmp/vm/released-apply.txt ||
    fail "agent apply failed: $(tail -n 1 /tmp/vm/released-apply.txt)"
  [ "$(channels current)" = 4 ] || fail "ethtool -l eth0: combined $(channels current) after apply, expected 4"
  agent apply --spec "$REPO/hack/vm/guest/nodetuning-nic-released.yaml" | tee /tmp/vm/released-release.txt ||
    fail "agent apply without eth0 failed: $(tail -n 1 /tmp/vm/released-release.txt)"
  grep -q '^note: ethtool/eth0/combined: no longer asked for, original 2 restored' /tmp/vm/released-release.txt ||
    fail "eth0's queue count was not released: $(grep '^note:' /tmp/vm/released-release.txt | head -n 3)"
  [ "$(channels current)" = 2 ] || fail "ethtool -l eth0: combined $(channels current) after the release, expected 2"
  snapshot | diff /tmp/vm/released-before - || fail "not as before after the release (diff above: < before, > after)"
  put=$(grep -c '^note: irq/eth0/[0-9]*: moved to .* by the driver on the queue change, put back to' /tmp/vm/released-release.txt || true)
  [ "$put" -ge 1 ] || fail "the agent notes no IRQ put back after the release: the driver moved none, so this check proves nothing"
  agent revert >/tmp/vm/released-revert.txt || fail "agent revert failed: $(tail -n 1 /tmp/vm/released-revert.txt)"
  snapshot | diff /tmp/vm/released-before - || fail "not restored exactly after revert (diff above)"
  irqs_back_to_boot # for the checks that follow
  echo "combined 2 -> 4, then eth0 left the spec: queue count 2 given back by the release, $put queue IRQs moved by virtio_net and put back; every value as before ($(tail -n 1 /tmp/vm/released-revert.txt))"
}

# shellcheck disable=SC2034 # read by agent() in lib.sh
JOURNAL=/tmp/vm/nic-journal.json
check "nic/facts: virtio NIC, 4 queue pairs, NUMA node 1" nic_facts
check "nic/queue change under an IRQ policy waiting for its pod" nic_pending_policy_queue_change
check "nic/queue count released when the interface leaves the spec" nic_released_queue_count
check "nic/apply" nic_apply
check "nic/channels: ethtool -L combined 4" nic_channels
check "nic/irq affinity spread, NIC-local node first" nic_irq_spread
check "nic/coalescing Unsupported on virtio" nic_coalescing_unsupported
check "nic/RPS, RFS, rps_sock_flow_entries" nic_rps_rfs
check "nic/global sysctls and modules" nic_global
check "nic/drift re-applied" nic_drift
check "nic/revert exact" nic_revert
check "nic/journal: kill -9 mid-pass, converge, revert exact" nic_kill9
check "nic/coalescing applied on e1000e, reverted" nic_coalescing_e1000e
