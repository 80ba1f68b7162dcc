#!/usr/bin/env bash
# Signed URLs (server.signedUrls: /ts/ needs a token): without a token or with a forged or expired one
# the server answers 403 and keeps serving; a token minted with the README's openssl one-liner and one
# minted by the image's SignUrl tool are served, over HTTP and HTTPS, with the node's bytes. A key
# rotated in the Secret reaches the running server through the mounted volume: same pod, no restart.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
ip=$(node_ip)
scenario "36 signed URLs: 403 without a valid token, served with one; a key rotates without a restart"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
path=/ts/seg-00001.ts
want_sha=$(node_exec sha256sum "$CONTENT_PATH$path" | cut -d' ' -f1)
key_of() { k -n "$VE_NS" get secret "$URL_KEYS_SECRET" -o jsonpath="{.data.$1}" | base64 -d; }
# sign KEY EXPIRY PATH: the README's one-liner
sign() {
  printf 'videoedge-url-v1\n%s\n%s\n%s' "$2" "$3" "" | openssl dgst -sha256 -hmac "$1" -binary | basenc --base64url | tr -d '='
}
code() { curl -sS --max-time 20 --cacert "$(ca_file)" -o "$tmp/body" -w '%{http_code}' "$1"; }
exp=$(( $(date +%s) + 600 ))
key=$(key_of current)

assert_eq "GET $path without a token" 403 "$(code "http://$ip:$HTTP_PORT$path")"
assert_eq "GET $path with a forged token" 403 "$(code "http://$ip:$HTTP_PORT$path?exp=$exp&sig=$(sign wrong-key-0123456789 "$exp" "$path")")"
assert_eq "GET $path with an expired token" 403 \
  "$(code "http://$ip:$HTTP_PORT$path?exp=$((exp - 1200))&sig=$(sign "$key" $((exp - 1200)) "$path")")"
for scheme in "http://$ip:$HTTP_PORT" "https://$ip:$HTTPS_PORT"; do
  assert_eq "GET ${scheme%%:*} $path with a token from the openssl one-liner" 200 \
    "$(code "$scheme$path?exp=$exp&sig=$(sign "$key" "$exp" "$path")")"
  assert_eq "body = the node's file" "$want_sha" "$(sha256sum <"$tmp/body" | cut -d' ' -f1)"
done
assert_eq "a path without a rule needs no token" 200 "$(code "http://$ip:$HTTP_PORT/mp4/clip.mp4")"

pod=$(edge_pods -o jsonpath='{.items[0].metadata.name}')
uid=$(edge_pods -o jsonpath='{.items[0].metadata.uid}')
url=$(k -n "$VE_NS" exec "$pod" -c edge-server -- env JDK_JAVA_OPTIONS=-XX:TieredStopAtLevel=1 java -cp '/opt/videoedge/app.jar:/opt/videoedge/lib/*' \
  io.videoedge.server.signing.SignUrl --key-file /etc/videoedge/url-signing/current --ttl 300 "$path")
info "SignUrl in the pod printed $url"
assert_eq "GET with the URL the image's SignUrl tool printed" 200 "$(code "http://$ip:$HTTP_PORT$url")"
m=$(edge_metrics)
info "$(grep -E '^videoedge_signed_url_checks_total' <<<"$m" | tr '\n' ' ')"
for r in missing bad_signature expired ok; do
  v=$(awk -v r="$r" '$1 == "videoedge_signed_url_checks_total{result=\"" r "\"}" {print $2}' <<<"$m")
  (( ${v%.*} >= 1 )) || fail "videoedge_signed_url_checks_total{result=\"$r\"} is ${v:-absent}"
done
pass "refusals and tokens served are counted by result"

# rotation in the Secret: the new key under current, the old one kept as previous; the kubelet updates
# the mounted files, the server reads them again (no restart)
new=$(openssl rand -hex 32)
k -n "$VE_NS" create secret generic "$URL_KEYS_SECRET" --from-literal=current="$new" --from-literal=previous="$key" \
  --dry-run=client -o yaml | k replace -f - >/dev/null
with_new="http://$ip:$HTTP_PORT$path?exp=$exp&sig=$(sign "$new" "$exp" "$path")"
new_key_works() { local c; c=$(code "$with_new"); [ "$c" = 200 ] || { echo "status $c"; return 1; }; }
wait_until "a token made with the rotated-in key is served (the kubelet's volume update, then the server's poll)" \
  "$E2E_TIMEOUT" new_key_works
assert_eq "a token made with the old key (now previous) still works" 200 \
  "$(code "http://$ip:$HTTP_PORT$path?exp=$exp&sig=$(sign "$key" "$exp" "$path")")"
assert_eq "the same pod serves (no restart)" "$uid" "$(edge_pods -o jsonpath='{.items[0].metadata.uid}')"
assert_eq "videoedge_signed_url_keys" 2 "$(edge_metrics | awk '$1 == "videoedge_signed_url_keys" {print $2 + 0}')"
