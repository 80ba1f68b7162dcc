#!/bin/bash
# make tuning-effect, inside the VM (hack/vm/tuning-effect.sh boots it with VM_LINK=1: eth0, the virtio
# NIC with 4 queues, and eth1, the e1000e, on one Ethernet link). What the seed's tuning buys, counted:
# EFFECT_CLIENTS (200) slow clients in a network namespace behind eth1 (each reads 32 KiB/s through a
# 64 KiB receive buffer, hack/vm/guest/slow-clients.py) download a 16 MiB object from the edge server on
# eth0, twice, on the same baseline: net.core.wmem_max 4 MiB, so that the golden config's sendBuf 4m
# takes effect (SO_SNDBUF is capped at wmem_max: at the default 208 KiB a 4m asked is 416 KiB given), and
# the seed's larger tcp_mem (sized for the guest), so that memory pressure does not cap the run without:
#   untuned: tcp_notsent_lowat unset, 2 of 4 queues, IRQs where the driver put them, no RPS; the
#            server's acceptors without notsentLowat
#   tuned:   the agent applied nodetuning-effect.yaml (tcp_notsent_lowat 262144, 4 queues, IRQ
#            affinity spread, RPS/RFS) and the golden config (notsentLowat 512k on the sockets)
# After EFFECT_WARM (30) s, over EFFECT_WINDOW (30) s: the server sockets' memory (ss -tm: wmem_queued +
# rmem_alloc of each connection), the kernel's TCP memory (/proc/net/sockstat "mem", pages, both ends of
# every connection), NET_RX softirqs per CPU (/proc/softirqs), softnet drops and time squeezes, TCP
# retransmits. Counts, not seconds: emulation (TCG) changes how fast, not how much. The table goes to
# /vm-out/tuning-effect.txt; the exit code is 1 when a run did not hold its connections.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
# shellcheck source=/dev/null
. /vm-out/env
: "${REPO:?} ${FIX:?} ${JAVA_HOME:?}"
EDGE_ADMIN=http://127.0.0.1:9400
OBJ=bench/seg-16m.m4s
N=${EFFECT_CLIENTS:-200} WARM=${EFFECT_WARM:-30} WINDOW=${EFFECT_WINDOW:-30}
# shellcheck disable=SC2034 # read by agent() in lib.sh
JOURNAL=/tmp/vm/effect-journal.json
TABLE=/vm-out/tuning-effect.txt
mkdir -p /tmp/vm/content/bench /tmp/vm/effect
cp "$FIX/content/$OBJ" /tmp/vm/content/$OBJ

# the link: the server's side on eth0 (10.99.0.1), the clients' in the namespace "clients" on eth1
link_up() {
  modprobe e1000e
  wait_for 30 test -d /sys/class/net/eth1 || fail "no eth1 30 s after modprobe e1000e"
  ip addr add 10.99.0.1/24 dev eth0 && ip link set eth0 up
  ip netns add clients && ip link set eth1 netns clients
  ip -n clients addr add 10.99.0.2/24 dev eth1 && ip -n clients link set eth1 up && ip -n clients link set lo up
  echo "booted with net.core.wmem_max $(sysctl -n net.core.wmem_max), net.ipv4.tcp_mem $(sysctl -n net.ipv4.tcp_mem | tr -s '\t ' ' ')"
  sysctl -qw net.core.wmem_max=4194304 "net.ipv4.tcp_mem=150000 200000 300000"
  echo "eth0 10.99.0.1 <-> eth1 10.99.0.2 (netns clients); baseline: net.core.wmem_max 4194304, net.ipv4.tcp_mem 150000 200000 300000"
}

