#!/usr/bin/env bash
# The edge server serves on the node's IP (host network): HTTP and HTTPS GET with the right bytes and
# type, a Range request (206 + Content-Range), a conditional request (304 with the ETag), 404, and its
# metrics on the admin port count what was served.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
ip=$(node_ip)
scenario "30 serving on the node's IP $ip: HTTP :$HTTP_PORT, HTTPS :$HTTPS_PORT, metrics :$ADMIN_PORT"
ca=$(ca_file)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
before=$(edge_metrics | awk '/^videoedge_http_requests_total/ {s += $2} END {print s + 0}')

f=hls/seg-00001.m4s
want_sha=$(node_exec sha256sum "$CONTENT_PATH/$f" | cut -d' ' -f1)
want_len=$(node_exec stat -c %s "$CONTENT_PATH/$f")
out=$(curl -sS --max-time 10 -D "$tmp/h" -o "$tmp/body" -w '%{http_code} %{size_download}' "http://$ip:$HTTP_PORT/$f")
assert_eq "HTTP GET /$f status and size" "200 $want_len" "$out"
assert_eq "HTTP body = the file in the node's $CONTENT_PATH" "$want_sha" "$(sha256sum <"$tmp/body" | cut -d' ' -f1)"
assert_match "Content-Type" "video/(iso.segment|mp4)" "$(grep -i '^content-type:' "$tmp/h" | tr -d '\r')"
assert_eq "playlist type" "application/vnd.apple.mpegurl" \
  "$(curl -sS --max-time 10 -o /dev/null -w '%{content_type}' "http://$ip:$HTTP_PORT/hls/playlist.m3u8")"

# HTTPS, verified against the Secret's certificate (issued for the node's IP), both protocols
for proto in 1.3 1.2; do
  out=$(curl -sS --max-time 20 --cacert "$ca" "--tlsv$proto" --tls-max "$proto" -o "$tmp/tls-body" \
    -w '%{http_code} %{size_download}' "https://$ip:$HTTPS_PORT/bench/seg-2m.m4s")
  assert_eq "HTTPS (TLS $proto, certificate verified) GET /bench/seg-2m.m4s" "200 $(node_exec stat -c %s "$CONTENT_PATH/bench/seg-2m.m4s")" "$out"
done
assert_eq "HTTPS body = the file" "$(node_exec sha256sum "$CONTENT_PATH/bench/seg-2m.m4s" | cut -d' ' -f1)" \
  "$(sha256sum <"$tmp/tls-body" | cut -d' ' -f1)"

# the access log: the pod's standard output has a JSON line for that HTTPS request (the container log)
size=$(node_exec stat -c %s "$CONTENT_PATH/bench/seg-2m.m4s")
access_line() {
  k -n "$VE_NS" logs "$(edge_pods -o jsonpath='{.items[0].metadata.name}')" -c edge-server --tail=2000 \
    | jq -Rc --arg p /bench/seg-2m.m4s --argjson n "$size" \
      'fromjson? | select(.path? == $p and .tls? == "TLSv1.2" and .status == 200 and .bytes == $n and .complete == true)' \
    | tail -1 | grep .
}
wait_until "access log line for the TLS 1.2 GET in the pod's log (path, status, bytes, complete)" "$E2E_TIMEOUT" access_line
info "access log: $(access_line)"

# Range
out=$(curl -sS --max-time 10 -D "$tmp/h" -o "$tmp/range" -w '%{http_code} %{size_download}' -r 100-1123 "http://$ip:$HTTP_PORT/mp4/clip.mp4")
assert_eq "Range 100-1123: status and length" "206 1024" "$out"
assert_eq "Content-Range" "bytes 100-1123/$(node_exec stat -c %s "$CONTENT_PATH/mp4/clip.mp4")" \
  "$(sed -n 's/^[Cc]ontent-[Rr]ange: //p' "$tmp/h" | tr -d '\r')"
assert_eq "range bytes = the file's bytes 100-1123" "$(node_exec sh -c "tail -c +101 $CONTENT_PATH/mp4/clip.mp4 | head -c 1024 | sha256sum" | cut -d' ' -f1)" \
  "$(sha256sum <"$tmp/range" | cut -d' ' -f1)"
out=$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' -r 999999999- "http://$ip:$HTTP_PORT/mp4/clip.mp4")
assert_eq "Range past the end" 416 "$out"
out=$(curl -sS --max-time 10 --cacert "$ca" -o /dev/null -w '%{http_code} %{size_download}' -r 0-99 "https://$ip:$HTTPS_PORT/mp4/clip.mp4")
assert_eq "Range over HTTPS" "206 100" "$out"

