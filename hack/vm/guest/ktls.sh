# shellcheck shell=bash
# Kernel TLS for real (sourced by tests.sh, inside the VM). Three phases on one kernel:
#   A. the tls module cannot load (as on a kernel without it): the server reports the fallback
#      (ktls="false"), bodies are copied through OpenSSL, the bytes are right
#   B. the agent loads tls through its real module path (node-tuning apply: modprobe): new sessions are
#      in kernel TLS, proved by the kernel's counters (/proc/net/tls_stat), the socket's ULP (ss), the
#      server's per-session report (log line, metric ktls="true") and the sendfile byte counter
#   C. the agent's revert unloads it again (the journal said "absent")
# Needs: REPO, FIX (fixtures made by the host: content, certificate, config, spec), JAVA_HOME.
EDGE_ADMIN=http://127.0.0.1:9400
EDGE_HTTPS=https://localhost:8443
OBJ=bench/seg-16m.m4s
NO_TLS_CONF=/etc/modprobe.d/videoedge-vm-no-tls.conf
# shellcheck disable=SC2034 # read by agent() in lib.sh
JOURNAL=/tmp/vm/ktls-journal.json

# fetch PROTO [CURL ARGS]: the 16 MiB object over HTTPS with TLS PROTO (1.2, 1.3) into /tmp/vm/body
fetch() {
  local proto=$1; shift
  curl -sS --cacert "$FIX/tls.crt" --tlsv"$proto" --tls-max "$proto" -o /tmp/vm/body \
    -w '%{http_code} %{size_download}\n' "$@" "$EDGE_HTTPS/$OBJ"
}

# same_sha GOT WANT: the downloaded body is the file, byte for byte
same_sha() {
  local got want
  got=$(sha256sum <"$1" | cut -c1-64) want=$(sha256sum <"$2" | cut -c1-64)
  [ "$got" = "$want" ] || fail "sha256 $got of the body ($(stat -c %s "$1") bytes), the file's is $want"
}

# ---- phase A: no tls module
no_module() {
  echo "install tls /bin/false" >"$NO_TLS_CONF"
  [ ! -d /sys/module/tls ] || fail "tls is already loaded"
  ! modprobe tls 2>/dev/null || fail "modprobe tls succeeded despite $NO_TLS_CONF"
  echo "tls not loaded and not loadable (install tls /bin/false in $NO_TLS_CONF)"
}

# a whole object over TLS PROTO in user-space TLS: checksum, the session counted ktls="false"
fallback_object() { # PROTO
  local v=TLSv$1 before after code
  before=$(metric "$EDGE_ADMIN/metrics" videoedge_tls_sessions_total "protocol=\"$v\"" 'ktls="false"')
  code=$(fetch "$1" 2>/tmp/vm/curl.err) || fail "curl failed: $(tail -n 1 /tmp/vm/curl.err)"
  [ "$code" = "200 16777216" ] || fail "expected 200 and 16777216 bytes, got $code"
  same_sha /tmp/vm/body "$FIX/content/$OBJ"
  after=$(metric "$EDGE_ADMIN/metrics" videoedge_tls_sessions_total "protocol=\"$v\"" 'ktls="false"')
  [ "$after" -eq $((before + 1)) ] || fail "$v sessions with ktls=\"false\": $before -> $after, expected +1"
  [ ! -d /sys/module/tls ] || fail "tls got loaded"
  echo "$v: 16 MiB, sha256 equal ($(sha256sum </tmp/vm/body | cut -c1-12)...), videoedge_tls_sessions_total{protocol=\"$v\",ktls=\"false\"} $before -> $after"
}

fallback_reported() {
  local info copied kt
  info=$(curl -fsS "$EDGE_ADMIN/metrics" | grep '^videoedge_ktls_info')
  [[ $info == *'kernel="unavailable"'* && $info == *'requested="true"'* ]] || fail "videoedge_ktls_info says: $info"
  kt=$(metric "$EDGE_ADMIN/metrics" videoedge_tls_sessions_total 'ktls="true"')
  [ "$kt" -eq 0 ] || fail "$kt sessions counted ktls=\"true\" without a tls module"
  copied=$(metric "$EDGE_ADMIN/metrics" videoedge_http_response_body_bytes_total 'via="tls_copy"')
  [ "$copied" -ge $((2 * 16777216)) ] || fail "only $copied body bytes via tls_copy"
  grep -q 'TLS session: kernel TLS not active' /vm-out/logs/edge-no-tls.log || fail "no 'kernel TLS not active' log line"
  echo "$info; ktls=\"true\" sessions 0; $copied bytes via tls_copy; log: TLS session: kernel TLS not active"
}