# counters: "cpuN NET_RX" lines, then "drops N", "squeezed N", "retrans N", "tcpmem PAGES", "tcpinuse N"
counters() {
  awk '$1 == "NET_RX:" {for (i = 2; i <= NF; i++) print "cpu" (i - 2), $i}' /proc/softirqs
  local d=0 s=0 line f
  # softnet_stat: one line per CPU, hex; the 2nd field is drops, the 3rd time squeezes
  while read -r line; do
    read -r -a f <<<"$line"
    d=$((d + 16#${f[1]})) s=$((s + 16#${f[2]}))
  done </proc/net/softnet_stat
  echo "drops $d"
  echo "squeezed $s"
  awk '$1 == "Tcp:" && !h {for (i = 2; i <= NF; i++) k[i] = $i; h = 1; next}
       $1 == "Tcp:" {for (i = 2; i <= NF; i++) if (k[i] == "RetransSegs") print "retrans", $i}' /proc/net/snmp
  awk '$1 == "TCP:" {for (i = 2; i < NF; i += 2) if ($i == "mem") print "tcpmem", $(i + 1); else if ($i == "inuse") print "tcpinuse", $(i + 1)}' /proc/net/sockstat
}
value() { awk -v k="$2" '$1 == k {print $2}' "$1"; }

established() { ss -tnH state established '( sport = :8080 )' | wc -l; }
enough() { [ "$(established)" -ge "$N" ]; }

# one run: LABEL CONFIG; results in /tmp/vm/effect/LABEL.*
run() {
  local label=$1 config=$2 d=/tmp/vm/effect/$1 cpid
  edge_launch "/vm-out/logs/effect-edge-$label.log" "$config"
  edge_ready || return 1
  ip netns exec clients python3 "$here/slow-clients.py" --host 10.99.0.1 --port 8080 --path "/$OBJ" -n "$N" \
    --seconds $((WARM + WINDOW + 60)) >"$d.clients" 2>&1 &
  cpid=$!
  wait_for 180 enough || { edge_stop; fail "$label: $(established) of $N connections after 180 s: $(tail -n 1 "$d.clients")"; }
  say "$label: $N connections, warming up ${WARM} s"
  sleep "$WARM"
  counters >"$d.before"
  sleep "$WINDOW"
  counters >"$d.after"
  # the kernel's own files under load, as samples for the agent's parsers' tests
  mkdir -p /vm-out/proc-samples
  for f in net/sockstat softirqs net/softnet_stat net/snmp uptime; do cp "/proc/$f" "/vm-out/proc-samples/$label-${f#net/}"; done
  ss -tmnH state established '( sport = :8080 )' >"$d.ss"
  cp "$d.ss" "/vm-out/effect-$label.ss"
  kill "$cpid" 2>/dev/null || true
  wait "$cpid" 2>/dev/null || true
  edge_stop
  # bytes held by the server's sockets: skmem w (wmem_queued: sent and unacknowledged plus unsent) + r
  awk '{ if (match($0, /skmem:\([^)]*\)/)) { m = substr($0, RSTART + 6, RLENGTH - 7); n = split(m, f, ",")
           for (i = 1; i <= n; i++) { if (f[i] ~ /^w[0-9]/) w += substr(f[i], 2); if (f[i] ~ /^r[0-9]/) r += substr(f[i], 2) } c++ } }
       END { printf "conns %d\nserverbytes %d\n", c, w + r }' "$d.ss" >"$d.mem"
  echo "$label: $(value "$d.mem" conns) connections, server sockets $(value "$d.mem" serverbytes) bytes, sockstat mem $(value "$d.after" tcpmem) pages"
  # the run counts only if it held its N connections to the end of the window
  [ "$(value "$d.mem" conns)" -ge "$N" ] || fail "$label: $(value "$d.mem" conns) of $N connections held at the end of the window"
}

