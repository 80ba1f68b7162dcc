# The private network namespace make bench and ab.sh run in (sourced; as root, after unshare --net):
#   lo up; net.ipv4.tcp_notsent_lowat=BENCH_NOTSENT_LOWAT (524288), as node tuning sets it on edge nodes;
#   congestion control BENCH_CC (bbr, node tuning's default): on loopback it decides most of the kernel's
#   work per MiB (see the cost model in PERFORMANCE.md);
#   the origin's own address, 127.0.0.2, whose route gives the connections to it congestion control
#   BENCH_ORIGIN_CC (cubic, Linux's default): the origin stands for another host, not an edge node, and
#   with BBR on a device without an fq qdisc (loopback has none) its TCP arms a pacing timer per burst,
#   more of them the faster its reader drains the socket (a cost on this machine that a remote origin
#   pays on its own). Sets bench_netinfo (one line for the output) and bench_origin_addr.
# $1: the script's name for messages.
bench_netns_setup() {
  local me=$1 cc=${BENCH_CC:-bbr} origin_cc=${BENCH_ORIGIN_CC:-cubic}
  ip link set lo up
  sysctl -qw net.ipv4.tcp_notsent_lowat="${BENCH_NOTSENT_LOWAT:-524288}"
  if ! sysctl -qw net.ipv4.tcp_congestion_control="$cc" 2>/dev/null; then
    echo "$me: cannot use congestion control $cc here (a network namespace may only choose from" \
      "net.ipv4.tcp_allowed_congestion_control: $(sysctl -n net.ipv4.tcp_allowed_congestion_control)); keeping" \
      "$(sysctl -n net.ipv4.tcp_congestion_control)" >&2
  fi
  bench_origin_addr=127.0.0.2
  # src: connections to the origin come from its address too, so its side's route (to the peer) is this one
  if ! ip route add local "$bench_origin_addr/32" dev lo table local src "$bench_origin_addr" congctl "$origin_cc" 2>/dev/null; then
    echo "$me: cannot give the origin congestion control $origin_cc (net.ipv4.tcp_available_congestion_control:" \
      "$(sysctl -n net.ipv4.tcp_available_congestion_control)); it keeps the namespace's" >&2
    origin_cc=$(sysctl -n net.ipv4.tcp_congestion_control)
  fi
  bench_netinfo="private netns, tcp_notsent_lowat=$(sysctl -n net.ipv4.tcp_notsent_lowat) for every socket, congestion control $(sysctl -n net.ipv4.tcp_congestion_control) (origin $bench_origin_addr: $origin_cc)"
}