# ---- phase B: the agent loads tls
agent_loads_tls() {
  rm -f "$NO_TLS_CONF"
  agent apply --spec "$REPO/hack/vm/guest/nodetuning-ktls.yaml" || fail "agent apply failed"
  [ -d /sys/module/tls ] || fail "/sys/module/tls missing after apply"
  grep -qw tls /proc/sys/net/ipv4/tcp_available_ulp || fail "tcp_available_ulp: $(cat /proc/sys/net/ipv4/tcp_available_ulp)"
  agent plan --spec "$REPO/hack/vm/guest/nodetuning-ktls.yaml" >/tmp/vm/plan.txt || fail "agent plan failed"
  grep -q 'kTLS available' /tmp/vm/plan.txt || fail "the agent does not report kTLS available: $(grep -o 'kTLS [a-z]*' /tmp/vm/plan.txt)"
  echo "module/tls loaded by the agent (modprobe); tcp_available_ulp: $(cat /proc/sys/net/ipv4/tcp_available_ulp); agent: kTLS available"
}

# a whole object over kernel TLS: a rate-limited download keeps the session open while the kernel's
# current-session counter and the socket's ULP are read
ktls_object() { # PROTO
  local v=TLSv$1 kbefore kafter tx0 tx1 sf0 sf1 cur0 peak=0 c ulp="" pid code
  kbefore=$(metric "$EDGE_ADMIN/metrics" videoedge_tls_sessions_total "protocol=\"$v\"" 'ktls="true"')
  sf0=$(metric "$EDGE_ADMIN/metrics" videoedge_http_response_body_bytes_total 'via="sendfile"')
  tx0=$(tls_stat TlsTxSw); cur0=$(tls_stat TlsCurrTxSw)
  fetch "$1" --limit-rate 2M >/tmp/vm/code 2>/tmp/vm/curl.err &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    c=$(tls_stat TlsCurrTxSw); [ "$c" -gt "$peak" ] && peak=$c
    # the server's socket as the kernel reports it (TLS 1.2: RX is switched at the client's
    # ChangeCipherSpec, TX at the server's: read until TX is in, or the download ends)
    [[ $ulp == *"txconf: sw"* ]] || ulp=$(ss -tnpi state established '( sport = :8443 )' 2>/dev/null | grep -A1 '"java"' | grep -o 'tcp-ulp-tls.*txconf: [a-z]*' || true)
    sleep 0.3
  done
  wait "$pid" || fail "curl failed: $(tail -n 1 /tmp/vm/curl.err)"
  code=$(cat /tmp/vm/code)
  [ "$code" = "200 16777216" ] || fail "expected 200 and 16777216 bytes, got $code"
  same_sha /tmp/vm/body "$FIX/content/$OBJ"
  tx1=$(tls_stat TlsTxSw)
  kafter=$(metric "$EDGE_ADMIN/metrics" videoedge_tls_sessions_total "protocol=\"$v\"" 'ktls="true"')
  # byte counters move after each write call: the client may have the last byte first
  wait_for 30 at_least $((sf0 + 16777216)) videoedge_http_response_body_bytes_total 'via="sendfile"' || true
  sf1=$(metric "$EDGE_ADMIN/metrics" videoedge_http_response_body_bytes_total 'via="sendfile"')
  [ "$tx1" -gt "$tx0" ] || fail "TlsTxSw did not move: $tx0 -> $tx1"
  [ "$peak" -gt "$cur0" ] || fail "TlsCurrTxSw never rose above $cur0 during the download"
  [[ $ulp == *"txconf: sw"* ]] || fail "ss shows no kernel TLS on the server's socket: '$ulp'"
  [ "$kafter" -eq $((kbefore + 1)) ] || fail "$v sessions with ktls=\"true\": $kbefore -> $kafter, expected +1"
  [ $((sf1 - sf0)) -ge 16777216 ] || fail "body bytes via sendfile grew by $((sf1 - sf0)), expected >= 16777216"
  echo "$v: 16 MiB, sha256 equal; TlsTxSw $tx0 -> $tx1, TlsCurrTxSw peak $peak (was $cur0); ss: $ulp; ktls=\"true\" sessions $kbefore -> $kafter; sendfile +$((sf1 - sf0)) bytes"
}