# NET_RX per CPU over the window, and the busiest CPU's share of them (100/CPUs % is an even spread)
spread() { # LABEL
  local d=/tmp/vm/effect/$1
  paste <(grep '^cpu' "$d.before") <(grep '^cpu' "$d.after") | awk '
    { x = $4 - $2; v[NR] = x; t += x; if (x > m) m = x; s = s (NR > 1 ? "/" : "") x }
    END { printf "%s (busiest %.0f%%)\n", s, t ? 100 * m / t : 0 }'
}
delta() { echo $(( $(value "/tmp/vm/effect/$1.after" "$2") - $(value "/tmp/vm/effect/$1.before" "$2") )); }
per_conn_pages() { awk -v b="$(value "/tmp/vm/effect/$1.mem" serverbytes)" -v c="$(value "/tmp/vm/effect/$1.mem" conns)" 'BEGIN {printf "%.1f", c ? b / 4096 / c : 0}'; }
sockstat_pages() { awk -v p="$(value "/tmp/vm/effect/$1.after" tcpmem)" -v c="$(value "/tmp/vm/effect/$1.mem" conns)" 'BEGIN {printf "%.1f", c ? p / c : 0}'; }
# n/a when either side is 0 (or missing): no connections counted gives no ratio
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a > 0 && b > 0) printf "%.2fx", a / b; else printf "n/a"}'; }
# the server sockets' wmem_queued, KiB: min / median / max over the connections
spread_w() { grep -o 'skmem:([^)]*)' "/tmp/vm/effect/$1.ss" | grep -o ',w[0-9]*' | cut -c3- | sort -n |
  awk '{v[NR] = $1} END {if (NR) printf "%d / %d / %d", v[1] / 1024, v[int((NR + 1) / 2)] / 1024, v[NR] / 1024}'; }

check "effect/link eth0 <-> eth1" link_up
check "effect/untuned: $N slow clients" run untuned "$FIX/edge-server-untuned.yaml"
check "effect/agent apply nodetuning-effect.yaml" agent apply --spec "$here/nodetuning-effect.yaml"
check "effect/tuned: $N slow clients" run tuned "$FIX/edge-server.yaml"
check "effect/agent revert" agent revert

if [ -f /tmp/vm/effect/untuned.mem ] && [ -f /tmp/vm/effect/tuned.mem ]; then
  u=$(per_conn_pages untuned) t=$(per_conn_pages tuned) us=$(sockstat_pages untuned) ts=$(sockstat_pages tuned)
  {
    echo "tuning effect: $N slow clients (32 KiB/s each, 64 KiB receive buffer) downloading a 16 MiB object over eth0 (virtio, kernel $(uname -r), $(nproc) vCPUs under TCG); counts over ${WINDOW} s after ${WARM} s"
    printf '%-46s %-22s %-22s %s\n' "" "untuned" "tuned" "tuned/untuned"
    printf '%-46s %-22s %-22s %s\n' "server socket memory, pages per connection" "$u" "$t" "$(ratio "$t" "$u")"
    printf '%-46s %-22s %-22s %s\n' "sockstat TCP mem, pages per connection" "$us" "$ts" "$(ratio "$ts" "$us")"
    printf '%-46s %-22s %-22s\n' "send queue KiB per socket, min / median / max" "$(spread_w untuned)" "$(spread_w tuned)"
    printf '%-46s %-22s %-22s\n' "NET_RX softirqs per CPU" "$(spread untuned)" "$(spread tuned)"
    printf '%-46s %-22s %-22s\n' "softnet drops / time squeezes" "$(delta untuned drops) / $(delta untuned squeezed)" "$(delta tuned drops) / $(delta tuned squeezed)"
    printf '%-46s %-22s %-22s\n' "TCP retransmitted segments" "$(delta untuned retrans)" "$(delta tuned retrans)"
    printf '%-46s %-22s %-22s\n' "connections held (server side, at the end)" "$(value /tmp/vm/effect/untuned.mem conns)" "$(value /tmp/vm/effect/tuned.mem conns)"
    echo "both: net.core.wmem_max 4194304 (the golden sendBuf 4m in effect), tcp_mem 150000 200000 300000; untuned: acceptors without notsentLowat, tcp_notsent_lowat unset, NIC as booted; tuned: node-tuning apply of hack/vm/guest/nodetuning-effect.yaml (tcp_notsent_lowat 262144, 4 queues, IRQ affinity spread, RPS/RFS), golden config (notsentLowat 512k)"
    awk -v r="$(ratio "$t" "$u")" 'BEGIN {printf "socket memory goal (at most 0.25x): %s\n", (r != "n/a" && r + 0 <= 0.25 ? "met" : "NOT met")}'
  } | tee "$TABLE"
fi
say "$FAILS check(s) failed"
[ "$FAILS" -eq 0 ]
