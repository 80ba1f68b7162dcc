#!/usr/bin/env bash
# Inside the kind node: the declared values are in the kernel. net.* sysctls are per network namespace
# (the node container's, where the host-network agent and server run); vm.* are the machine's kernel's.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
scenario "20 the node's kernel has the declared values (docker exec $(node_name) sysctl ...)"

assert_eq "net.ipv4.tcp_congestion_control in the node" bbr "$(node_sysctl net.ipv4.tcp_congestion_control)"
# e2e/manifests/videoedge.yaml declares 4 sysctls (tuning.sysctls): a failed or empty read must not make
# the loop check nothing
decl=$(ve_sysctls) || fail "could not read the VideoEdge's sysctls (kubectl get ve $VE_NAME)"
assert_eq "sysctls the VideoEdge declares (4 in e2e/manifests/videoedge.yaml)" 4 "$(grep -c . <<<"$decl" || true)"
while IFS='=' read -r name value; do
  assert_eq "$name in the node" "$value" "$(node_sysctl "$name")"
done <<<"$decl"
# for the reader, not checks (neither can fail): vm.* is the one kernel's (the host reads the node's value),
# net.* the node's network namespace's own
info "vm.swappiness from the host: $(sysctl -n vm.swappiness) (one kernel); net.core.somaxconn host $(sysctl -n net.core.somaxconn), node $(node_sysctl net.core.somaxconn)"

# the cpuset files of the server pod's cgroup (cgroup v1; kubelet cgroupRoot /kubelet, systemd driver in kind)
uid=$(edge_pods -o jsonpath='{.items[0].metadata.uid}')
dir=$(node_exec find /sys/fs/cgroup/cpuset -maxdepth 4 -type d \( -name "*pod${uid//-/_}.slice" -o -name "pod$uid" \) | head -n1)
if [ -n "$dir" ]; then
  info "server pod cgroup: $dir"
  assert_eq "cpuset.sched_relax_domain_level of the server pod" 1 "$(node_exec cat "$dir/cpuset.sched_relax_domain_level")"
  assert_eq "cpuset.memory_spread_page of the server pod" 1 "$(node_exec cat "$dir/cpuset.memory_spread_page")"
elif [ "$(nt_json | jq -r '.status.capabilities.cgroup')" = v1 ]; then
  fail "the node reports cgroup v1 but no cpuset directory of pod $uid was found under /sys/fs/cgroup/cpuset"
else
  info "no cpuset cgroup v1 directory for pod $uid (cgroup v2 node): cpuset settings are reported Unsupported there"
fi

# RPS is asked for (nic.rps defaults to true), but kind's node entry point remounts /sys read-only:
# the agent reports each queue's rps_cpus Unsupported, leaves it as it is, and applies the rest
# (NodeTuning Applied=True in scenario 10)
queues=$(node_exec ls /sys/class/net/eth0/queues | grep '^rx-' || true)
[ -n "$queues" ] || fail "no rx-* queue under the node's /sys/class/net/eth0/queues: nothing to check RPS on"
for q in $queues; do
  assert_eq "rps/eth0/$q state on a read-only /sys" Unsupported "$(nt_setting "rps/eth0/$q" state)"
  assert_contains "rps/eth0/$q message names the read-only /sys" "/sys is mounted read-only" \
    "$(nt_setting "rps/eth0/$q" message)"
  assert_eq "rps/eth0/$q: the value the agent reports is the one in the node" "$(nt_setting "rps/eth0/$q" actual)" \
    "$(node_exec cat "/sys/class/net/eth0/queues/$q/rps_cpus")"
done