ktls_range() { # PROTO
  local v=TLSv$1 tx0 tx1 k0 k1 code
  tx0=$(tls_stat TlsTxSw)
  k0=$(metric "$EDGE_ADMIN/metrics" videoedge_tls_sessions_total "protocol=\"$v\"" 'ktls="true"')
  code=$(fetch "$1" -r 1000000-1999999 -D /tmp/vm/headers 2>/tmp/vm/curl.err) || fail "curl failed: $(tail -n 1 /tmp/vm/curl.err)"
  [ "$code" = "206 1000000" ] || fail "expected 206 and 1000000 bytes, got $code"
  grep -qi '^content-range: bytes 1000000-1999999/16777216' /tmp/vm/headers || fail "Content-Range: $(grep -i content-range /tmp/vm/headers)"
  dd if="$FIX/content/$OBJ" of=/tmp/vm/expected bs=1000000 skip=1 count=1 status=none
  same_sha /tmp/vm/body /tmp/vm/expected
  tx1=$(tls_stat TlsTxSw)
  k1=$(metric "$EDGE_ADMIN/metrics" videoedge_tls_sessions_total "protocol=\"$v\"" 'ktls="true"')
  [ "$tx1" -gt "$tx0" ] || fail "TlsTxSw did not move: $tx0 -> $tx1"
  [ "$k1" -eq $((k0 + 1)) ] || fail "$v sessions with ktls=\"true\": $k0 -> $k1, expected +1"
  echo "$v bytes=1000000-1999999: 206, Content-Range right, bytes equal to the file's; TlsTxSw $tx0 -> $tx1; ktls=\"true\" sessions $k0 -> $k1"
}

ktls_reported() {
  local info
  info=$(curl -fsS "$EDGE_ADMIN/metrics" | grep '^videoedge_ktls_info')
  [[ $info == *'kernel="available"'* ]] || fail "videoedge_ktls_info says: $info"
  grep -q 'TLS session: kernel TLS active' /vm-out/logs/edge-ktls.log || fail "no 'kernel TLS active' log line"
  echo "$info; log: TLS session: kernel TLS active, files go out with sendfile"
}

# ---- phase C: revert
agent_reverts() {
  agent revert || fail "agent revert failed"
  [ ! -d /sys/module/tls ] || fail "tls still loaded after revert"
  [ "$(cat /proc/sys/net/ipv4/tcp_congestion_control)" = "$CC_BEFORE" ] || fail "tcp_congestion_control $(cat /proc/sys/net/ipv4/tcp_congestion_control), was $CC_BEFORE"
  echo "tls unloaded, tcp_congestion_control back to $CC_BEFORE"
}

cp -r "$FIX/content" /tmp/vm/content
CC_BEFORE=$(cat /proc/sys/net/ipv4/tcp_congestion_control)

check "ktls/A module not loadable" no_module
edge_launch /vm-out/logs/edge-no-tls.log
check "ktls/A edge server ready" edge_ready
check "ktls/A TLS 1.2 object, user-space TLS" fallback_object 1.2
check "ktls/A TLS 1.3 object, user-space TLS" fallback_object 1.3
check "ktls/A fallback reported" fallback_reported
edge_stop

check "ktls/B agent loads tls" agent_loads_tls
edge_launch /vm-out/logs/edge-ktls.log
check "ktls/B edge server ready" edge_ready
check "ktls/B TLS 1.2 object in kernel TLS" ktls_object 1.2
check "ktls/B TLS 1.3 object in kernel TLS" ktls_object 1.3
check "ktls/B TLS 1.2 range in kernel TLS" ktls_range 1.2
check "ktls/B TLS 1.3 range in kernel TLS" ktls_range 1.3
check "ktls/B kernel TLS reported" ktls_reported
edge_stop

# TlsIT, the host tier's TLS test, on this kernel (JUnit's console launcher): with the tls ULP available
# its kernel-TLS branch runs and must find the session in the kernel
tlsit() {
  local tx0 tx1 summary
  tx0=$(tls_stat TlsTxSw)
  summary=$(junit_class TlsIT) || fail "$summary"
  tx1=$(tls_stat TlsTxSw)
  [ "$tx1" -gt "$tx0" ] || fail "TlsIT passed but TlsTxSw did not move ($tx0 -> $tx1)"
  echo "$summary; TlsTxSw $tx0 -> $tx1"
}
check "ktls/B TlsIT (JUnit) with the tls module" tlsit

check "ktls/C agent revert unloads tls" agent_reverts
