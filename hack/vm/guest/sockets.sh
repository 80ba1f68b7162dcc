# shellcheck shell=bash
# The socket buffer caps for real (sourced by tests.sh, inside the VM). Linux caps SO_SNDBUF at
# net.core.wmem_max when it is set (the kernel's default is 212992), so the golden config's sendBuf 4m
# gives a 416 KiB send buffer (the kernel doubles what it grants: ss -tm tb 425984). The agent raises
# wmem_max to at least 4 MiB (sysctlMinimums, as the operator renders them for sendBuf 4m) and the
# server, started before and not restarted, gives its next connection the full 8 MiB (it sets the sizes
# on each accepted socket: its listener still has what the old cap allowed). An administrator's larger
# value is left as it is, and revert puts the kernel's value back.
# Needs: REPO, FIX (content, config), JAVA_HOME.
# shellcheck disable=SC2034 # read by edge_up in lib.sh
EDGE_ADMIN=http://127.0.0.1:9400
# shellcheck disable=SC2034 # read by agent() in lib.sh
JOURNAL=/tmp/vm/sockets-journal.json
SOCKETS_SPEC=$REPO/hack/vm/guest/nodetuning-sockets.yaml
KERNEL_DEFAULT=212992

# tb NAME: the send buffer (ss -tm tb) of the server's side of a connection to :8080, held open by a slow download
conn_tb() {
  local pid tb=""
  curl -sS --limit-rate 64K -o /dev/null --max-time 60 http://127.0.0.1:8080/bench/seg-16m.m4s &
  pid=$!
  for _ in $(seq 1 60); do
    tb=$(ss -tmn state established '( sport = :8080 )' | grep -o 'tb[0-9]*' | head -n 1 | tr -d tb)
    [ -n "$tb" ] && break
    sleep 0.25
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "$tb"
}
# the listening socket's send buffer (ss -ltm tb)
listener_tb() { ss -ltmn '( sport = :8080 )' | grep -o 'tb[0-9]*' | head -n 1 | tr -d tb; }
wmem_max() { cat /proc/sys/net/core/wmem_max; }

kernel_cap() {
  local tb
  tb=$(conn_tb)
  [ "$tb" = $((2 * KERNEL_DEFAULT)) ] || fail "wmem_max $(wmem_max): the connection's tb is '$tb', expected $((2 * KERNEL_DEFAULT))"
  echo "wmem_max $(wmem_max): sendBuf 4m asked, the connection has tb $tb (the kernel's cap, doubled), the listener tb $(listener_tb)"
}

agent_raises() {
  agent apply --spec "$SOCKETS_SPEC" >/tmp/vm/sockets-apply.txt || { cat /tmp/vm/sockets-apply.txt; fail "agent apply failed"; }
  cat /tmp/vm/sockets-apply.txt
  [ "$(wmem_max)" = 4194304 ] || fail "wmem_max $(wmem_max) after apply, expected 4194304"
  grep -q '"sysctl/net.core.wmem_max"' "$JOURNAL" || fail "no journal entry for wmem_max"
  grep -Eq '^unchanged +sysctl/net.core.rmem_max .*(already at least|in place)' /tmp/vm/sockets-apply.txt \
    || fail "rmem_max: $(grep rmem_max /tmp/vm/sockets-apply.txt)"
  echo "agent: wmem_max $KERNEL_DEFAULT -> $(wmem_max) (journaled), rmem_max $(cat /proc/sys/net/core/rmem_max) left: $(grep -o 'sysctl/net.core.rmem_max.*' /tmp/vm/sockets-apply.txt | tr -s ' ')"
}

full_send_buffer() {
  local tb ltb
  tb=$(conn_tb) ltb=$(listener_tb)
  [ "$tb" = 8388608 ] || fail "after the raise a new connection has tb '$tb', expected 8388608 (listener: $ltb)"
  echo "same server process (pid $EDGE_PID), new connection: tb $tb (sendBuf 4m in full); its listener still has tb $ltb from before the raise"
}

revert_restores() {
  agent revert || fail "agent revert failed"
  [ "$(wmem_max)" = "$KERNEL_DEFAULT" ] || fail "wmem_max $(wmem_max) after revert, expected $KERNEL_DEFAULT"
  echo "revert: wmem_max back to $(wmem_max)"
}

admin_larger_left() {
  sysctl -qw net.core.wmem_max=16777216
  agent apply --spec "$SOCKETS_SPEC" >/tmp/vm/sockets-apply2.txt || { cat /tmp/vm/sockets-apply2.txt; fail "agent apply failed"; }
  cat /tmp/vm/sockets-apply2.txt
  [ "$(wmem_max)" = 16777216 ] || fail "wmem_max $(wmem_max): the administrator's 16777216 was changed"
  grep -q 'already at least 4194304 (the node has 16777216): left as it is' /tmp/vm/sockets-apply2.txt \
    || fail "not reported as left: $(grep wmem_max /tmp/vm/sockets-apply2.txt)"
  ! grep -q 'sysctl/net.core.wmem_max' "$JOURNAL" 2>/dev/null || fail "wmem_max journaled though not changed"
  agent revert || fail "agent revert failed"
  [ "$(wmem_max)" = 16777216 ] || fail "revert changed the administrator's value: $(wmem_max)"
  echo "administrator's 16777216 kept by apply and by revert: $(grep -o 'already at least.*left as it is' /tmp/vm/sockets-apply2.txt)"
}

[ -d /tmp/vm/content ] || cp -r "$FIX/content" /tmp/vm/content
WMEM_BEFORE=$(wmem_max)
say "booted with net.core.wmem_max $WMEM_BEFORE, rmem_max $(cat /proc/sys/net/core/rmem_max)"
sysctl -qw net.core.wmem_max=$KERNEL_DEFAULT
edge_launch /vm-out/logs/edge-sockets.log
check "sockets/A edge server ready" edge_ready
check "sockets/A the kernel's cap: sendBuf 4m gives 416 KiB" kernel_cap
check "sockets/B agent raises wmem_max to at least sendBuf" agent_raises
check "sockets/B the running server's next connection has the full send buffer" full_send_buffer
check "sockets/C revert restores the kernel's value" revert_restores
edge_stop
check "sockets/D an administrator's larger value is left, by apply and revert" admin_larger_left
sysctl -qw net.core.wmem_max="$WMEM_BEFORE"