# Conditional: the ETag gives 304
etag=$(curl -sS --max-time 10 -I "http://$ip:$HTTP_PORT/$f" | sed -n 's/^[Ee][Tt]ag: //p' | tr -d '\r')
[ -n "$etag" ] || fail "no ETag on HEAD /$f"
out=$(curl -sS --max-time 10 -o "$tmp/empty" -w '%{http_code} %{size_download}' -H "If-None-Match: $etag" "http://$ip:$HTTP_PORT/$f")
assert_eq "If-None-Match: $etag" "304 0" "$out"
out=$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' -H 'If-None-Match: "other"' "http://$ip:$HTTP_PORT/$f")
assert_eq "If-None-Match with another ETag" 200 "$out"
assert_eq "missing object" 404 "$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "http://$ip:$HTTP_PORT/no/such.m4s")"

# metrics on the admin port (host network)
m=$(edge_metrics)
after=$(awk '/^videoedge_http_requests_total/ {s += $2} END {print s + 0}' <<<"$m")
(( after >= before + 10 )) || fail "videoedge_http_requests_total grew from $before to $after, expected at least 10 more"
pass "videoedge_http_requests_total counted the requests: $before -> $after"
assert_match "206 responses counted" 'videoedge_http_requests_total\{[^}]*status="206"[^}]*\} [1-9]' "$(grep 'status="206"' <<<"$m" | head -n1)"
assert_match "304 responses counted" 'status="304"[^}]*\} [1-9]' "$(grep 'status="304"' <<<"$m" | head -n1)"
assert_eq "native library (one-nio, built here)" 1 "$(grep -c '^videoedge_native_library_info{.*origin="videoedge-built"' <<<"$m")"
ktls_kernel=$(sed -n 's/^videoedge_ktls_info{kernel="\([a-z]*\)".*/\1/p' <<<"$m")
case "$ktls_kernel" in
  available | unavailable) pass "videoedge_ktls_info kernel=\"$ktls_kernel\"" ;;
  *) fail "videoedge_ktls_info missing or its kernel label unknown: '$ktls_kernel'" ;;
esac
if [ "$ktls_kernel" = unavailable ]; then
  # OpenSSL encrypts the HTTPS bodies in user space (tls_copy): this scenario's 4 MiB GET over TLS at least
  tls_bytes=$(awk -F' ' '/^videoedge_http_response_body_bytes_total\{via="tls_copy"\}/ {print $2}' <<<"$m")
  awk -v b="$tls_bytes" 'BEGIN {exit !(b >= 4194304)}' || fail "TLS body bytes $tls_bytes, expected >= 4 MiB"
  pass "videoedge_http_response_body_bytes_total{via=\"tls_copy\"} $tls_bytes"
  assert_eq "TLS sessions with kernel TLS (none: no tls ULP in this kernel, OpenSSL serves)" 0 \
    "$(grep '^videoedge_tls_sessions_total{.*ktls="true"' <<<"$m" | awk '{s += $2} END {print s + 0}')"
  # ... and the sessions were counted: this scenario's 3 HTTPS connections (the TLS 1.3 and 1.2 GETs, the
  # Range over HTTPS) at least, with OpenSSL (a counter that counts nothing would pass the line above)
  openssl_sessions=$(grep '^videoedge_tls_sessions_total{.*ktls="false"' <<<"$m" | awk '{s += $2} END {print s + 0}')
  (( openssl_sessions >= 3 )) || fail "videoedge_tls_sessions_total{ktls=\"false\"} is $openssl_sessions, expected at least this scenario's 3 HTTPS connections"
  pass "TLS sessions without kernel TLS (OpenSSL): $openssl_sessions (this scenario made 3)"
  info "not checkable here: kernel TLS and sendfile over TLS (the kernel lacks the tls module)"
else
  # kernel TLS (tls.mode ktls): the kernel encrypts, the bodies go by sendfile; the sessions say which
  ktls_sessions=$(grep '^videoedge_tls_sessions_total{.*ktls="true"' <<<"$m" | awk '{s += $2} END {print s + 0}')
  (( ktls_sessions >= 3 )) || fail "videoedge_tls_sessions_total{ktls=\"true\"} is $ktls_sessions on a kernel with kernel TLS ($ktls_kernel), expected at least this scenario's 3 HTTPS connections"
  pass "TLS sessions with kernel TLS: $ktls_sessions (this scenario made 3)"
fi
