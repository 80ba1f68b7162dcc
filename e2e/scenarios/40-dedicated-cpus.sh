#!/usr/bin/env bash
# The edge server runs on CPUs of its own (static CPU manager, Guaranteed pod, cpus: 1), and its
# selector threads are pinned inside that set: checked in the kubelet's state, in the kernel
# (/proc/PID/status and /proc/PID/task/TID/status of the java process, from inside the node), and in
# what the server itself reports (videoedge_selector_cpu_info).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
scenario "40 dedicated CPUs: the server's cpuset and its pinned selectors"

pod_uid=$(edge_pods -o jsonpath='{.items[0].metadata.uid}')
state=$(node_exec cat /var/lib/kubelet/cpu_manager_state)
info "kubelet cpu_manager_state: $state"
shared=$(jq -r '.defaultCpuSet' <<<"$state")
exclusive=$(jq -r --arg u "$pod_uid" '.entries[$u]["edge-server"] // empty' <<<"$state")
[ -n "$exclusive" ] || fail "the kubelet assigned no exclusive CPUs to the edge-server container of pod $pod_uid"
pass "kubelet: edge-server container has CPUs '$exclusive' to itself, the shared pool is '$shared'"
want_cpus=$(ve_jsonpath '{.spec.server.cpus}')
n=$(awk -F, '{n = 0; for (i = 1; i <= NF; i++) { if (split($i, r, "-") == 2) n += r[2] - r[1] + 1; else n++ } print n}' <<<"$exclusive")
assert_eq "number of exclusive CPUs = spec.server.cpus" "$want_cpus" "$n"

pid=$(edge_pid)
[ -n "$pid" ] || fail "no edge server java process in the node"
allowed=$(node_exec sh -c "sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$pid/status")
assert_eq "java (pid $pid in the node) Cpus_allowed_list" "$exclusive" "$allowed"
[ "$allowed" != "$shared" ] || fail "the server runs on the shared pool $shared"

# every selector thread (edge-sel-N) is pinned to one CPU of that set
sel=$(node_exec sh -c "for t in /proc/$pid/task/*; do c=\$(cat \$t/comm); case \$c in edge-sel-*) echo \"\$c \$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' \$t/status)\";; esac; done")
[ -n "$sel" ] || fail "no selector threads (edge-sel-*) in process $pid"
while read -r name cpu; do
  [[ $cpu =~ ^[0-9]+$ ]] || fail "selector $name is not pinned to one CPU: '$cpu'"
  node_exec sh -c "printf '%s\n' '$exclusive' | tr ',' '\n' | awk -F- -v c=$cpu '{ if (c >= \$1 && c <= (\$2 == \"\" ? \$1 : \$2)) f = 1 } END { exit !f }'" \
    || fail "selector $name runs on CPU $cpu, outside the server's set $exclusive"
  pass "selector thread $name pinned to CPU $cpu (kernel, /proc/$pid/task/*/status)"
done <<<"$sel"
assert_eq "selector threads = dedicated CPUs (selectors: 0)" "$want_cpus" "$(wc -l <<<"$sel")"

# what the server reports (metrics), consistent with the kernel
m=$(edge_metrics | grep '^videoedge_selector_cpu_info')
info "$m"
while read -r name cpu; do
  i=${name#edge-sel-}
  assert_match "videoedge_selector_cpu_info selector $i" "selector=\"$i\"" "$(grep "cpu=\"$cpu\"" <<<"$m" || true)"
done <<<"$sel"
assert_eq "selector log line" 1 "$(k -n "$VE_NS" logs "$(edge_pods -o name | head -n1)" | grep -c '"formattedMessage":"selectors will be pinned to allowed CPUs"')"

# and the rest of the node stays off those CPUs: the agent and the operator run on the shared pool (a
# container started before the server got its CPUs is narrowed by the kubelet's CPU manager reconcile
# loop, every 10 s by default)
agents=$(node_exec pgrep -f '^java .*io.videoedge.agent.NodeTuningMain' || true)
operators=$(node_exec pgrep -f '^java .*io.videoedge.operator.OperatorMain' || true)
[ -n "$agents" ] && [ -n "$operators" ] \
  || fail "the agent's and the operator's JVMs are not both on the node (agent pids '$agents', operator pids '$operators')"
for p in $agents $operators; do
  on_shared() {
    local a
    a=$(node_exec sh -c "sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$p/status")
    [ "$a" = "$shared" ] || { echo "Cpus_allowed_list $a"; return 1; }
  }
  wait_until "$(node_exec sh -c "tr '\0' ' ' </proc/$p/cmdline | grep -o 'io.videoedge[.a-zA-Z]*Main'") (pid $p) on the shared pool $shared" 60 on_shared
done

# tuning.numaInterleave: the entry point runs java under numactl --interleave=all (the operator adds
# SYS_NICE to the bounding set so that the runtime's default seccomp profile allows set_mempolicy)
if [ "$(ve_jsonpath '{.spec.tuning.numaInterleave}')" = true ]; then
  logs=$(k -n "$VE_NS" logs "$(edge_pods -o name | head -n1)")
  if grep -q 'numaInterleave requested but' <<<"$logs"; then fail "numaInterleave refused: $(grep 'numaInterleave requested' <<<"$logs")"; fi
  n=$(node_exec grep -c ' interleave' "/proc/$pid/numa_maps" || true)
  (( n > 0 )) || fail "no interleaved mappings in /proc/$pid/numa_maps"
  pass "java's memory is interleaved over the NUMA nodes: $n mappings with policy interleave (/proc/$pid/numa_maps)"
else
  fail "spec.tuning.numaInterleave is '$(ve_jsonpath '{.spec.tuning.numaInterleave}')': e2e/manifests/videoedge.yaml sets true, so the interleave check above did not run"
fi
